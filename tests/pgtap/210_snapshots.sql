-- Prompt snapshots: snapshot_prompt, snapshot_sources, the source foreign keys
-- across perspectives, immutability for every role, and the redaction rewrite.
BEGIN;
SELECT plan(95);

CREATE ROLE t210_op IN ROLE agent_state_operator;
CREATE ROLE t210_ra IN ROLE agent_state_runtime;
CREATE ROLE t210_rb IN ROLE agent_state_runtime;
CREATE ROLE t210_dba SUPERUSER;
\ir _setup.sql
CREATE FUNCTION pg_temp.snapshot_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.prompt_snapshots)
         + (SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory)
         + (SELECT pg_catalog.count(*) FROM agent_state.snapshot_messages)
$$;
CREATE FUNCTION pg_temp.mem(VARIADIC pairs text []) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'entry', pg_temp.id(pairs[i]), 'revision', pairs[i + 1]::integer) ORDER BY i)
    FROM pg_catalog.generate_series(1, pg_catalog.array_length(pairs, 1), 2) AS i
$$;
CREATE FUNCTION pg_temp.sha(t text) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(t, 'UTF8')), 'hex') $$;

SET ROLE t210_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t210-a')),
    ('b', agent_state.create_agent('t210-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't210_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't210_rb'),
       agent_state.revise_persona(pg_temp.id('a'), 'A persona 1'),
       agent_state.revise_persona(pg_temp.id('b'), 'B persona 1') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'A persona 2') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C1'));
INSERT INTO pg_temp.ids VALUES
    ('m1', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('ann'), 'one',
                                      ARRAY[pg_temp.id('ann')])),
    ('m2', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('ann'), 'two',
                                      ARRAY[pg_temp.id('ann')])),
    ('b_msg', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'), 'b',
                                         ARRAY[pg_temp.id('b_actor')])),
    ('e1', (SELECT n.entry FROM agent_state.note(pg_temp.id('a'), 'Ann likes tea') AS n)),
    ('e2', (SELECT n.entry FROM agent_state.note(pg_temp.id('a'), 'Ann lives in Oslo') AS n)),
    ('eb', (SELECT n.entry FROM agent_state.note(pg_temp.id('b'), 'B knows a secret') AS n));
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'Ann likes green tea', 1) \g /dev/null
RESET ROLE;

SET ROLE t210_ra;
INSERT INTO pg_temp.ids VALUES
    ('run', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'))),
    ('run_done', agent_state.start_run(pg_temp.id('a'))),
    ('run_exh', agent_state.start_run(pg_temp.id('a'), budget => '{"tool_calls": 1}'));
SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('run_done'), 'succeeded') \g /dev/null
RESET ROLE;
SET ROLE t210_rb;
INSERT INTO pg_temp.ids VALUES ('b_run', agent_state.start_run(pg_temp.id('b')));
INSERT INTO pg_temp.ids VALUES ('b_snap', agent_state.snapshot_prompt(pg_temp.id('b'), pg_temp.id('b_run'), 'B prompt'));
RESET ROLE;
UPDATE agent_state.runs SET spent_tool_calls = 1 WHERE run_id = pg_temp.id('run_exh');

-- ---------------------------------------------------------------- catalog
SELECT has_table('agent_state', t, 'table agent_state.' || t || ' exists')
FROM pg_catalog.unnest(ARRAY['prompt_snapshots', 'snapshot_memory', 'snapshot_messages']) AS t;
SELECT fk_ok('agent_state', 'prompt_snapshots', ARRAY['runtime_agent_id', 'run_id'],
             'agent_state', 'runs', ARRAY['runtime_agent_id', 'run_id'], 'snapshot -> run is composite');
SELECT fk_ok('agent_state', 'prompt_snapshots', ARRAY['runtime_agent_id', 'persona_revision'],
             'agent_state', 'persona_revisions', ARRAY['runtime_agent_id', 'revision'],
             'snapshot -> persona revision is composite');
SELECT fk_ok('agent_state', 'snapshot_memory', ARRAY['runtime_agent_id', 'entry_id', 'revision'],
             'agent_state', 'memory_revisions', ARRAY['runtime_agent_id', 'entry_id', 'revision'],
             'snapshot memory -> memory revision is composite');
SELECT fk_ok('agent_state', 'snapshot_messages', ARRAY['runtime_agent_id', 'message_id'],
             'agent_state', 'messages', ARRAY['runtime_agent_id', 'message_id'],
             'snapshot message -> message is composite');
SELECT is_definer('agent_state', f, 'agent_state.' || f || ' is SECURITY DEFINER')
FROM pg_catalog.unnest(ARRAY['snapshot_prompt', 'snapshot_sources']) AS f;
SELECT ok(NOT pg_catalog.has_function_privilege(r, 'agent_state._redact_snapshots(uuid,uuid)', 'EXECUTE'),
          '_redact_snapshots is internal, not executable by ' || r)
FROM pg_catalog.unnest(ARRAY['agent_state_operator', 'agent_state_runtime']) AS r;

-- ---------------------------------------------------------------- snapshot_prompt
SET ROLE t210_ra;
INSERT INTO pg_temp.ids VALUES ('s1', agent_state.snapshot_prompt(
    agent => pg_temp.id('a'), run => pg_temp.id('run'), prompt => 'Prompt one: Ann likes tea',
    persona_revision => 1, memory => pg_temp.mem('e1', '1', 'e2', '1', 'e1', '2'),
    messages => ARRAY[pg_temp.id('m2'), pg_temp.id('m1')]));
RESET ROLE;
SELECT results_eq(
    $$SELECT s.run_id, s.prompt, s.prompt_sha256, s.persona_revision, s.redacted_at,
             s.created_by::text COLLATE "default"
      FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = pg_temp.id('s1')$$,
    $$VALUES (pg_temp.id('run'), 'Prompt one: Ann likes tea', pg_temp.sha('Prompt one: Ann likes tea'), 1,
              NULL::timestamptz, 't210_ra')$$,
    'the snapshot stores the prompt, its sha256 (hex), the persona revision and who took it');
SET ROLE t210_ra;
SELECT results_eq(
    $$SELECT x.kind, x.entry, x.revision, x.message, x.persona_revision
      FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('s1')) AS x$$,
    $$VALUES ('persona', NULL::uuid, NULL::integer, NULL::uuid, 1),
             ('memory', pg_temp.id('e1'), 1, NULL, NULL),
             ('memory', pg_temp.id('e2'), 1, NULL, NULL),
             ('memory', pg_temp.id('e1'), 2, NULL, NULL),
             ('message', NULL, NULL, pg_temp.id('m2'), NULL),
             ('message', NULL, NULL, pg_temp.id('m1'), NULL)$$,
    'snapshot_sources answers what the agent knew, in prompt order');
INSERT INTO pg_temp.ids VALUES ('s_dup', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'dup',
    memory => pg_temp.mem('e2', '1', 'e1', '2', 'e2', '1'),
    messages => ARRAY[pg_temp.id('m1'), pg_temp.id('m1'), pg_temp.id('m2')]));
SELECT results_eq(
    $$SELECT x.kind, coalesce(x.entry, x.message) FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('s_dup')) AS x$$,
    $$VALUES ('memory', pg_temp.id('e2')), ('memory', pg_temp.id('e1')),
             ('message', pg_temp.id('m1')), ('message', pg_temp.id('m2'))$$,
    'a repeated source is stored once, at its first position');
INSERT INTO pg_temp.ids VALUES ('s_bare', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'bare'));
SELECT is_empty($$SELECT * FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('s_bare'))$$,
                'a snapshot without sources has none');
SELECT lives_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run_exh'), 'still allowed')$$,
                'a budget_exhausted run can still be snapshotted');
SELECT lives_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), pg_catalog.repeat('x', 1000000))$$,
                'a prompt of 1,000,000 characters is accepted');
SELECT lives_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'),
                    '{"entry": "not a memory"}', memory => pg_temp.mem('e1', '2'))$$,
                'the prompt text is free text, also when it looks like JSON');
RESET ROLE;

CREATE TEMP TABLE n0 AS SELECT pg_temp.snapshot_rows() AS n;
SET ROLE t210_ra;
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), NULL)$$,
                 '22004', NULL, 'prompt null: 22004');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), '')$$,
                 '22023', NULL, 'prompt empty: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), E'  \n ')$$,
                 '22023', NULL, 'prompt blank: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), pg_catalog.repeat('y', 10000001))$$,
                 '22023', 'prompt: longer than 10000000 characters', 'a prompt over the documented limit: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), NULL, 'p')$$, '22004', NULL, 'run null: 22004');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p', memory => NULL)$$,
                 '22004', NULL, 'memory null: 22004');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p', messages => NULL)$$,
                 '22004', NULL, 'messages null: 22004');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   messages => ARRAY[pg_temp.id('m1'), NULL])$$,
                 '22004', 'messages: must not contain null', 'a null message: 22004');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p', memory => '{}')$$,
                 '22023', 'memory: must be a JSON array, not object', 'memory an object: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p', memory => '[1]')$$,
                 '22023', 'memory[0]: must be an object {"entry": uuid, "revision": n}',
                 'a memory element that is not an object: 22023 naming it');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"revision": 1}]')$$,
                 '22023', 'memory[0]: entry is missing', 'entry missing: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => pg_temp.mem('e1', '1') || '[{"entry": "00000000-0000-0000-0000-000000000000"}]')$$,
                 '22023', 'memory[1]: revision is missing', 'revision missing in the second element: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "00000000-0000-0000-0000-000000000000", "revision": 1, "body": "x"}]')$$,
                 '22023', NULL, 'an unknown key in an element: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "tea", "revision": 1}]')$$,
                 '22023', 'memory[0]: entry must be a uuid', 'entry not a uuid: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "{00000000-0000-0000-0000-000000000000", "revision": 1}]')$$,
                 '22023', NULL, 'entry with one brace: 22023, never a cast error');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": 7, "revision": 1}]')$$,
                 '22023', NULL, 'entry a number: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "00000000-0000-0000-0000-000000000000", "revision": "1"}]')$$,
                 '22023', 'memory[0]: revision must be a positive integer', 'revision a string: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "00000000-0000-0000-0000-000000000000", "revision": 1.5}]')$$,
                 '22023', NULL, 'revision fractional: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "00000000-0000-0000-0000-000000000000", "revision": 0}]')$$,
                 '22023', NULL, 'revision 0: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "00000000-0000-0000-0000-000000000000", "revision": 1e20}]')$$,
                 '22023', NULL, 'revision beyond integer: 22023, never an overflow');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => '[{"entry": "00000000-0000-0000-0000-000000000000", "revision": 1}]')$$,
                 'P0002', NULL, 'an unknown memory entry: P0002');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => pg_temp.mem('e2', '7'))$$,
                 'P0002', NULL, 'an unknown revision of a known entry: P0002');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), E' \t\r\n ')$$,
                 '22023', NULL, 'a prompt of spaces, tabs and line breaks only: 22023');
SELECT throws_ok($$SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run'), E'\t\n', 'p', 'm', '{}')$$,
                 '22023', NULL, 'record_turn: such a prompt: 22023');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   memory => pg_temp.mem('e1', '1', 'eb', '1'))$$,
                 '23503', 'memory[1]: memory entry ' || pg_temp.id('eb') || ' belongs to another perspective',
                 'another agent''s memory revision: 23503');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   messages => ARRAY[pg_catalog.gen_random_uuid()])$$,
                 'P0002', NULL, 'an unknown message: P0002');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p',
                   messages => ARRAY[pg_temp.id('m1'), pg_temp.id('b_msg')])$$,
                 '23503', NULL, 'another agent''s message: 23503');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p', persona_revision => 9)$$,
                 'P0002', NULL, 'an unknown persona revision: P0002');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_catalog.gen_random_uuid(), 'p')$$,
                 'P0002', NULL, 'an unknown run: P0002');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('b_run'), 'p')$$,
                 '23503', NULL, 'another agent''s run: 23503');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run_done'), 'p',
                   memory => pg_temp.mem('e1', '2'))$$,
                 '55000', NULL, 'a finished run: 55000');
RESET ROLE;
SET ROLE t210_rb;
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'p')$$,
                 '42501', NULL, 'a runtime that does not host the agent: 42501');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('b'), pg_temp.id('b_run'), 'p',
                   memory => pg_temp.mem('e1', '2'))$$,
                 '23503', NULL, 'B citing A''s memory revision: 23503');
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('b'), pg_temp.id('b_run'), 'p',
                   messages => ARRAY[pg_temp.id('m1')])$$,
                 '23503', NULL, 'B citing A''s message: 23503');
RESET ROLE;
SELECT is(pg_temp.snapshot_rows(), (SELECT n FROM n0), 'refused snapshots wrote nothing');
SET ROLE t210_ra;
-- Valid sources in unusual forms (an upper-case entry id, a revision written
-- 1.0) take the detailed path, on either function, and mean the same source.
INSERT INTO pg_temp.ids VALUES
    ('s_upper', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'upper-case source',
        memory => pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
            'entry', pg_catalog.upper(pg_temp.id('e2')::text), 'revision', 1.0)))),
    ('t_upper', (agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run'), 'upper-case source', 'p', 'm', '{}',
        memory => pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
            'entry', pg_catalog.upper(pg_temp.id('e2')::text), 'revision', 1.0))) ->> 'snapshot')::uuid);
SELECT is((SELECT pg_catalog.array_agg(x.entry::text || '/' || x.revision)
           FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('s_upper')) AS x),
          ARRAY[pg_temp.id('e2')::text || '/1'],
          'snapshot_prompt: an upper-case entry id and a revision written 1.0 name the source');
SELECT is((SELECT pg_catalog.array_agg(x.entry::text || '/' || x.revision)
           FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('t_upper')) AS x),
          ARRAY[pg_temp.id('e2')::text || '/1'],
          'record_turn: the same');
RESET ROLE;

-- ---------------------------------------------------------------- snapshot_sources
SET ROLE t210_ra;
SELECT throws_ok($$SELECT * FROM agent_state.snapshot_sources(pg_temp.id('a'), NULL)$$, '22004', NULL,
                 'snapshot_sources: snapshot null: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_catalog.gen_random_uuid())$$,
                 'P0002', NULL, 'snapshot_sources: unknown snapshot: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('b_snap'))$$,
                 '23503', NULL, 'snapshot_sources: another agent''s snapshot: 23503');
RESET ROLE;
SET ROLE t210_rb;
SELECT throws_ok($$SELECT * FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('s1'))$$,
                 '42501', NULL, 'snapshot_sources for an agent I do not host: 42501');
RESET ROLE;

-- ---------------------------------------------------------------- direct DML
-- Direct DML as a superuser that does not own the schema: the owner's writes are
-- the product's own, which skip these insert triggers (the functions do their
-- work; tests/pgtap/520_own_writes.sql).
SET ROLE t210_dba;
-- Sources cannot point into another perspective, whatever path writes them.
SELECT throws_ok($$INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256, memory_count)
                   VALUES (pg_temp.id('a'), pg_temp.id('b_run'), 'x', '', 0)$$,
                 '23503', NULL, 'direct insert: a snapshot of another agent''s run: 23503');
SELECT throws_ok($$INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256, persona_revision)
                   VALUES (pg_temp.id('a'), pg_temp.id('run'), 'x', '', 7)$$,
                 '23503', NULL, 'direct insert: a persona revision the agent does not have: 23503');
SELECT throws_ok($$INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256)
                   VALUES (pg_temp.id('a'), pg_temp.id('run_done'), 'x', '')$$,
                 '55000', NULL, 'direct insert: a snapshot of a finished run: 55000');
WITH d AS (
    INSERT INTO agent_state.prompt_snapshots
        (runtime_agent_id, run_id, prompt, prompt_sha256, memory_count, message_count)
    VALUES (pg_temp.id('a'), pg_temp.id('run'), 'forged', pg_catalog.repeat('0', 64), 1, 1)
    RETURNING snapshot_id
)
INSERT INTO pg_temp.ids SELECT 'forged', d.snapshot_id FROM d;
SELECT is((SELECT s.prompt_sha256 FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = pg_temp.id('forged')),
          pg_temp.sha('forged'), 'direct insert: the sha256 comes from the database, not the writer');
SELECT throws_ok($$INSERT INTO agent_state.snapshot_memory VALUES
                   (pg_temp.id('a'), pg_temp.id('forged'), pg_temp.id('eb'), 1, 1)$$,
                 '23503', NULL, 'direct insert: a snapshot citing another agent''s memory revision: 23503');
SELECT throws_ok($$INSERT INTO agent_state.snapshot_memory VALUES
                   (pg_temp.id('b'), pg_temp.id('forged'), pg_temp.id('eb'), 1, 1)$$,
                 '23503', NULL, 'direct insert: B''s revision attached to A''s snapshot: 23503');
SELECT throws_ok($$INSERT INTO agent_state.snapshot_messages VALUES
                   (pg_temp.id('a'), pg_temp.id('forged'), pg_temp.id('b_msg'), 1)$$,
                 '23503', NULL, 'direct insert: a snapshot citing another agent''s message: 23503');
INSERT INTO agent_state.snapshot_memory VALUES (pg_temp.id('a'), pg_temp.id('forged'), pg_temp.id('e2'), 1, 1);
INSERT INTO agent_state.snapshot_messages VALUES (pg_temp.id('a'), pg_temp.id('forged'), pg_temp.id('m1'), 1);
SELECT throws_ok($$INSERT INTO agent_state.snapshot_memory VALUES
                   (pg_temp.id('a'), pg_temp.id('s1'), pg_temp.id('e2'), 1, 4)$$,
                 '42501', NULL, 'a memory source cannot be added to an existing snapshot');
SELECT throws_ok($$INSERT INTO agent_state.snapshot_messages VALUES
                   (pg_temp.id('a'), pg_temp.id('s_bare'), pg_temp.id('m1'), 1)$$,
                 '42501', NULL, 'a message source cannot be added to a snapshot without messages');
SELECT throws_ok($$INSERT INTO agent_state.snapshot_messages VALUES
                   (pg_temp.id('a'), pg_temp.id('s1'), pg_temp.id('m1'), 1)$$,
                 '23505', NULL, 'a taken source slot cannot be reused');
-- (Still as that superuser: the owner's writes skip this check too.)
SAVEPOINT before_short;
SET CONSTRAINTS ALL IMMEDIATE;
SELECT throws_ok($$INSERT INTO agent_state.prompt_snapshots
                     (runtime_agent_id, run_id, prompt, prompt_sha256, memory_count)
                   VALUES (pg_temp.id('a'), pg_temp.id('run'), 'short', '', 2)$$,
                 '23514', NULL, 'at commit, a snapshot must have every source it declares');
RESET ROLE;
ROLLBACK TO SAVEPOINT before_short;

SELECT throws_ok($$UPDATE agent_state.prompt_snapshots SET prompt = 'rewritten' WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'owner: a snapshot''s prompt never changes');
SELECT throws_ok($$UPDATE agent_state.prompt_snapshots SET prompt = '[redacted]' WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'owner: blanking a prompt without a redaction is refused');
SELECT throws_ok($$UPDATE agent_state.prompt_snapshots SET persona_revision = 2 WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'owner: a snapshot''s persona revision never changes');
SELECT throws_ok($$DELETE FROM agent_state.prompt_snapshots WHERE snapshot_id = pg_temp.id('s_bare')$$,
                 '42501', NULL, 'owner: snapshots are never deleted');
SET LOCAL client_min_messages = warning;
SET CONSTRAINTS ALL IMMEDIATE;
SELECT throws_ok($$TRUNCATE agent_state.prompt_snapshots CASCADE$$, '42501', NULL, 'owner: snapshots are never truncated');
SELECT throws_ok($$UPDATE agent_state.snapshot_memory SET revision = 2 WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'owner: snapshot memory sources never change');
SELECT throws_ok($$DELETE FROM agent_state.snapshot_messages WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'owner: snapshot message sources are never deleted');
SELECT throws_ok($$TRUNCATE agent_state.snapshot_memory$$, '42501', NULL, 'owner: snapshot_memory is never truncated');
SET CONSTRAINTS ALL DEFERRED;

GRANT SELECT, INSERT, UPDATE, DELETE ON agent_state.prompt_snapshots, agent_state.snapshot_memory,
    agent_state.snapshot_messages TO t210_ra, t210_rb;
SET ROLE t210_ra;
SELECT throws_ok($$UPDATE agent_state.prompt_snapshots SET prompt = '[redacted]' WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'runtime with table privileges: cannot blank a prompt');
SELECT throws_ok($$DELETE FROM agent_state.snapshot_memory WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'runtime with table privileges: cannot delete sources');
RESET ROLE;
SET ROLE t210_rb;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.prompt_snapshots AS s WHERE s.runtime_agent_id = pg_temp.id('a')),
          0::bigint, 'runtime with table privileges sees no snapshots of an agent it does not host');
SELECT throws_ok($$INSERT INTO agent_state.snapshot_memory VALUES
                   (pg_temp.id('b'), pg_temp.id('b_snap'), pg_temp.id('e1'), 1, 1)$$,
                 '42501', NULL, 'runtime with table privileges: nothing can be added to B''s snapshot, A''s revision least of all');
RESET ROLE;
SELECT results_eq(
    $$SELECT s.prompt, s.prompt_sha256 FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = pg_temp.id('s1')$$,
    $$VALUES ('Prompt one: Ann likes tea', pg_temp.sha('Prompt one: Ann likes tea'))$$,
    'after every attack the snapshot is intact');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory AS m WHERE m.snapshot_id = pg_temp.id('s1')),
          3::bigint, 'after every attack its memory sources are intact');

-- ---------------------------------------------------------------- redaction
-- Without a redaction row written in this transaction, even the helper is refused.
SELECT throws_ok($$SELECT agent_state._redact_snapshots(pg_temp.id('a'), pg_temp.id('e2'))$$, '42501', NULL,
                 '_redact_snapshots without a redaction of the entry is refused by the trigger');
SET ROLE t210_ra;
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), 'erasure request')$$, '42501', NULL,
                 'a runtime cannot redact');
RESET ROLE;
SET ROLE t210_op;
SELECT lives_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e1'), 'erasure request')$$,
                'an operator redacts entry e1');
RESET ROLE;
SELECT results_eq(
    $$SELECT s.snapshot_id, s.prompt, s.prompt_sha256, s.redacted_at IS NOT NULL, s.redacted_by::text COLLATE "default"
      FROM agent_state.prompt_snapshots AS s
      WHERE s.snapshot_id IN (pg_temp.id('s1'), pg_temp.id('s_dup'), pg_temp.id('s_bare'), pg_temp.id('forged'))
      ORDER BY s.created_at$$,
    $$VALUES (pg_temp.id('s1'), '[redacted]', pg_temp.sha('Prompt one: Ann likes tea'), true, 't210_op'),
             (pg_temp.id('s_dup'), '[redacted]', pg_temp.sha('dup'), true, 't210_op'),
             (pg_temp.id('s_bare'), 'bare', pg_temp.sha('bare'), false, NULL),
             (pg_temp.id('forged'), 'forged', pg_temp.sha('forged'), false, NULL)$$,
    'redact blanks exactly the snapshots that used a revision of the entry, keeping their sha256');
SELECT ok((SELECT d.removed_sha256 @> ARRAY[pg_temp.sha('Prompt one: Ann likes tea'), pg_temp.sha('dup')]
           FROM agent_state.memory_redactions AS d WHERE d.entry_id = pg_temp.id('e1')),
          'the redaction records the sha256 of each prompt removed');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory AS m WHERE m.snapshot_id = pg_temp.id('s1')),
          3::bigint, 'a redacted snapshot keeps its source rows');
SELECT throws_ok($$UPDATE agent_state.prompt_snapshots SET prompt = 'restored' WHERE snapshot_id = pg_temp.id('s1')$$,
                 '42501', NULL, 'a redacted snapshot never changes again');
SELECT is((SELECT s.prompt FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = pg_temp.id('b_snap')),
          'B prompt', 'another agent''s snapshots are untouched');
CREATE TEMP TABLE n_red AS SELECT pg_temp.snapshot_rows() AS n;
SET ROLE t210_ra;
SELECT throws_ok($$SELECT agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'Ann likes tea',
                   memory => pg_temp.mem('e2', '1', 'e1', '2'))$$,
                 '55000', 'memory[1]: memory entry ' || pg_temp.id('e1') || ' is redacted',
                 'a new snapshot cannot use a revision of a redacted entry');
RESET ROLE;
SELECT is(pg_temp.snapshot_rows(), (SELECT n FROM n_red), '... and nothing was written');
SET ROLE t210_dba;
WITH d AS (
    INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256, memory_count)
    VALUES (pg_temp.id('a'), pg_temp.id('run'), 'direct', '', 1)
    RETURNING snapshot_id
)
INSERT INTO pg_temp.ids SELECT 'direct_red', d.snapshot_id FROM d;
SELECT throws_ok($$INSERT INTO agent_state.snapshot_memory VALUES
                   (pg_temp.id('a'), pg_temp.id('direct_red'), pg_temp.id('e1'), 2, 1)$$,
                 '55000', NULL, 'direct insert: a snapshot source that is a redacted entry: 55000');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
