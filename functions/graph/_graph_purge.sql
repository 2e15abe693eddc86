-- Removes the payloads of some checkpoints of one thread (their writes too), after
-- writing the purge record that authorises it (_tg_guard_graph_payload): who, when,
-- why and which checkpoints. Returns how many checkpoints were removed; writes no
-- record when there are none.
CREATE FUNCTION agent_state._graph_purge(agent uuid, thread text, nss text [], ids text [], reason text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(pg_catalog.cardinality(ids), 0) = 0 THEN
        RETURN 0;
    END IF;
    -- The purge keeps the chain links of what it removes (chain_removed:
    -- [chain_at, chain_xact, digest]), so heads taken before it stay valid
    -- (_chain_links).
    INSERT INTO agent_state.graph_purges (runtime_agent_id, thread_id, reason, removed, chain_removed)
    SELECT agent, thread, reason, pg_catalog.jsonb_build_object(
        'checkpoints', pg_catalog.jsonb_agg(
            pg_catalog.jsonb_build_object('checkpoint_ns', u.ns, 'checkpoint_id', u.id)
            ORDER BY u.ns, u.id)),
        (
            SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(
                       l.chain_at, l.chain_xact::text, pg_catalog.encode(l.chain_digest, 'hex')) ORDER BY l.chain_at),
                   '[]')
            FROM (
                SELECT w.chain_at, w.chain_xact, w.chain_digest
                FROM agent_state.graph_writes AS w
                JOIN ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS v (ns, id)
                  ON w.checkpoint_ns = v.ns AND w.checkpoint_id = v.id
                WHERE w.runtime_agent_id = agent AND w.thread_id = thread AND w.idx >= 0
                UNION ALL
                SELECT c.chain_at, c.chain_xact, c.chain_digest
                FROM agent_state.graph_checkpoints AS c
                JOIN ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS v (ns, id)
                  ON c.checkpoint_ns = v.ns AND c.checkpoint_id = v.id
                WHERE c.runtime_agent_id = agent AND c.thread_id = thread
            ) AS l)
    FROM ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS u (ns, id);
    DELETE FROM agent_state.graph_writes AS w
    USING ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS u (ns, id)
    WHERE w.runtime_agent_id = agent AND w.thread_id = thread
      AND w.checkpoint_ns = u.ns AND w.checkpoint_id = u.id;
    DELETE FROM agent_state.graph_checkpoints AS c
    USING ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS u (ns, id)
    WHERE c.runtime_agent_id = agent AND c.thread_id = thread
      AND c.checkpoint_ns = u.ns AND c.checkpoint_id = u.id;
    RETURN pg_catalog.cardinality(ids);
END
$$;
