-- One agent's head over the links (_chain_links) a snapshot saw: those stamped
-- at or before at_most, written by a transaction the snapshot sees and not by
-- own (the transaction that asked, whose records may yet roll back). The
-- digest is sha256 over the agent and the links in their order (time, then
-- transaction, then digest), so it changes with any record changed, added,
-- removed or moved. The same two conditions at issue and at verify give the
-- same records: later transactions are not in the snapshot, and records
-- written after a restore into another cluster (whose transaction ids start
-- again) are stamped after at_most.
CREATE FUNCTION agent_state._chain_head_of(agent uuid, at_most timestamptz, snap pg_snapshot, own xid8)
RETURNS TABLE (records bigint, digest bytea)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.count(*),
           pg_catalog.sha256(pg_catalog.convert_to(
               agent::text OPERATOR(pg_catalog.||) ';' OPERATOR(pg_catalog.||) coalesce(pg_catalog.string_agg(
                   pg_catalog.encode(l.digest, 'hex'), ',' ORDER BY l.at, l.xact, l.digest), ''),
               'UTF8'))
    FROM agent_state._chain_links(agent) AS l
    WHERE l.at OPERATOR(pg_catalog.<=) at_most AND l.xact IS NOT NULL AND l.digest IS NOT NULL
      AND pg_catalog.pg_visible_in_snapshot(l.xact, snap)
      AND l.xact IS DISTINCT FROM own
$$;
