-- Removes the payloads of some checkpoints of one thread (their writes too), after
-- writing the purge record that authorises it (_tg_guard_graph_payload): who, when,
-- why and which checkpoints. Returns how many checkpoints were removed; writes no
-- record when there are none.
CREATE FUNCTION agent_state._graph_purge(agent uuid, thread text, nss text [], ids text [], reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(pg_catalog.cardinality(ids), 0) = 0 THEN
        RETURN 0;
    END IF;
    -- The record's chain_removed (the links of what goes) comes from its
    -- trigger (_tg_graph_purge_links), before the rows go.
    INSERT INTO agent_state.graph_purges (runtime_agent_id, thread_id, reason, removed)
    SELECT agent, thread, reason, pg_catalog.jsonb_build_object(
        'checkpoints', pg_catalog.jsonb_agg(
            pg_catalog.jsonb_build_object('checkpoint_ns', u.ns, 'checkpoint_id', u.id)
            ORDER BY u.ns, u.id))
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
