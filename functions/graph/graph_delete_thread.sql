CREATE FUNCTION agent_state.graph_delete_thread(
    agent uuid,
    thread_id text,
    reason text DEFAULT 'delete_thread'
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    nss text [];
    ids text [];
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_text_bytes(thread_id, 'thread_id', 1000);
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    -- Every checkpoint of the thread, and any whose writes arrived without it.
    SELECT pg_catalog.array_agg(u.ns), pg_catalog.array_agg(u.id) INTO nss, ids
    FROM (
        SELECT c.checkpoint_ns, c.checkpoint_id FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.thread_id = thread_id
        UNION
        SELECT w.checkpoint_ns, w.checkpoint_id FROM agent_state.graph_writes AS w
        WHERE w.runtime_agent_id = agent AND w.thread_id = thread_id
    ) AS u (ns, id);
    RETURN agent_state._graph_purge(agent, thread_id, nss, ids, reason);
END
$$;

COMMENT ON FUNCTION agent_state.graph_delete_thread(uuid, text, text) IS
'graph_delete_thread(agent, thread_id, reason => ''delete_thread'') -> int (for the LangGraph '
'checkpointer): removes every checkpoint payload and write of the thread through an audited '
'purge record (graph_purges); the thread''s conversation, runs and run checkpoints stay. Returns '
'how many checkpoints were removed (a thread without any: 0, nothing written).';
