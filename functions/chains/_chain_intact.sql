-- The common case of _chain_checked as an expression a read's own statement can
-- hold: true when a record of a table whose digest covers every column (no
-- excluded or erasable column in _chain_tables, no closing update: the
-- LangGraph checkpoints, writes and item values) gives the digest stored with it. It is
-- _chain_digest with excluded '{}' and erasable NULL (which leave the record's
-- JSON as it is); 260_graph.sql checks that the two agree and that
-- _chain_tables lists those tables so. A caller tests
--     _chain_intact(tbl, to_jsonb(row), row.chain_digest) OR _chain_checked(tbl, row)
-- under TimeZone UTC: a genuine record costs one hash inside the statement, not
-- a PL/pgSQL call (about 45 us for a 2 kB checkpoint, against 28), and anything
-- else still goes to _chain_checked, which reports it (XX001).
--
-- Inlinable (LANGUAGE sql, STABLE like convert_to, no SET clause, each argument
-- used once: tests/lint/pgspot_check.py); granted to no one.
CREATE FUNCTION agent_state._chain_intact(tbl name, r jsonb, stored bytea)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT stored OPERATOR(pg_catalog.=) pg_catalog.sha256(pg_catalog.convert_to(
        tbl OPERATOR(pg_catalog.||) E'\n' OPERATOR(pg_catalog.||)
        (r OPERATOR(pg_catalog.-) ARRAY['chain_digest', 'chain_close_at', 'chain_close_xact', 'chain_close_digest'])::text,
        'UTF8'))
$$;
