-- The digest of a record's one closing update (a share's removal, a run's
-- outcome): the record's own digest, the closing columns and the closing's
-- place (chain_close_at, chain_close_xact). Same rules as _chain_digest.
CREATE FUNCTION agent_state._chain_close_digest(tbl name, r jsonb)
RETURNS bytea
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.sha256(pg_catalog.convert_to(
        tbl OPERATOR(pg_catalog.||) E' closed\n' OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
            'of', r OPERATOR(pg_catalog.->) 'chain_digest',
            'at', r OPERATOR(pg_catalog.->) 'chain_close_at',
            'xact', r OPERATOR(pg_catalog.->) 'chain_close_xact',
            'values', (SELECT pg_catalog.jsonb_object_agg(c, r OPERATOR(pg_catalog.->) c)
                       FROM pg_catalog.unnest(t.closing) AS c))::text,
        'UTF8'))
    FROM agent_state._chain_tables() AS t
    WHERE t.tbl OPERATOR(pg_catalog.=) _chain_close_digest.tbl
$$;
