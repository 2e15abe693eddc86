-- Tamper evidence (SPEC section 14): the columns of the hash chains, on every
-- table _chain_tables lists. An idempotent pass (the install script and the
-- development upgrade script include it); the triggers are in sql/triggers.sql,
-- the design in docs/security.md.
--
-- chain_at     when the record was stamped (clock_timestamp): with chain_xact,
--              its place. Not a number: nothing global is counted, so no role
--              learns another agent's activity from it.
-- chain_xact   the transaction that wrote it: a head names the snapshot it saw
--              and its own time, so it covers exactly the records committed
--              then (the time settles records written after a restore into
--              another cluster, whose transaction ids start again)
-- chain_digest _chain_digest of the row
-- chain_close_* the same for a record's closing update (_chain_tables.closing)
--
-- graph_purges.chain_removed is below.
DO $chain_columns$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT c.tbl, c.closing FROM agent_state._chain_tables() AS c ORDER BY c.tbl LOOP
        EXECUTE pg_catalog.format(
            'ALTER TABLE agent_state.%I ADD COLUMN IF NOT EXISTS chain_at timestamptz, '
            'ADD COLUMN IF NOT EXISTS chain_xact xid8, ADD COLUMN IF NOT EXISTS chain_digest bytea',
            t.tbl);
        IF t.closing IS NOT NULL THEN
            EXECUTE pg_catalog.format(
                'ALTER TABLE agent_state.%I ADD COLUMN IF NOT EXISTS chain_close_at timestamptz, '
                'ADD COLUMN IF NOT EXISTS chain_close_xact xid8, ADD COLUMN IF NOT EXISTS chain_close_digest bytea',
                t.tbl);
        END IF;
    END LOOP;
END
$chain_columns$;

-- What a LangGraph purge removed, as chain links ([chain_at, chain_xact, digest]
-- of each record), written by _graph_purge: heads taken before the purge still
-- count them (_chain_links). NULL for purges made before 0.3.0.
ALTER TABLE agent_state.graph_purges ADD COLUMN IF NOT EXISTS chain_removed jsonb;
