-- The digest of a record's one closing update (a share's removal, a run's
-- outcome): the record's own digest, the closing columns (closing, from
-- _chain_tables) and the closing's place (chain_close_at, chain_close_xact). Same
-- rules as _chain_digest; not granted to any role.
CREATE FUNCTION agent_state._chain_close_digest(tbl name, r jsonb, closing text [])
RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.sha256(pg_catalog.convert_to(
        tbl OPERATOR(pg_catalog.||) E' closed\n' OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
            'of', r OPERATOR(pg_catalog.->) 'chain_digest',
            'at', r OPERATOR(pg_catalog.->) 'chain_close_at',
            'xact', r OPERATOR(pg_catalog.->) 'chain_close_xact',
            'values', (SELECT pg_catalog.jsonb_object_agg(c, r OPERATOR(pg_catalog.->) c)
                       FROM pg_catalog.unnest(closing) AS c))::text,
        'UTF8'))
$$;
