-- Every link of one agent's chains: (place, writing transaction, digest) of each
-- record _chain_tables lists and of each closing update, and of the LangGraph
-- records a purge removed (graph_purges keeps their links, so a purge leaves
-- older heads valid). Rewritable records are left out (_chain_tables).
CREATE FUNCTION agent_state._chain_links(agent uuid)
RETURNS TABLE (at timestamptz, xact xid8, digest bytea)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    q text;
BEGIN
    SELECT pg_catalog.string_agg(
        pg_catalog.format(
            'SELECT r.chain_at, r.chain_xact, r.chain_digest FROM agent_state.%I AS r '
            'WHERE r.runtime_agent_id = $1%s', t.tbl,
            CASE WHEN t.rewritable IS NULL THEN '' ELSE pg_catalog.format(' AND NOT (%s)', t.rewritable) END)
        || CASE WHEN t.closing IS NULL THEN '' ELSE pg_catalog.format(
            ' UNION ALL SELECT r.chain_close_at, r.chain_close_xact, r.chain_close_digest '
            'FROM agent_state.%I AS r WHERE r.runtime_agent_id = $1 AND r.chain_close_at IS NOT NULL', t.tbl) END,
        ' UNION ALL ' ORDER BY t.tbl)
    INTO q
    FROM agent_state._chain_tables() AS t;
    RETURN QUERY EXECUTE q || ' UNION ALL '
        'SELECT (l.v ->> 0)::timestamptz, (l.v ->> 1)::xid8, pg_catalog.decode(l.v ->> 2, ''hex'') '
        'FROM agent_state.graph_purges AS p '
        'CROSS JOIN LATERAL pg_catalog.jsonb_array_elements(p.chain_removed) AS l (v) '
        'WHERE p.runtime_agent_id = $1'
    USING agent;
END
$$;
