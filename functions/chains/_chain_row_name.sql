-- A record's name in findings and errors: its primary key columns and values,
-- e.g. "(runtime_agent_id, entry_id, revision)=(..., ..., 2)"; without one, its
-- chain position.
CREATE FUNCTION agent_state._chain_row_name(tbl name, r jsonb)
RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.count(*) = 0
        THEN 'at chain_at ' OPERATOR(pg_catalog.||) coalesce(r OPERATOR(pg_catalog.->>) 'chain_at', 'null')
        ELSE pg_catalog.format('(%s)=(%s)',
                             pg_catalog.string_agg(a.attname::text, ', ' ORDER BY k.ord),
                             pg_catalog.string_agg(coalesce(r OPERATOR(pg_catalog.->>) a.attname::text, 'null'),
                                                   ', ' ORDER BY k.ord))
    END
    FROM pg_catalog.pg_index AS i
    CROSS JOIN LATERAL pg_catalog.unnest(i.indkey) WITH ORDINALITY AS k (attnum, ord)
    JOIN pg_catalog.pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = pg_catalog.format('agent_state.%I', tbl)::pg_catalog.regclass AND i.indisprimary
$$;
