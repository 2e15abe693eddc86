-- A LangGraph checkpoint's address, as graph_put and graph_put_writes take it:
-- the thread id 1 to 1000 bytes, the namespace at most 1000 bytes ('' is the
-- root namespace), the checkpoint id 1 to 200 bytes (each a btree key of
-- graph_checkpoints and graph_writes). 22004 for a null, 22023 otherwise, named
-- by the argument. Granted to no one.
CREATE FUNCTION agent_state._need_graph_checkpoint(thread_id text, checkpoint_ns text, checkpoint_id text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need_text_bytes(thread_id, 'thread_id', 1000);
    PERFORM agent_state._need(checkpoint_ns, 'checkpoint_ns');
    IF pg_catalog.octet_length(checkpoint_ns) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'checkpoint_ns: longer than 1000 bytes';
    END IF;
    PERFORM agent_state._need_text_bytes(checkpoint_id, 'checkpoint_id', 200);
END
$$;
