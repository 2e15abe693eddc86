-- Lifecycle: what lets pg_dump carry the data and a restore load it unchanged,
-- and that nothing of it opens a door. A restore session (row_security off, empty
-- search_path) keeps the stamps it loads and skips the commit-time checks, but only
-- a role that bypasses row-level security can write in one; the extension's own
-- functions never run as one; append-only holds for every role. Hosting grants name
-- their role by regrole and grant nothing once the OID names another role.
-- pgTAP needs a search_path, so what happens in a restore session is recorded in
-- pg_temp.seen (pg_temp.sqlstate_of runs a statement and returns its SQLSTATE) and
-- asserted afterwards.
BEGIN;
SELECT plan(37);

CREATE ROLE t500_op IN ROLE agent_state_operator;
CREATE ROLE t500_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t500_gone LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql
CREATE TEMP TABLE seen (k text PRIMARY KEY, v text);
CREATE FUNCTION pg_temp.sqlstate_of(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END
$$;
GRANT ALL ON pg_temp.seen TO PUBLIC;

SET ROLE t500_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t500-a'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't500_ra') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U500')),
    ('conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C500', 'direct'));
INSERT INTO pg_temp.ids VALUES
    ('m1', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('ann'), 'hi',
                                      ARRAY[pg_temp.id('ann')]));
INSERT INTO pg_temp.ids VALUES ('run', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv')));
RESET ROLE;

-- ---------------------------------------------------------------- pg_dump carries the data
SELECT is_empty($$
    SELECT c.oid::regclass::text FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p', 'S')
      AND c.oid <> ALL ((SELECT e.extconfig FROM pg_catalog.pg_extension AS e
                         WHERE e.extname = 'agent_state')::oid [])
$$, 'every table and sequence is registered with pg_extension_config_dump');
SELECT is_empty($$
    SELECT pg_catalog.unnest(e.extcondition) FROM pg_catalog.pg_extension AS e
    WHERE e.extname = 'agent_state'
    EXCEPT SELECT ''
$$, 'pg_dump writes every row (no filter condition)');

-- ---------------------------------------------------------------- what a restore session is
SELECT is(agent_state._restoring(), false, 'a normal session is not a restore');
SET LOCAL row_security = off;
INSERT INTO pg_temp.seen VALUES ('row_security off', agent_state._restoring()::text);
SELECT pg_catalog.set_config('search_path', '', true) \g /dev/null
INSERT INTO pg_temp.seen VALUES ('restore', agent_state._restoring()::text);
-- A restore keeps the stamps and ids it loads (here as the superuser, as pg_restore).
INSERT INTO agent_state.agents (runtime_agent_id, handle, created_at, created_by)
VALUES ('00000000-0000-4000-8000-000000000500', 't500-restored', '2001-02-03 04:05:06+00', 'someone');
INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier, created_at, created_by)
VALUES (pg_temp.id('a'), pg_temp.id('run'), 7, '{"restored": true}', '2001-02-03+00', 'someone');
-- The functions never run as a restore: their search_path is pinned.
INSERT INTO pg_temp.ids VALUES ('s1', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'P'));
-- Append-only holds in a restore session too, for the superuser.
INSERT INTO pg_temp.seen VALUES
    ('update', pg_temp.sqlstate_of($$UPDATE agent_state.checkpoints SET frontier = '{}'
                                   WHERE run_id = pg_temp.id('run')$$)),
    ('delete', pg_temp.sqlstate_of($$DELETE FROM agent_state.checkpoints WHERE run_id = pg_temp.id('run')$$)),
    ('truncate', pg_temp.sqlstate_of($$TRUNCATE agent_state.checkpoints$$));
SET LOCAL row_security = on;
SET LOCAL search_path = public, pg_catalog;

SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'row_security off'), 'false',
          'row_security off alone is not a restore');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'restore'), 'true',
          'row_security off and an empty search_path (pg_dump''s preamble) is');
SELECT is((SELECT a.created_at::text || ' ' || a.created_by::text FROM agent_state.agents AS a
           WHERE a.handle = 't500-restored'),
          '2001-02-03 04:05:06+00 someone', 'a restored row keeps created_at and created_by');
SELECT is((SELECT c.checkpoint FROM agent_state.checkpoints AS c
           WHERE c.run_id = pg_temp.id('run') AND c.frontier = '{"restored": true}'),
          7, 'a restored checkpoint keeps its number (the numbering trigger is skipped)');
SELECT bag_eq($$SELECT v.check_name FROM agent_state.verify() AS v$$,
              $$VALUES ('checkpoint_numbering'), ('chain_inserted')$$,
              'verify() reports what a restore let through (a checkpoint out of line, with no chain stamp)');
SELECT is((SELECT s.prompt_sha256 FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = pg_temp.id('s1')),
          pg_catalog.encode(pg_catalog.sha256('P'::bytea), 'hex'),
          'a function called in a restore session still runs its triggers (the hash is derived)');
SELECT is((SELECT s.created_by::text FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = pg_temp.id('s1')),
          current_user::text, 'and its rows are stamped with the caller');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'update'), '42501', 'append-only refuses UPDATE in a restore session');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'delete'), '42501', 'append-only refuses DELETE in a restore session');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'truncate'), '42501',
          'append-only refuses TRUNCATE in a restore session');

-- A role that does not bypass row-level security cannot write in a restore session:
-- every table forces RLS, and with row_security off PostgreSQL refuses the statement.
GRANT INSERT, SELECT ON agent_state.agents, agent_state.checkpoints, agent_state.memory_entries
    TO t500_ra, t500_op;
SET ROLE t500_ra;
SET LOCAL row_security = off;
SELECT pg_catalog.set_config('search_path', '', true) \g /dev/null
INSERT INTO pg_temp.seen VALUES
    ('runtime checkpoint', pg_temp.sqlstate_of($$INSERT INTO agent_state.checkpoints (runtime_agent_id,
        run_id, checkpoint, frontier, created_by)
        VALUES (pg_temp.id('a'), pg_temp.id('run'), 9, '{}', 'forged')$$)),
    ('runtime entry', pg_temp.sqlstate_of($$INSERT INTO agent_state.memory_entries (runtime_agent_id,
        current_revision, body, visibility, source_type, revised_at)
        VALUES (pg_temp.id('a'), 1, 'x', 'perspective', 'agent', pg_catalog.now())$$));
RESET ROLE;
SET ROLE t500_op;
INSERT INTO pg_temp.seen VALUES
    ('operator agent', pg_temp.sqlstate_of($$INSERT INTO agent_state.agents (handle, created_by)
        VALUES ('t500-forged', 'someone')$$));
RESET ROLE;
SET LOCAL row_security = on;
-- In a normal session, direct DML is checked as before.
SET ROLE t500_ra;
INSERT INTO pg_temp.seen VALUES
    ('runtime entry checked', pg_temp.sqlstate_of($$INSERT INTO agent_state.memory_entries (runtime_agent_id,
        current_revision, body, visibility, source_type, revised_at)
        VALUES (pg_temp.id('a'), 1, 'x', 'perspective', 'agent', pg_catalog.now());
        SET CONSTRAINTS ALL IMMEDIATE$$));
RESET ROLE;
SET LOCAL search_path = public, pg_catalog;
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'runtime checkpoint'), '42501',
          'a runtime cannot write in a restore session (no forged stamps)');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'runtime entry'), '42501',
          'a runtime cannot skip the memory checks that way');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'operator agent'), '42501', 'nor can an operator');
SELECT is((SELECT v FROM pg_temp.seen WHERE k = 'runtime entry checked'), '23503',
          'an entry written without its revision is refused at commit');
SELECT is(agent_state._restoring(), false, 'back to a normal session');

-- ---------------------------------------------------------------- verify()
SET ROLE t500_ra;
SELECT throws_ok($$SELECT * FROM agent_state.verify()$$, '42501', NULL, 'verify() is not for runtimes');
RESET ROLE;
SET ROLE t500_op;
SELECT lives_ok($$SELECT * FROM agent_state.verify()$$, 'verify() is for operators');
RESET ROLE;
-- Remove what the restore session let through; verify() is clean again.
ALTER TABLE agent_state.checkpoints DISABLE TRIGGER checkpoints_append_only;
DELETE FROM agent_state.checkpoints WHERE run_id = pg_temp.id('run') AND checkpoint = 7;
ALTER TABLE agent_state.checkpoints ENABLE TRIGGER checkpoints_append_only;
SELECT is_empty($$SELECT * FROM agent_state.verify()$$, 'verify() finds nothing in a consistent database');

-- ---------------------------------------------------------------- hosting by role identity
SELECT col_type_is('agent_state', 'agent_hosts', 'host', 'regrole',
                   'agent_hosts.host is a regrole (dumped and restored by name)');
SET ROLE t500_ra;
SELECT lives_ok($$SELECT * FROM agent_state.active_persona(pg_temp.id('a'))$$, 'the host acts for its agent');
RESET ROLE;
-- A row whose OID names a role of another name: what a dropped role's row becomes
-- once a new role gets its OID.
UPDATE agent_state.agent_hosts SET host_name = 't500_someone_else', created_by = 'nobody',
    created_at = '2000-01-01'
WHERE runtime_agent_id = pg_temp.id('a') AND host = 't500_ra'::regrole;
SET ROLE t500_ra;
SELECT throws_ok($$SELECT * FROM agent_state.active_persona(pg_temp.id('a'))$$, '42501', NULL,
                 'a hosting row whose OID now names another role grants nothing (_bind)');
SELECT is_empty($$SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = pg_temp.id('a')$$,
                'nor row-level security (_hosted_agents)');
RESET ROLE;
SELECT bag_eq($$SELECT v.check_name FROM agent_state.verify() AS v$$, $$VALUES ('hosting')$$,
              'verify() reports the row that grants nothing');
SET ROLE t500_op;
SELECT lives_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 't500_ra')$$,
                'granting the role again takes the row over');
RESET ROLE;
SELECT is((SELECT h.created_by::text || ' ' || (h.created_at > '2000-01-02')::text
           FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id = pg_temp.id('a') AND h.host = 't500_ra'::regrole),
          't500_op true', '... stamped with who granted it to the new role, and when');
SET ROLE t500_ra;
SELECT lives_ok($$SELECT * FROM agent_state.active_persona(pg_temp.id('a'))$$, 'and the host acts again');
RESET ROLE;

-- A dropped role: the row stays, names an OID no role has, and grants nothing.
SET ROLE t500_op;
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't500_gone') \g /dev/null
RESET ROLE;
DROP ROLE t500_gone;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id = pg_temp.id('a') AND h.host_name = 't500_gone'),
          1::bigint, 'DROP ROLE leaves the hosting row behind');
SELECT bag_eq($$SELECT v.check_name FROM agent_state.verify() AS v$$, $$VALUES ('hosting')$$,
              'verify() reports it');
SELECT is((SELECT coalesce(agent_state._holds_hosting(r.rolname, h.host, h.host_name), false)
           FROM agent_state.agent_hosts AS h, pg_catalog.pg_roles AS r
           WHERE h.host_name = 't500_gone' AND r.rolname IN ('t500_ra', 't500_op', current_user)
           GROUP BY 1), false,
          'it grants nothing to anyone (no role has its OID)');
SELECT throws_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 't500_gone')$$, '42704', NULL,
                 'a role that does not exist cannot be granted');

-- ---------------------------------------------------------------- a restored redaction
-- A redaction row restored from another cluster keeps that cluster's transaction id,
-- which a transaction here may reach (here: this one); it authorises no rewrite.
SET ROLE t500_op;
INSERT INTO pg_temp.ids SELECT 'e1', n.entry FROM agent_state.note(pg_temp.id('a'), 'Ann likes tea') AS n;
RESET ROLE;
SET CONSTRAINTS ALL IMMEDIATE;
SET LOCAL row_security = off;
SELECT pg_catalog.set_config('search_path', '', true) \g /dev/null
INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256,
                                           redaction_xact, created_at, created_by)
VALUES (pg_temp.id('a'), pg_temp.id('e1'), 'restored', '{}', pg_catalog.pg_current_xact_id(),
        '2001-02-03+00', 'someone');
SET LOCAL row_security = on;
SET LOCAL search_path = public, pg_catalog;
SELECT is((SELECT d.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
           FROM agent_state.memory_redactions AS d WHERE d.entry_id = pg_temp.id('e1')),
          true, 'the restored row carries this transaction''s id');
SELECT is(agent_state._redaction_allowed(pg_temp.id('a'), pg_temp.id('e1')), false,
          'a restored redaction row authorises no rewrite');
SELECT throws_ok($$UPDATE agent_state.memory_revisions SET body = '[redacted]'
                   WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'so revisions stay append-only');
SET CONSTRAINTS ALL DEFERRED;
SELECT is(agent_state._restoring(), false, 'the session is normal at the end');

SELECT * FROM finish();
ROLLBACK;
