-- share, unshare and redact: operator-only verbs, their SQLSTATEs, the audit they
-- leave, and erasure of revision text and of prompt snapshots that used it.
BEGIN;
SELECT plan(50);

CREATE ROLE t130_op IN ROLE agent_state_operator;
CREATE ROLE t130_ra IN ROLE agent_state_runtime;
\ir _setup.sql
CREATE FUNCTION pg_temp.sha(t text) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT encode(sha256(convert_to(t, 'UTF8')), 'hex') $$;
CREATE FUNCTION pg_temp.memory_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.memory_entries)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_revisions)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_evidence)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_shares)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_shares WHERE revoked_at IS NOT NULL)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_redactions)
$$;

SET ROLE t130_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t130-a')),
    ('b', agent_state.create_agent('t130-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't130_ra') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'alice')),
    ('bob', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'bob')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'x')),
    ('dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'DM', 'direct')),
    ('group', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'G', 'group')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'DM', 'direct'));
INSERT INTO pg_temp.ids VALUES
    ('m_dm', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('alice'),
        'my diagnosis is private', ARRAY[pg_temp.id('bob')])),
    ('m_b', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'),
        'B', ARRAY[pg_temp.id('b_actor')]));
INSERT INTO pg_temp.ids
SELECT 'e1', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice has condition X',
                                               pg_temp.id('m_dm'), pg_temp.id('alice')) AS r;
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'Alice has condition X, treated', 1) \g /dev/null
INSERT INTO pg_temp.ids
SELECT 'e_b', r.entry FROM agent_state.note(pg_temp.id('b'), 'B note') AS r;
INSERT INTO pg_temp.ids
SELECT 'e_other', r.entry FROM agent_state.note(pg_temp.id('a'), 'Alice likes tea', pg_temp.id('alice')) AS r;
RESET ROLE;

-- ---------------------------------------------------------------- share / unshare
SET ROLE t130_ra;
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                 '42501', NULL, 'share by a runtime: 42501');
SELECT throws_ok($$SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                 '42501', NULL, 'unshare by a runtime: 42501');
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), 'x')$$,
                 '42501', NULL, 'redact by a runtime: 42501');
RESET ROLE;
CREATE TEMP TABLE before_rows AS SELECT pg_temp.memory_rows() AS n;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t130_op;
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 3, pg_temp.id('group'))$$,
                 'P0002', NULL, 'share an unknown revision: P0002');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), gen_random_uuid(), 1, pg_temp.id('group'))$$,
                 'P0002', NULL, 'share an unknown entry: P0002');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 1, gen_random_uuid())$$,
                 'P0002', NULL, 'share into an unknown conversation: P0002');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 1, pg_temp.id('b_conv'))$$,
                 '23503', NULL, 'share into another perspective''s conversation: 23503');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e_b'), 1, pg_temp.id('group'))$$,
                 '23503', NULL, 'share another perspective''s entry: 23503');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), NULL, pg_temp.id('group'))$$,
                 '22004', NULL, 'share without revision: 22004');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), NULL, 1, pg_temp.id('group'))$$,
                 '22004', NULL, 'share without entry: 22004');
SELECT throws_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 1, NULL)$$,
                 '22004', NULL, 'share without conversation: 22004');
SELECT throws_ok($$SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                 'P0002', NULL, 'unshare a grant that does not exist: P0002');
RESET ROLE;
SELECT is(pg_temp.memory_rows(), (SELECT n FROM before_rows), 'the refused share calls wrote nothing');

SET ROLE t130_op;
SELECT lives_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 1, pg_temp.id('group'))$$,
                'sharing a revision that is not current is allowed');
SELECT lives_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                'share the current revision');
SELECT lives_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                'sharing again is a no-op');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_shares WHERE entry_id = pg_temp.id('e1')),
          2::bigint, 'one grant per revision, however often shared');
SELECT is((SELECT created_by FROM agent_state.memory_shares WHERE entry_id = pg_temp.id('e1') AND revision = 2),
          't130_op'::name, 'the grant records who shared');
SET ROLE t130_op;
SELECT lives_ok($$SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                'unshare the grant');
SELECT throws_ok($$SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                 'P0002', NULL, 'unsharing twice: P0002 (no active grant)');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_shares
           WHERE entry_id = pg_temp.id('e1') AND revision = 2 AND revoked_at IS NOT NULL AND revoked_by = 't130_op'),
          1::bigint, 'unshare stamps revoked_at and revoked_by, and deletes nothing');
SET ROLE t130_op;
SELECT lives_ok($$SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('group'))$$,
                'a revoked grant can be granted again');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_shares WHERE entry_id = pg_temp.id('e1') AND revision = 2),
          2::bigint, 're-granting adds a new grant row next to the revoked one');

-- ---------------------------------------------------------------- redact
-- A run whose prompt snapshot used revision 2 of e1, and another that did not.
SET ROLE t130_ra;
INSERT INTO pg_temp.ids VALUES ('run', agent_state.start_run(pg_temp.id('a')));
INSERT INTO pg_temp.ids VALUES
    ('snap', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'),
        'You know: Alice has condition X, treated',
        memory => pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('entry', pg_temp.id('e1'), 'revision', 2)))),
    ('snap_other', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'You know: Alice likes tea',
        memory => pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('entry', pg_temp.id('e_other'), 'revision', 1))));
RESET ROLE;

CREATE TEMP TABLE before_redact AS SELECT pg_temp.memory_rows() AS n;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t130_op;
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), NULL)$$,
                 '22004', NULL, 'redact without a reason: 22004');
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), '  ')$$,
                 '22023', NULL, 'redact with a blank reason: 22023');
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), gen_random_uuid(), 'x')$$,
                 'P0002', NULL, 'redact an unknown entry: P0002');
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e_b'), 'x')$$,
                 '23503', NULL, 'redact another perspective''s entry: 23503');
RESET ROLE;
SELECT is(pg_temp.memory_rows(), (SELECT n FROM before_redact), 'the refused redact calls wrote nothing');

SET ROLE t130_op;
SELECT lives_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), 'erasure request from Alice')$$,
                'redact the entry');
RESET ROLE;
SELECT is((SELECT pg_catalog.array_agg(DISTINCT body) FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1')),
          ARRAY['[redacted]'], 'every revision body is replaced by the marker');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1')),
          2::bigint, 'the operation log is kept (no revision added or removed)');
SELECT is((SELECT subject_id FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1') AND revision = 1),
          pg_temp.id('alice'), 'subjects are kept');
SELECT is((SELECT source_actor_id FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1') AND revision = 1),
          pg_temp.id('alice'), 'provenance is kept');
SELECT ok(NOT (SELECT live FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('e1')), 'the entry is retired');
SELECT is((SELECT body FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('e1')), '[redacted]',
          'the entry body is the marker');
SELECT is((SELECT reason FROM agent_state.memory_redactions WHERE entry_id = pg_temp.id('e1')),
          'erasure request from Alice', 'the reason is recorded');
SELECT is((SELECT created_by FROM agent_state.memory_redactions WHERE entry_id = pg_temp.id('e1')),
          't130_op'::name, 'who redacted is recorded');
SELECT is((SELECT removed_sha256 FROM agent_state.memory_redactions WHERE entry_id = pg_temp.id('e1')),
          ARRAY[pg_temp.sha('Alice has condition X'), pg_temp.sha('Alice has condition X, treated'),
                pg_temp.sha('You know: Alice has condition X, treated')],
          'the sha256 of each removed text: both revision bodies, then the snapshot prompt');
SELECT is((SELECT prompt FROM agent_state.prompt_snapshots WHERE snapshot_id = pg_temp.id('snap')), '[redacted]',
          'the prompt snapshot that used a revision is replaced by the marker');
SELECT is((SELECT prompt FROM agent_state.prompt_snapshots WHERE snapshot_id = pg_temp.id('snap_other')),
          'You know: Alice likes tea', 'a snapshot that did not use the entry is untouched');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_revisions
           WHERE body LIKE '%condition X%'), 0::bigint, 'the text is nowhere in the memory revisions');

SET ROLE t130_ra;
SELECT results_eq($$SELECT revision, operation, body FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e1'))$$,
                  $$VALUES (1, 'create'::text, '[redacted]'::text), (2, 'amend', '[redacted]')$$,
                  'memory_history shows the operation log with the marker');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('dm'), NULL, 1000)
           WHERE entry = pg_temp.id('e1')), 0::bigint, 'a redacted entry is never recalled');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('dm'), NULL, 1000,
                                                              clock_timestamp() - interval '1 second')
           WHERE entry = pg_temp.id('e1')), 0::bigint, 'nor recalled as of a moment before the redaction');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'again', 2)$$,
                 '55000', NULL, 'amending a redacted entry: 55000');
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e1'))$$,
                 '55000', NULL, 'forgetting a redacted entry: 55000');
RESET ROLE;
SET ROLE t130_op;
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), 'again')$$,
                 '55000', NULL, 'redacting twice: 55000');
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e_other')) \g /dev/null
SELECT lives_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e_other'), 'asked')$$,
                'a forgotten entry can be redacted');
RESET ROLE;
SELECT is((SELECT pg_catalog.array_agg(body ORDER BY revision) FROM agent_state.memory_revisions
           WHERE entry_id = pg_temp.id('e_other')), ARRAY['[redacted]', '[redacted]'],
          'redacting a forgotten entry replaces the forget revision''s copy of the text too');

SELECT lives_ok('SET CONSTRAINTS ALL IMMEDIATE', 'redactions pass the commit-time checks');

SELECT * FROM finish();
ROLLBACK;
