-- A record's digest: sha256 over its table and its row as jsonb (agent, ids,
-- place, content, metadata, chain_at and chain_xact), less the chain's own
-- columns and the columns _chain_tables excludes for the table (excluded); the
-- erasable text column counts by its sha256 (erased_sha256 names it once the text
-- is gone). The row must come from to_jsonb under TimeZone UTC (the callers pin
-- it), so a timestamp reads the same in every session.
--
-- Inlined into its callers (one SELECT, no SET clause: tests/lint/pgspot_check.py),
-- which pass the table's columns from _chain_tables: a stamp costs a hash, not a
-- function call. Not granted to any role.
CREATE FUNCTION agent_state._chain_digest(
    tbl name, r jsonb, excluded text [], erasable text, erased_sha256 text DEFAULT NULL
)
RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.sha256(pg_catalog.convert_to(
        tbl OPERATOR(pg_catalog.||) E'\n' OPERATOR(pg_catalog.||) (
            (r OPERATOR(pg_catalog.-) ARRAY['chain_digest', 'chain_close_at', 'chain_close_xact', 'chain_close_digest']
               OPERATOR(pg_catalog.-) coalesce(excluded, '{}'::text []))
            OPERATOR(pg_catalog.||) CASE
                WHEN erasable IS NULL THEN '{}'::jsonb
                ELSE pg_catalog.jsonb_build_object(erasable, coalesce(erased_sha256, pg_catalog.encode(
                    pg_catalog.sha256(pg_catalog.convert_to(r OPERATOR(pg_catalog.->>) erasable, 'UTF8')), 'hex')))
            END)::text,
        'UTF8'))
$$;
