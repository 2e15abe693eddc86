-- Direct DML deleting a checkpoint or write: its checkpoint must be one the
-- purge record of this transaction lists (_tg_guard_graph_payload only asks for a
-- purge of the thread). The product's own purges delete exactly what they list
-- (_graph_purge), so the trigger skips them (_own_write, SPEC section 1): a
-- containment test per deleted row against the whole list would make a big
-- purge quadratic.
CREATE FUNCTION agent_state._tg_guard_graph_purge_listed()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (
        SELECT FROM agent_state.graph_purges AS p
        WHERE p.runtime_agent_id = OLD.runtime_agent_id AND p.thread_id = OLD.thread_id
          AND p.purge_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
          AND p.created_at >= pg_catalog.transaction_timestamp()
          AND p.removed -> 'checkpoints' @> pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
              'checkpoint_ns', OLD.checkpoint_ns, 'checkpoint_id', OLD.checkpoint_id))
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format(
                '%s: delete refused; checkpoint %L of thread %L is not listed by a purge of this '
                'transaction', TG_TABLE_NAME, OLD.checkpoint_id, OLD.thread_id),
            HINT = 'Use the saver''s delete_thread, delete_for_runs or prune.';
    END IF;
    RETURN OLD;
END
$$;
