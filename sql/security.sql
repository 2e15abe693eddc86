-- Row-level security on every table of the schema, written once.
--
-- agent_scope: a role sees and writes only rows of agents it may act for right
--   now. The caller's agent set is computed once per statement (InitPlan).
-- stamp_created: tables with created_at/created_by get them from the database
--   (a restore keeps the stamps it loads: see _restoring), and so does a copy
--   made by the extension's own code (fork_agent, import_agent): the rule is in
--   _copying.
-- operator_truncate: TRUNCATE ignores RLS, so only operators may truncate.
-- no_truncate: a table whose rows refuse DELETE (a BEFORE ROW DELETE trigger:
--   append-only history) refuses TRUNCATE, the bulk delete, for every role.
-- 0_scope_guard: a BEFORE INSERT trigger that runs as the owner (SECURITY DEFINER)
--   reads other rows before row-level security checks the new row; so that a role
--   granted table privileges learns nothing about an agent it may not act for
--   (not even through which error it gets), every agent-owned table with such a
--   trigger gets _tg_guard_scope first (trigger names sort; the stamp trigger reads
--   nothing). Operators may act for every agent: the WHEN clause skips them, and
--   the owner, without a call.
-- owner_bypass: the installing role owns the SECURITY DEFINER functions; its
--   policy is constant true, which the planner folds away, so queries inside
--   the functions plan like bare SQL (a non-leakproof @@ under an RLS qual can
--   never be an index condition).
-- config_dump: under CREATE EXTENSION (and ALTER EXTENSION UPDATE), every table
--   is registered with pg_extension_config_dump, so pg_dump writes its rows;
--   without that a dump holds only CREATE EXTENSION and no data; so would be any
--   sequence (there are none: numbers are per agent). (A plain-SQL install is
--   dumped like any other schema.)
DO $rls$
DECLARE
    t record;
BEGIN
    FOR t IN
        SELECT c.oid::regclass AS tbl, c.relname::text AS name,
               EXISTS (
                   SELECT FROM pg_catalog.pg_attribute AS a
                   WHERE a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped
               ) AS agent_owned,
               (
                   SELECT pg_catalog.count(*) = 2 FROM pg_catalog.pg_attribute AS a
                   WHERE a.attrelid = c.oid AND a.attname IN ('created_at', 'created_by')
                     AND NOT a.attisdropped
               ) AS stamped
        FROM pg_catalog.pg_class AS c
        WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
        ORDER BY c.relname
    LOOP
        EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t.tbl);
        EXECUTE pg_catalog.format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t.tbl);
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', t.tbl);
        IF t.stamped AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = 'stamp_created'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER stamp_created BEFORE INSERT ON %s '
                || 'FOR EACH ROW WHEN (NOT agent_state._restoring() '
                || 'AND (new.created_at >= pg_catalog.statement_timestamp() '
                || 'OR NOT agent_state._copying())) '
                || 'EXECUTE FUNCTION agent_state._tg_stamp_created()',
                t.tbl);
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = 'operator_truncate'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER operator_truncate BEFORE TRUNCATE ON %s '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION agent_state._tg_operator_truncate_only()',
                t.tbl);
        END IF;
        -- tgtype bits: 1 = row, 2 = before, 8 = delete.
        IF EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND NOT g.tgisinternal AND g.tgtype & 11 = 11
        ) AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = 'no_truncate'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER no_truncate BEFORE TRUNCATE ON %s '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION agent_state._tg_refuse_change()',
                t.tbl);
        END IF;
        -- tgtype bits: 1 = row, 2 = before, 4 = insert.
        IF t.agent_owned AND EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            JOIN pg_catalog.pg_proc AS f ON f.oid = g.tgfoid
            WHERE g.tgrelid = t.tbl AND NOT g.tgisinternal AND g.tgtype & 7 = 7
              AND f.prosecdef AND g.tgname <> 'stamp_created'
        ) AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = t.name || '_0_scope_guard'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER %I BEFORE INSERT ON %s FOR EACH ROW '
                || 'WHEN (NOT agent_state._restoring() '
                || 'AND NOT pg_catalog.pg_has_role(current_user, ''agent_state_operator'', ''USAGE'')) '
                || 'EXECUTE FUNCTION agent_state._tg_guard_scope()',
                t.name || '_0_scope_guard', t.tbl);
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_catalog.pg_policy AS p
            WHERE p.polrelid = t.tbl AND p.polname = 'owner_bypass'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE POLICY owner_bypass ON %s TO %I USING (true) WITH CHECK (true)',
                t.tbl, current_user);
        END IF;
        IF t.agent_owned AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_policy AS p
            WHERE p.polrelid = t.tbl AND p.polname = 'agent_scope'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE POLICY agent_scope ON %s USING ('
                || '(SELECT agent_state._caller_is_operator()) '
                || 'OR runtime_agent_id = ANY ((SELECT agent_state._hosted_agents())::uuid []))',
                t.tbl);
        END IF;
    END LOOP;
    -- config_dump (the header above): every table (and sequence, should one be added).
    IF EXISTS (SELECT FROM pg_catalog.pg_extension AS e WHERE e.extname = 'agent_state') THEN
        FOR t IN
            SELECT c.oid::regclass AS tbl
            FROM pg_catalog.pg_class AS c
            WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p', 'S')
              AND NOT EXISTS (
                  SELECT FROM pg_catalog.pg_extension AS e
                  WHERE e.extname = 'agent_state' AND c.oid = ANY (e.extconfig))
            ORDER BY c.relname
        LOOP
            PERFORM pg_catalog.pg_extension_config_dump(t.tbl, '');
        END LOOP;
    END IF;
END
$rls$;
