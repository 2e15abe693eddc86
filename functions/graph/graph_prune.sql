CREATE FUNCTION agent_state.graph_prune(
    agent uuid,
    thread_ids text [],
    strategy text DEFAULT 'keep_latest',
    reason text DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(thread_ids, 'thread_ids');
    PERFORM agent_state._need_one_of(strategy, 'strategy', ARRAY['keep_latest', 'delete']);
    reason := coalesce(reason, 'prune ' || strategy);
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    RETURN (
        SELECT agent_state._graph_purge_threads(agent, pg_catalog.array_agg(c.thread_id),
                                                pg_catalog.array_agg(c.checkpoint_ns),
                                                pg_catalog.array_agg(c.checkpoint_id), reason)
        FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.thread_id = ANY (thread_ids)
          -- keep_latest: all but the newest checkpoint of each namespace
          AND (strategy = 'delete' OR EXISTS (
              SELECT FROM agent_state.graph_checkpoints AS newer
              WHERE newer.runtime_agent_id = c.runtime_agent_id AND newer.thread_id = c.thread_id
                AND newer.checkpoint_ns = c.checkpoint_ns
                AND newer.checkpoint_id > c.checkpoint_id))
    );
END
$$;

COMMENT ON FUNCTION agent_state.graph_prune(uuid, text [], text, text) IS
'graph_prune(agent, thread_ids, strategy => ''keep_latest'', reason => null) -> int (for the '
'LangGraph checkpointer): keep_latest removes all but the newest checkpoint of each namespace of '
'each thread, delete removes all; through one audited purge record per thread. strategy: 22023 '
'otherwise.';
