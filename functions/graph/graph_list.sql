-- LangGraph checkpointer reads, one round trip: checkpoints newest first (ids sort
-- by time), each with its pending writes in LangGraph's order (task_path, task_id,
-- idx). get_tuple is this with a thread, a namespace and max_results 1 (or the
-- checkpoint's id).
CREATE FUNCTION agent_state.graph_list(
    agent uuid,
    thread text DEFAULT NULL,
    namespace text DEFAULT NULL,
    checkpoint text DEFAULT NULL,
    filter jsonb DEFAULT NULL,
    before text DEFAULT NULL,
    max_results integer DEFAULT NULL
)
RETURNS TABLE (
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    parent_checkpoint_id text,
    payload_type text,
    payload bytea,
    metadata jsonb,
    run_id uuid,
    write_task_ids text [],
    write_channels text [],
    write_types text [],
    write_values bytea []
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
-- Each statement below has one good plan whatever its values (the primary key,
-- see below); a custom plan was chosen on every call instead (a limit of 1 looks
-- cheaper than the generic plan's guess), planning each read anew.
SET plan_cache_mode = force_generic_plan
-- A generic plan is made for the average value: once ANALYZE has seen one
-- checkpoint holding most of the pending writes (or one thread most of the
-- checkpoints), it scanned the whole table for every checkpoint served (list
-- of 10 took 3.3 ms instead of 0.8, measured). The primary key serves every
-- statement here, for any value.
SET enable_seqscan = off
-- The digests are computed over to_jsonb of the rows, whose timestamps read the
-- same in every session only in UTC (_chain_intact).
SET "TimeZone" = 'UTC'
AS $$
BEGIN
    PERFORM agent_state._bind(agent);
    IF filter IS NOT NULL THEN
        PERFORM agent_state._json_within(filter, 'filter', 1000000);
        IF pg_catalog.jsonb_typeof(filter) <> 'object' THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'filter: must be a JSON object';
        END IF;
    END IF;
    IF max_results IS NOT NULL THEN
        PERFORM agent_state._need_count(max_results, 'max_results', 0);
    END IF;
    -- The checkpoints first (the primary key's order, limit applied), their
    -- pending writes then for those only, in LangGraph's order (task_path,
    -- task_id, idx, by their bytes). Each checkpoint and write served is checked
    -- against its digest (refusal on read, SPEC section 14): a genuine record by
    -- one hash in the statement (_chain_intact), anything else by
    -- _chain_checked, which refuses it (XX001). The pending writes come from
    -- _graph_pending_writes (inlined), whose check is in the WHERE clause, where
    -- the planner cannot drop it (as an aggregate nobody read, it was dropped: an
    -- altered write was served).
    --
    -- The saver's reads name a thread and a namespace: get_tuple (the latest, or
    -- one id) and list (newest first, maybe before an id). Each of these shapes
    -- is a statement of its own, whose plan PL/pgSQL caches: the primary key
    -- serves it whatever the values. Any other shape (no thread, no namespace)
    -- is planned for its values on each call (EXECUTE). (Not force_custom_plan
    -- on the function, as before: the setting reaches every function it calls,
    -- so the digest check of each row served was planned anew, three times its
    -- cost.)
    IF thread IS NOT NULL AND namespace IS NOT NULL AND checkpoint IS NOT NULL THEN
        RETURN QUERY
        SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.payload_type,
               c.payload, c.metadata, c.run_id, w.task_ids, w.channels, w.types, w.vals
        FROM agent_state.graph_checkpoints AS c
        LEFT JOIN LATERAL agent_state._graph_pending_writes(
            c.runtime_agent_id, c.thread_id, c.checkpoint_ns, c.checkpoint_id
        ) AS w ON true
        WHERE c.runtime_agent_id = graph_list.agent AND c.thread_id = graph_list.thread
          AND c.checkpoint_ns = graph_list.namespace AND c.checkpoint_id = graph_list.checkpoint
          AND (graph_list.filter IS NULL OR c.metadata @> graph_list.filter)
          AND (graph_list.before IS NULL OR c.checkpoint_id < graph_list.before)
          AND (graph_list.max_results IS NULL OR graph_list.max_results > 0)
          AND (agent_state._chain_intact('graph_checkpoints', pg_catalog.to_jsonb(c), c.chain_digest)
               OR agent_state._chain_checked('graph_checkpoints', c));
    ELSIF thread IS NOT NULL AND namespace IS NOT NULL AND before IS NULL THEN
        RETURN QUERY
        SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.payload_type,
               c.payload, c.metadata, c.run_id, w.task_ids, w.channels, w.types, w.vals
        FROM (
            SELECT k.*, k AS rec
            FROM agent_state.graph_checkpoints AS k
            WHERE k.runtime_agent_id = graph_list.agent AND k.thread_id = graph_list.thread
              AND k.checkpoint_ns = graph_list.namespace
              AND (graph_list.filter IS NULL OR k.metadata @> graph_list.filter)
            ORDER BY k.checkpoint_id DESC
            LIMIT graph_list.max_results
        ) AS c
        LEFT JOIN LATERAL agent_state._graph_pending_writes(
            c.runtime_agent_id, c.thread_id, c.checkpoint_ns, c.checkpoint_id
        ) AS w ON true
        WHERE (agent_state._chain_intact('graph_checkpoints', pg_catalog.to_jsonb(c.rec), c.chain_digest)
               OR agent_state._chain_checked('graph_checkpoints', c.rec))
        ORDER BY c.checkpoint_id DESC;
    ELSIF thread IS NOT NULL AND namespace IS NOT NULL THEN
        RETURN QUERY
        SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.payload_type,
               c.payload, c.metadata, c.run_id, w.task_ids, w.channels, w.types, w.vals
        FROM (
            SELECT k.*, k AS rec
            FROM agent_state.graph_checkpoints AS k
            WHERE k.runtime_agent_id = graph_list.agent AND k.thread_id = graph_list.thread
              AND k.checkpoint_ns = graph_list.namespace AND k.checkpoint_id < graph_list.before
              AND (graph_list.filter IS NULL OR k.metadata @> graph_list.filter)
            ORDER BY k.checkpoint_id DESC
            LIMIT graph_list.max_results
        ) AS c
        LEFT JOIN LATERAL agent_state._graph_pending_writes(
            c.runtime_agent_id, c.thread_id, c.checkpoint_ns, c.checkpoint_id
        ) AS w ON true
        WHERE (agent_state._chain_intact('graph_checkpoints', pg_catalog.to_jsonb(c.rec), c.chain_digest)
               OR agent_state._chain_checked('graph_checkpoints', c.rec))
        ORDER BY c.checkpoint_id DESC;
    ELSE
        RETURN QUERY EXECUTE $q$
        SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.payload_type,
               c.payload, c.metadata, c.run_id, w.task_ids, w.channels, w.types, w.vals
        FROM (
            SELECT k.*, k AS rec
            FROM agent_state.graph_checkpoints AS k
            WHERE k.runtime_agent_id = $1
              AND ($2 IS NULL OR k.thread_id = $2)
              AND ($3 IS NULL OR k.checkpoint_ns = $3)
              AND ($4 IS NULL OR k.checkpoint_id = $4)
              AND ($5 IS NULL OR k.metadata @> $5)
              AND ($6 IS NULL OR k.checkpoint_id < $6)
            ORDER BY k.checkpoint_id DESC, k.thread_id, k.checkpoint_ns
            LIMIT $7
        ) AS c
        LEFT JOIN LATERAL agent_state._graph_pending_writes(
            c.runtime_agent_id, c.thread_id, c.checkpoint_ns, c.checkpoint_id
        ) AS w ON true
        WHERE (agent_state._chain_intact('graph_checkpoints', pg_catalog.to_jsonb(c.rec), c.chain_digest)
               OR agent_state._chain_checked('graph_checkpoints', c.rec))
        ORDER BY c.checkpoint_id DESC, c.thread_id, c.checkpoint_ns
        $q$ USING agent, thread, namespace, checkpoint, filter, before, max_results;
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.graph_list(uuid, text, text, text, jsonb, text, integer) IS
'graph_list(agent, thread => null, namespace => null, checkpoint => null (an id), filter => '
'null, before => null (an id), max_results => null) -> (thread_id, checkpoint_ns, checkpoint_id, '
'parent_checkpoint_id, payload_type, payload, metadata, run_id, write_task_ids, write_channels, '
'write_types, write_values) (for the LangGraph checkpointer): stored checkpoints newest first '
'(run_id: the agent_state run each belongs to, for recover_run), '
'each with its pending writes; filter matches metadata (JSON containment). Reads only.';
