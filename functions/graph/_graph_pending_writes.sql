-- A checkpoint's pending writes in LangGraph's order (task_path, task_id, idx),
-- as the four arrays graph_list returns, each write checked against its digest
-- (a genuine one by one hash, _chain_intact; anything else by _chain_checked,
-- which refuses it: XX001). The check is in the WHERE clause, where the planner
-- cannot drop it. One place for every read shape of graph_list: a SQL function
-- with no SET clause, inlined into each statement (its plan stays the
-- statement's own), which only the owner's pinned functions may execute. The
-- arguments' collations differ (checkpoint ids sort as "C"): each comparison
-- names the collation of its index column, or the primary key could not serve it.
CREATE FUNCTION agent_state._graph_pending_writes(agent uuid, thread text, namespace text, checkpoint text)
RETURNS TABLE (task_ids text [], channels text [], types text [], vals bytea [])
LANGUAGE sql STABLE
AS $$
    SELECT pg_catalog.array_agg(x.task_id ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx),
           pg_catalog.array_agg(x.channel ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx),
           pg_catalog.array_agg(x.value_type ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx),
           pg_catalog.array_agg(x.value ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx)
    FROM agent_state.graph_writes AS x
    WHERE x.runtime_agent_id OPERATOR(pg_catalog.=) _graph_pending_writes.agent
      AND x.thread_id OPERATOR(pg_catalog.=) (_graph_pending_writes.thread COLLATE pg_catalog."default")
      AND x.checkpoint_ns OPERATOR(pg_catalog.=) (_graph_pending_writes.namespace COLLATE pg_catalog."default")
      AND x.checkpoint_id OPERATOR(pg_catalog.=) (_graph_pending_writes.checkpoint COLLATE pg_catalog."C")
      AND (agent_state._chain_intact('graph_writes', pg_catalog.to_jsonb(x), x.chain_digest)
           OR agent_state._chain_checked('graph_writes', x))
$$;
