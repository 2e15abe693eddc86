-- checkpoint and recover_run: numbering per run, frontier validation, finished
-- runs, direct DML on checkpoints; the recovered state (latest checkpoint,
-- budget, unknown tool call outcomes across a chain, current persona and grants).
BEGIN;
SELECT plan(61);

CREATE ROLE t230_op IN ROLE agent_state_operator;
CREATE ROLE t230_ra IN ROLE agent_state_runtime;
CREATE ROLE t230_rb IN ROLE agent_state_runtime;
CREATE ROLE t230_dba SUPERUSER;
\ir _setup.sql
CREATE FUNCTION pg_temp.checkpoints() RETURNS bigint LANGUAGE sql STABLE
AS $$ SELECT pg_catalog.count(*) FROM agent_state.checkpoints $$;
CREATE TEMP TABLE rec (k text PRIMARY KEY, v jsonb NOT NULL);
CREATE FUNCTION pg_temp.rec(key text) RETURNS jsonb LANGUAGE sql STABLE
AS $$ SELECT r.v FROM pg_temp.rec AS r WHERE r.k = key $$;
GRANT ALL ON pg_temp.rec TO PUBLIC;

SET ROLE t230_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t230-a')),
    ('b', agent_state.create_agent('t230-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't230_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't230_rb'),
       agent_state.revise_persona(pg_temp.id('a'), 'A persona one'),
       agent_state.revise_persona(pg_temp.id('b'), 'B persona'),
       agent_state.register_tool('t230.mail', '1', '{"type": "object"}'),
       agent_state.register_tool('t230.pay', '1', '{"type": "object"}'),
       agent_state.register_tool('t230.b_tool', '1', '{"type": "object"}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't230.mail', true, '{"from": "a@example.org"}'),
       agent_state.grant_tool(pg_temp.id('a'), 't230.pay', true),
       agent_state.grant_tool(pg_temp.id('b'), 't230.b_tool', true) \g /dev/null
RESET ROLE;

-- ---------------------------------------------------------------- checkpoint
SET ROLE t230_ra;
INSERT INTO pg_temp.ids VALUES
    ('run', agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 1000, "tool_calls": 10}')),
    ('other', agent_state.start_run(pg_temp.id('a'))),
    ('done', agent_state.start_run(pg_temp.id('a')));
SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('done'), 'cancelled') \g /dev/null
SELECT is(agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), '{"step": 1}'), 1, 'the first checkpoint is 1');
SELECT is(agent_state.checkpoint(agent => pg_temp.id('a'), run => pg_temp.id('run'), frontier => '["b", "c"]'), 2,
          'the next is 2 (a JSON array frontier)');
SELECT is(agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('other'), '{}'), 1, 'numbers are per run');
RESET ROLE;
CREATE TEMP TABLE n0 AS SELECT pg_temp.checkpoints() AS n;
SET ROLE t230_ra;
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), NULL)$$, '22004', NULL,
                 'frontier null: 22004');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), '"step 3"')$$, '22023',
                 'frontier: must be a JSON object or array, not string', 'frontier a JSON string: 22023');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), '3')$$, '22023', NULL,
                 'frontier a number: 22023');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), 'null')$$, '22023', NULL,
                 'frontier JSON null: 22023');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), NULL, '{}')$$, '22004', NULL, 'run null: 22004');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_catalog.gen_random_uuid(), '{}')$$, 'P0002', NULL,
                 'an unknown run: P0002');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('done'), '{}')$$, '55000', NULL,
                 'a finished run: 55000');
RESET ROLE;
SET ROLE t230_rb;
INSERT INTO pg_temp.ids VALUES ('b_run', agent_state.start_run(pg_temp.id('b')));
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('b'), pg_temp.id('run'), '{}')$$, '23503', NULL,
                 'another agent''s run: 23503');
SELECT throws_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), '{}')$$, '42501', NULL,
                 'a runtime that does not host the agent: 42501');
RESET ROLE;
SELECT is(pg_temp.checkpoints(), (SELECT n FROM n0), 'refused checkpoints wrote nothing');

-- Direct DML as a superuser that does not own the schema: the owner's writes are
-- the product's own, which skip these insert triggers (the functions do their
-- work; tests/pgtap/520_own_writes.sql).
SET ROLE t230_dba;
INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
VALUES (pg_temp.id('a'), pg_temp.id('run'), 99, '{"direct": true}');
SELECT results_eq(
    $$SELECT k.checkpoint, k.frontier FROM agent_state.checkpoints AS k
      WHERE k.run_id = pg_temp.id('run') ORDER BY k.checkpoint$$,
    $$VALUES (1, '{"step": 1}'::jsonb), (2, '["b", "c"]'::jsonb), (3, '{"direct": true}'::jsonb)$$,
    'checkpoint numbers come from the database, gap-free, whatever path writes');
SELECT throws_ok($$INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
                   VALUES (pg_temp.id('a'), pg_temp.id('done'), 1, '{}')$$, '55000', NULL,
                 'direct insert: a checkpoint of a finished run: 55000');
SELECT throws_ok($$INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
                   VALUES (pg_temp.id('a'), pg_temp.id('b_run'), 1, '{}')$$, '23503', NULL,
                 'direct insert: a checkpoint of another agent''s run: 23503');
RESET ROLE;
SELECT throws_ok($$UPDATE agent_state.checkpoints SET frontier = '{}' WHERE run_id = pg_temp.id('run')$$, '42501', NULL,
                 'owner: checkpoints never change');
SELECT throws_ok($$DELETE FROM agent_state.checkpoints WHERE run_id = pg_temp.id('run')$$, '42501', NULL,
                 'owner: checkpoints are never deleted');
SELECT throws_ok($$TRUNCATE agent_state.checkpoints$$, '42501', NULL, 'owner: checkpoints are never truncated');
GRANT SELECT, INSERT ON agent_state.checkpoints TO t230_rb;
SET ROLE t230_rb;
SELECT throws_ok($$INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
                   VALUES (pg_temp.id('a'), pg_temp.id('done'), 1, '{}')$$, '42501', NULL,
                 'runtime with table privileges: no checkpoint for another agent, and no hint of its run''s state');
RESET ROLE;
GRANT SELECT, INSERT ON agent_state.checkpoints TO t230_ra;
SET ROLE t230_ra;
SELECT lives_ok($$INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
                  VALUES (pg_temp.id('a'), pg_temp.id('other'), 7, '{"direct": "own agent"}')$$,
                'runtime with table privileges: a direct checkpoint for its own agent passes the guard');
RESET ROLE;
SELECT is((SELECT pg_catalog.max(k.checkpoint) FROM agent_state.checkpoints AS k WHERE k.run_id = pg_temp.id('other')),
          2, '... and is numbered by the database');

-- ---------------------------------------------------------------- recover_run
SET ROLE t230_ra;
INSERT INTO pg_temp.ids VALUES ('s', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'),
                                                                 'You are A persona one', persona_revision => 1));
INSERT INTO pg_temp.ids VALUES ('mc', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'),
                                                                   'p', 'm', '{}', usage => '{"tokens": 250}'));
INSERT INTO pg_temp.ids VALUES
    ('tc_unconfirmed', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't230.mail', '{"to": "ann"}',
                                                    pg_temp.id('mc'))),
    ('tc_none', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't230.pay', '{"eur": 5}')),
    ('tc_ok', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't230.mail', '{"to": "bob"}')),
    ('tc_error', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't230.mail', '{"to": "cy"}')),
    ('tc_resolved', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't230.mail', '{"to": "di"}'));
SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_unconfirmed'), '{"sent": "maybe"}', 'unconfirmed'),
       agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_ok'), '{}', 'ok'),
       agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_error'), '{}', 'error'),
       agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_resolved'), '{}', 'unconfirmed') \g /dev/null
SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_resolved'), '{}', 'ok') \g /dev/null
RESET ROLE;
-- The operator changes persona and grants after the snapshot was taken.
SET ROLE t230_op;
SELECT agent_state.revise_persona(pg_temp.id('a'), 'A persona two') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't230.pay', false) \g /dev/null
RESET ROLE;

SET ROLE t230_ra;
INSERT INTO pg_temp.rec VALUES ('run', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run')));
RESET ROLE;
SELECT ok(pg_temp.rec('run') ?& ARRAY['run', 'status', 'checkpoint', 'frontier', 'budget', 'unconfirmed_tool_calls',
                                      'persona', 'tool_grants'],
          'recover_run returns every documented key');
SELECT is(pg_temp.rec('run') ->> 'run', pg_temp.id('run')::text, 'run');
SELECT is(pg_temp.rec('run') ->> 'status', 'open', 'status');
SELECT is(pg_temp.rec('run') -> 'checkpoint', '3'::jsonb, 'checkpoint: the latest number');
SELECT is(pg_temp.rec('run') -> 'frontier', '{"direct": true}'::jsonb, 'frontier: the latest checkpoint''s');
SELECT is(pg_temp.rec('run') -> 'budget' -> 'limits',
          '{"tokens": 1000, "cost_usd": null, "tool_calls": 10, "wall_time_seconds": null}'::jsonb,
          'budget.limits (null = no limit)');
SELECT is((pg_temp.rec('run') -> 'budget' -> 'spent') - 'wall_time_seconds',
          '{"tokens": 250, "cost_usd": 0, "tool_calls": 5}'::jsonb, 'budget.spent');
SELECT ok((pg_temp.rec('run') -> 'budget' -> 'spent' ->> 'wall_time_seconds')::numeric >= 0,
          'budget.spent.wall_time_seconds is measured');
SELECT is(pg_temp.rec('run') -> 'budget' -> 'remaining',
          '{"tokens": 750, "cost_usd": null, "tool_calls": 5, "wall_time_seconds": null}'::jsonb,
          'budget.remaining = limit - spent, null without a limit');
SELECT results_eq(
    $$SELECT (e ->> 'tool_call')::uuid, e ->> 'tool', e -> 'input', (e ->> 'grant_revision')::integer, e ->> 'result',
             e -> 'output', (e ->> 'run')::uuid, (e ->> 'model_call')::uuid
      FROM pg_catalog.jsonb_array_elements(pg_temp.rec('run') -> 'unconfirmed_tool_calls') AS e$$,
    $$VALUES (pg_temp.id('tc_unconfirmed'), 't230.mail', '{"to": "ann"}'::jsonb, 1, 'unconfirmed',
              '{"sent": "maybe"}'::jsonb, pg_temp.id('run'), pg_temp.id('mc')),
             (pg_temp.id('tc_none'), 't230.pay', '{"eur": 5}'::jsonb, 1, 'none', 'null'::jsonb, pg_temp.id('run'),
              NULL::uuid)$$,
    'unconfirmed_tool_calls: calls whose outcome is unknown (latest unconfirmed, or no result), oldest first');
SELECT is((SELECT pg_catalog.count(*) FROM pg_catalog.jsonb_array_elements(pg_temp.rec('run') -> 'unconfirmed_tool_calls') AS e
           WHERE e ? 'recorded_at' AND (e ->> 'recorded_at')::timestamptz <= pg_catalog.clock_timestamp()),
          2::bigint, 'each unknown call says when it was recorded');
SELECT is(pg_temp.rec('run') -> 'persona', '{"revision": 2, "body": "A persona two"}'::jsonb,
          'persona: the current active revision, not the one the old snapshot used');
SELECT is(pg_temp.rec('run') -> 'tool_grants',
          '[{"tool": "t230.mail", "revision": 1, "enabled": true, "config": {"from": "a@example.org"}},
            {"tool": "t230.pay", "revision": 2, "enabled": false, "config": {}}]'::jsonb,
          'tool_grants: the agent''s current grants (latest revision per tool), no other agent''s');

SET ROLE t230_op;
SELECT agent_state.activate_persona(pg_temp.id('a'), 1) \g /dev/null
RESET ROLE;
SET ROLE t230_ra;
SELECT is(agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run')) -> 'persona' -> 'revision', '1'::jsonb,
          'persona follows the current activation (revert)');
INSERT INTO pg_temp.rec VALUES ('other', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('other')));
RESET ROLE;
SELECT is(pg_temp.rec('other') -> 'unconfirmed_tool_calls', '[]'::jsonb, 'a run without tool calls has no unknown ones');
SELECT is(pg_temp.rec('other') -> 'budget' -> 'remaining' -> 'tokens', 'null'::jsonb, 'no limit: remaining null');

SET ROLE t230_ra;
INSERT INTO pg_temp.ids VALUES ('fresh', agent_state.start_run(pg_temp.id('a')));
INSERT INTO pg_temp.rec VALUES ('fresh', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('fresh')));
RESET ROLE;
SELECT is(pg_temp.rec('fresh') -> 'checkpoint', 'null'::jsonb, 'no checkpoint yet: checkpoint null');
SELECT is(pg_temp.rec('fresh') -> 'frontier', 'null'::jsonb, 'no checkpoint yet: frontier null');

-- A continuation still lists the unknown outcomes of the runs it continues.
SET ROLE t230_ra;
INSERT INTO pg_temp.ids VALUES ('next', agent_state.continue_run(pg_temp.id('a'), pg_temp.id('run'),
                                                                '{"resume": "after mail"}', '{"tokens": 5000}'));
INSERT INTO pg_temp.ids VALUES ('tc_next', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('next'), 't230.mail', '{}'));
INSERT INTO pg_temp.rec VALUES ('next', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('next')));
INSERT INTO pg_temp.rec VALUES ('run_after', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run')));
RESET ROLE;
SELECT results_eq(
    $$SELECT (e ->> 'tool_call')::uuid, (e ->> 'run')::uuid
      FROM pg_catalog.jsonb_array_elements(pg_temp.rec('next') -> 'unconfirmed_tool_calls') AS e$$,
    $$VALUES (pg_temp.id('tc_unconfirmed'), pg_temp.id('run')), (pg_temp.id('tc_none'), pg_temp.id('run')),
             (pg_temp.id('tc_next'), pg_temp.id('next'))$$,
    'a continuation lists the unknown outcomes of the whole chain');
SELECT is((pg_temp.rec('next') -> 'budget' -> 'spent') - 'wall_time_seconds',
          '{"tokens": 250, "cost_usd": 0, "tool_calls": 6}'::jsonb, 'the continuation''s spent budget carried over');
SELECT is(pg_temp.rec('next') -> 'budget' -> 'remaining' -> 'tokens', '4750'::jsonb, 'raised limit minus carried spending');
SELECT is(pg_temp.rec('next') ->> 'continued_from', pg_temp.id('run')::text, 'the continuation names its predecessor');
SELECT is(pg_temp.rec('next') -> 'task_context', '{"resume": "after mail"}'::jsonb, 'and carries its task context');
SELECT is(pg_temp.rec('next') -> 'checkpoint', 'null'::jsonb, 'checkpoints are numbered per run: none yet');
SELECT is(pg_temp.rec('run_after') ->> 'status', 'handed_off', 'the predecessor is handed off');
SELECT is(pg_temp.rec('run_after') ->> 'continued_by', pg_temp.id('next')::text, 'and names its continuation');
SELECT is(pg_temp.rec('run_after') -> 'unconfirmed_tool_calls' -> 0 ->> 'tool_call', pg_temp.id('tc_unconfirmed')::text,
          'recovering a predecessor lists its own unknown calls, not its successors''');

-- A finished run's wall time stops at its finish.
SET ROLE t230_ra;
SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('next'), 'succeeded') \g /dev/null
INSERT INTO pg_temp.rec VALUES ('done1', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('next')));
SELECT pg_catalog.pg_sleep(0.01) \g /dev/null
INSERT INTO pg_temp.rec VALUES ('done2', agent_state.recover_run(pg_temp.id('a'), pg_temp.id('next')));
RESET ROLE;
SELECT is(pg_temp.rec('done2') -> 'budget' -> 'spent' -> 'wall_time_seconds',
          pg_temp.rec('done1') -> 'budget' -> 'spent' -> 'wall_time_seconds', 'a finished run''s wall time is final');
SELECT is(pg_temp.rec('done1') ->> 'status', 'succeeded', 'a finished run recovers with its outcome');
SELECT ok(pg_temp.rec('done1') ->> 'finished_at' IS NOT NULL, 'and its finish time');

SET ROLE t230_ra;
SELECT throws_ok($$SELECT agent_state.recover_run(pg_temp.id('a'), NULL)$$, '22004', NULL, 'recover_run: run null: 22004');
SELECT throws_ok($$SELECT agent_state.recover_run(pg_temp.id('a'), pg_catalog.gen_random_uuid())$$, 'P0002', NULL,
                 'recover_run: an unknown run: P0002');
SELECT throws_ok($$SELECT agent_state.recover_run(pg_temp.id('a'), pg_temp.id('b_run'))$$, '23503', NULL,
                 'recover_run: another agent''s run: 23503');
RESET ROLE;
SET ROLE t230_rb;
SELECT throws_ok($$SELECT agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run'))$$, '42501', NULL,
                 'recover_run for an agent I do not host: 42501');
INSERT INTO pg_temp.rec VALUES ('b', agent_state.recover_run(pg_temp.id('b'), pg_temp.id('b_run')));
RESET ROLE;
SELECT is(pg_temp.rec('b') -> 'persona' ->> 'body', 'B persona', 'B recovers its own persona');
SELECT is(pg_temp.rec('b') -> 'tool_grants' -> 0 ->> 'tool', 't230.b_tool', 'B recovers its own grants only');
SELECT is(pg_catalog.jsonb_array_length(pg_temp.rec('b') -> 'tool_grants'), 1, '... exactly one');
SELECT is_definer('agent_state', 'recover_run', 'recover_run is SECURITY DEFINER');
SELECT is_definer('agent_state', 'checkpoint', 'checkpoint is SECURITY DEFINER');

SELECT * FROM finish();
ROLLBACK;
