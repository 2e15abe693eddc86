-- SPEC section 14: the agent's current head, for a runtime or an operator to
-- keep outside the database. The digest is a token verify(agent, expected_head)
-- reads back: "ash1/<time, microseconds since 1970>/<records>/<snapshot>/<own
-- xact or 0>/<sha256>". The snapshot (pg_current_snapshot, in one statement
-- with the hash) and the time fix which records the head covers for good
-- (_chain_head_of), so a head taken earlier is a prefix of every later
-- history, whatever commits afterwards and in whatever order.
CREATE FUNCTION agent_state.chain_head(agent uuid)
RETURNS TABLE ("position" bigint, digest text, recorded_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT h.records,
           pg_catalog.format('ash1/%s/%s/%s/%s/%s', agent_state._chain_micros(s.at), h.records, s.snap,
                             coalesce(s.own::text, '0'), pg_catalog.encode(h.digest, 'hex')),
           s.at
    FROM (
        -- _bind first (42501, 22004): the head is computed only for a caller
        -- who may act for the agent.
        SELECT agent_state._bind(agent) AS caller, pg_catalog.pg_current_snapshot() AS snap,
               pg_catalog.pg_current_xact_id_if_assigned() AS own,
               pg_catalog.date_trunc('microseconds', pg_catalog.clock_timestamp()) AS at
    ) AS s
    CROSS JOIN LATERAL agent_state._chain_head_of(agent, s.at, s.snap, s.own) AS h
    WHERE s.caller IS NOT NULL
$$;

COMMENT ON FUNCTION agent_state.chain_head(uuid) IS
'chain_head(agent) -> table(position, digest, recorded_at): the agent''s current head of its hash '
'chains (position: the records it covers; recorded_at: the moment it covers), to keep outside '
'the database and give back to verify(agent, expected_head). Leaves out the caller''s own '
'uncommitted writes.';
