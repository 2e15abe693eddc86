CREATE FUNCTION agent_state.graph_delete_for_runs(
    agent uuid,
    graph_run_ids text [],
    reason text DEFAULT 'delete_for_runs'
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(graph_run_ids, 'graph_run_ids');
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    RETURN (
        SELECT agent_state._graph_purge_threads(agent, pg_catalog.array_agg(c.thread_id),
                                                pg_catalog.array_agg(c.checkpoint_ns),
                                                pg_catalog.array_agg(c.checkpoint_id), reason)
        FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.graph_run_id = ANY (graph_run_ids)
    );
END
$$;

COMMENT ON FUNCTION agent_state.graph_delete_for_runs(uuid, text [], text) IS
'graph_delete_for_runs(agent, graph_run_ids, reason => ''delete_for_runs'') -> int (for the '
'LangGraph checkpointer): removes the checkpoints (and their writes) whose metadata run_id is '
'one of graph_run_ids, through one audited purge record per thread.';
