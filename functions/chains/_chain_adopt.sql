-- Stamps every record of the chains that has no stamp yet (chain_digest NULL),
-- as this transaction: chain_at is when the record was written (created_at; now
-- for the few tables without one), a closing update's when it closed (its first
-- closing column). A redacted memory revision counts by the first sha256 its
-- redaction removed (_chain_fault accepts any of them). Returns the records
-- stamped.
--
-- For the owner only (not granted): the 0.2.0 -> 0.3.0 upgrade adopts the
-- history it finds, and bulk loads that write rows in restore mode (benchmarks,
-- tests) adopt theirs. The caller switches the append-only triggers off first
-- (ALTER TABLE ... DISABLE TRIGGER USER, or session_replication_role =
-- replica). A record an attacker inserts is adopted only by someone who can
-- switch triggers off anyway; a held head (verify(agent, expected_head)) still
-- finds it.
CREATE FUNCTION agent_state._chain_adopt()
RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
DECLARE
    t record;
    n bigint;
    total bigint := 0;
BEGIN
    FOR t IN SELECT c.tbl, c.excluded, c.erasable, c.closing FROM agent_state._chain_tables() AS c ORDER BY c.tbl LOOP
        EXECUTE pg_catalog.format(
            'UPDATE agent_state.%I AS u SET chain_at = %s, chain_xact = pg_catalog.pg_current_xact_id() '
            'WHERE u.chain_digest IS NULL',
            t.tbl,
            CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                              WHERE a.attrelid = pg_catalog.format('agent_state.%I', t.tbl)::regclass
                                AND a.attname = 'created_at' AND NOT a.attisdropped)
                 THEN 'u.created_at' ELSE 'pg_catalog.clock_timestamp()' END);
        GET DIAGNOSTICS n = ROW_COUNT;
        total := total + n;
        EXECUTE pg_catalog.format(
            'UPDATE agent_state.%1$I AS u '
            'SET chain_digest = agent_state._chain_digest(%1$L, pg_catalog.to_jsonb(u), %3$L, %4$L, %2$s) '
            'WHERE u.chain_digest IS NULL',
            t.tbl,
            CASE WHEN t.erasable IS NULL THEN 'NULL'
                 ELSE '(SELECT d.removed_sha256[1] FROM agent_state.memory_redactions AS d '
                      'WHERE d.runtime_agent_id = u.runtime_agent_id AND d.entry_id = u.entry_id)' END,
            t.excluded, t.erasable);
        CONTINUE WHEN t.closing IS NULL;
        EXECUTE pg_catalog.format(
            'UPDATE agent_state.%1$I AS u SET chain_close_at = u.%2$I, '
            'chain_close_xact = pg_catalog.pg_current_xact_id() '
            'WHERE u.%2$I IS NOT NULL AND u.chain_close_digest IS NULL',
            t.tbl, t.closing[1]);
        EXECUTE pg_catalog.format(
            'UPDATE agent_state.%1$I AS u SET chain_close_digest = '
            'agent_state._chain_close_digest(%1$L, pg_catalog.to_jsonb(u), %3$L) '
            'WHERE u.%2$I IS NOT NULL AND u.chain_close_digest IS NULL',
            t.tbl, t.closing[1], t.closing);
    END LOOP;
    RETURN total;
END
$$;
