-- Model calls, tool calls and tool results: validation, same-run references,
-- budget charging and exhaustion, grants, unknown outcomes, and direct DML
-- attacks on the ledger tables.
BEGIN;
SELECT plan(116);

CREATE ROLE t220_op IN ROLE agent_state_operator;
CREATE ROLE t220_ra IN ROLE agent_state_runtime;
CREATE ROLE t220_rb IN ROLE agent_state_runtime;
CREATE ROLE t220_dba SUPERUSER;
\ir _setup.sql
CREATE FUNCTION pg_temp.ledger_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.model_calls)
         + (SELECT pg_catalog.count(*) FROM agent_state.tool_calls)
         + (SELECT pg_catalog.count(*) FROM agent_state.tool_results)
$$;
CREATE FUNCTION pg_temp.spent(key text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.format('%s/%s/%s %s', r.spent_tokens, r.spent_cost_usd, r.spent_tool_calls, r.status)
    FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id(key)
$$;
CREATE FUNCTION pg_temp.believed(key text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT r.status FROM agent_state.tool_results AS r WHERE r.tool_call_id = pg_temp.id(key)
    ORDER BY r.result_no DESC LIMIT 1
$$;

SET ROLE t220_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t220-a')),
    ('b', agent_state.create_agent('t220-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't220_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't220_rb'),
       agent_state.register_tool('t220.search', '1', '{"type": "object"}'),
       agent_state.register_tool('t220.off', '1', '{"type": "object"}'),
       agent_state.register_tool('t220.b_only', '1', '{"type": "object"}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't220.search', true),
       agent_state.grant_tool(pg_temp.id('a'), 't220.off', true),
       agent_state.grant_tool(pg_temp.id('b'), 't220.b_only', true),
       agent_state.grant_tool(pg_temp.id('b'), 't220.search', true) \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't220.off', false) \g /dev/null
RESET ROLE;

SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES
    ('run', agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 1000, "cost_usd": 1, "tool_calls": 10}')),
    ('run2', agent_state.start_run(pg_temp.id('a'))),
    ('done', agent_state.start_run(pg_temp.id('a')));
INSERT INTO pg_temp.ids VALUES
    ('s', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'prompt for run')),
    ('s2', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run2'), 'prompt for run2')),
    ('s_done', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('done'), 'prompt for done'));
INSERT INTO pg_temp.ids VALUES
    ('mc_done', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('done'), pg_temp.id('s_done'), 'p', 'm', '{}'));
INSERT INTO pg_temp.ids VALUES
    ('tc_done_unconfirmed', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('done'), 't220.search', '{"n": 1}')),
    ('tc_done_none', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('done'), 't220.search', '{"n": 2}')),
    ('tc_done_ok', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('done'), 't220.search', '{"n": 3}'));
SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_unconfirmed'), '{}', 'unconfirmed'),
       agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_ok'), '{}', 'ok') \g /dev/null
SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('done'), 'failed') \g /dev/null
RESET ROLE;
SET ROLE t220_rb;
INSERT INTO pg_temp.ids VALUES ('b_run', agent_state.start_run(pg_temp.id('b')));
INSERT INTO pg_temp.ids VALUES ('b_snap', agent_state.snapshot_prompt(pg_temp.id('b'), pg_temp.id('b_run'), 'B'));
INSERT INTO pg_temp.ids VALUES
    ('b_mc', agent_state.record_model_call(pg_temp.id('b'), pg_temp.id('b_run'), pg_temp.id('b_snap'), 'p', 'm', '{}'));
INSERT INTO pg_temp.ids VALUES
    ('b_tc', agent_state.record_tool_call(pg_temp.id('b'), pg_temp.id('b_run'), 't220.b_only', '{}'));
RESET ROLE;

-- ---------------------------------------------------------------- catalog
SELECT fk_ok('agent_state', 'model_calls', ARRAY['runtime_agent_id', 'run_id', 'snapshot_id'],
             'agent_state', 'prompt_snapshots', ARRAY['runtime_agent_id', 'run_id', 'snapshot_id'],
             'a model call''s snapshot is a snapshot of the same run (composite key)');
SELECT fk_ok('agent_state', 'tool_calls', ARRAY['runtime_agent_id', 'run_id', 'model_call_id'],
             'agent_state', 'model_calls', ARRAY['runtime_agent_id', 'run_id', 'model_call_id'],
             'a tool call''s model call belongs to the same run (composite key)');
SELECT fk_ok('agent_state', 'tool_calls', ARRAY['runtime_agent_id', 'tool_name', 'grant_revision'],
             'agent_state', 'tool_grants', ARRAY['runtime_agent_id', 'tool_name', 'revision'],
             'a tool call records the agent''s grant revision (composite key)');
SELECT fk_ok('agent_state', 'tool_results', ARRAY['runtime_agent_id', 'tool_call_id'],
             'agent_state', 'tool_calls', ARRAY['runtime_agent_id', 'tool_call_id'],
             'a tool result belongs to a tool call of the same agent');
SELECT is_definer('agent_state', f, 'agent_state.' || f || ' is SECURITY DEFINER')
FROM pg_catalog.unnest(ARRAY['record_model_call', 'record_tool_call', 'record_tool_result']) AS f;

-- ---------------------------------------------------------------- record_model_call
SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES ('mc1', agent_state.record_model_call(
    agent => pg_temp.id('a'), run => pg_temp.id('run'), snapshot => pg_temp.id('s'), provider => 'openai',
    model => 'gpt-x', request => '{"messages": []}', response => '{"content": "hi"}',
    usage => '{"tokens": 300, "cost_usd": 0.25}'));
RESET ROLE;
SELECT results_eq(
    $$SELECT c.run_id, c.snapshot_id, c.provider, c.model, c.request, c.response, c.tokens, c.cost_usd, c.status,
             c.created_by::text COLLATE "default"
      FROM agent_state.model_calls AS c WHERE c.model_call_id = pg_temp.id('mc1')$$,
    $$VALUES (pg_temp.id('run'), pg_temp.id('s'), 'openai', 'gpt-x', '{"messages": []}'::jsonb,
              '{"content": "hi"}'::jsonb, 300::numeric, 0.25::numeric, 'ok', 't220_ra')$$,
    'record_model_call stores the call with its snapshot, usage and status');
SELECT is(pg_temp.spent('run'), '300/0.25/0 open', 'the usage is charged to the run');
SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES
    ('mc_err', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                                             status => 'error')),
    ('mc_timeout', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                                                 NULL, '{"tokens": 0}', 'timeout')),
    ('mc2', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run2'), pg_temp.id('s2'), 'p', 'm', '[1]'));
RESET ROLE;
SELECT results_eq(
    $$SELECT c.status, c.tokens, c.cost_usd, c.response FROM agent_state.model_calls AS c
      WHERE c.model_call_id IN (pg_temp.id('mc_err'), pg_temp.id('mc_timeout')) ORDER BY c.status$$,
    $$VALUES ('error', 0::numeric, 0::numeric, NULL::jsonb), ('timeout', 0::numeric, 0::numeric, NULL::jsonb)$$,
    'statuses error and timeout; missing usage keys are 0');
SELECT is(pg_temp.spent('run'), '300/0.25/0 open', 'calls without usage charge nothing');

CREATE TEMP TABLE n0 AS SELECT pg_temp.ledger_rows() AS n;
SET ROLE t220_ra;
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s2'), 'p', 'm', '{}')$$,
                 '23503', pg_catalog.format('snapshot: snapshot %s belongs to run %s, not to run %s',
                                            pg_temp.id('s2'), pg_temp.id('run2'), pg_temp.id('run')),
                 'a snapshot of another run of the same agent: 23503');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't220.search', '{}',
                                                       model_call => pg_temp.id('mc2'))$$,
                 '23503', pg_catalog.format('model_call: model call %s belongs to run %s, not to run %s',
                                            pg_temp.id('mc2'), pg_temp.id('run2'), pg_temp.id('run')),
                 'a model call of another run of the same agent: 23503');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('b_snap'), 'p', 'm', '{}')$$,
                 '23503', NULL, 'another agent''s snapshot: 23503');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_catalog.gen_random_uuid(), 'p', 'm', '{}')$$,
                 'P0002', NULL, 'an unknown snapshot: P0002');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_catalog.gen_random_uuid(), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 'P0002', NULL, 'an unknown run: P0002');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('b_run'), pg_temp.id('b_snap'), 'p', 'm', '{}')$$,
                 '23503', NULL, 'another agent''s run: 23503');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('done'), pg_temp.id('s_done'), 'p', 'm', '{}')$$,
                 '55000', NULL, 'a finished run: 55000');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   status => 'failed')$$, '22023', NULL, 'an unknown status: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   status => NULL)$$, '22004', NULL, 'status null: 22004');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => NULL)$$, '22004', NULL, 'usage null: 22004');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '[10]')$$, '22023', NULL, 'usage an array: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"tokens": -1}')$$, '22023', NULL, 'negative tokens: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"tokens": 2.5}')$$, '22023', NULL, 'fractional tokens: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"tokens": 1e40}')$$, '22023', NULL, 'absurd tokens: 22023, never an overflow');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"cost_usd": "0.1"}')$$, '22023', NULL, 'cost as a string: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"cost_usd": -0.01}')$$, '22023', NULL, 'negative cost: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"tokens": 1, "input_tokens": 5}')$$, '22023',
                 'usage.input_tokens: unknown usage key; known keys are tokens, cost_usd',
                 'an unknown usage key: 22023 naming it');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), NULL, 'm', '{}')$$,
                 '22004', NULL, 'provider null: 22004');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), ' ', 'm', '{}')$$,
                 '22023', NULL, 'provider blank: 22023');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', NULL, '{}')$$,
                 '22004', NULL, 'model null: 22004');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', NULL)$$,
                 '22004', NULL, 'request null: 22004');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), NULL, 'p', 'm', '{}')$$,
                 '22004', NULL, 'snapshot null: 22004');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), NULL, pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '22004', NULL, 'run null: 22004');
RESET ROLE;
SET ROLE t220_rb;
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                   usage => '{"tokens": 5}')$$, '42501', NULL, 'a runtime that does not host the agent: 42501');
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('b'), pg_temp.id('b_run'), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '23503', NULL, 'B recording a call with A''s snapshot: 23503');
RESET ROLE;
SELECT is(pg_temp.ledger_rows(), (SELECT n FROM n0), 'refused model calls wrote nothing');
SELECT is(pg_temp.spent('run'), '300/0.25/0 open', 'refused model calls charged nothing');

-- Exhaustion: the call that reaches a limit is recorded and exhausts the run.
SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES ('mc_reach', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'),
    pg_temp.id('s'), 'p', 'm', '{}', usage => '{"tokens": 700, "cost_usd": 0.1}'));
RESET ROLE;
SELECT is(pg_temp.spent('run'), '1000/0.35/0 budget_exhausted', 'reaching the token limit exhausts the run');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.model_calls AS c WHERE c.model_call_id = pg_temp.id('mc_reach')),
          1::bigint, 'the call that exhausted the budget is recorded');
CREATE TEMP TABLE n1 AS SELECT pg_temp.ledger_rows() AS n;
SET ROLE t220_ra;
SELECT throws_ok($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '53400', NULL, 'a model call on an exhausted run: 53400');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't220.search', '{}')$$,
                 '53400', NULL, 'a tool call on an exhausted run: 53400');
SELECT lives_ok($$SELECT agent_state.checkpoint(pg_temp.id('a'), pg_temp.id('run'), '{"at": "exhausted"}')$$,
                'an exhausted run can still be checkpointed');
RESET ROLE;
SELECT is(pg_temp.ledger_rows(), (SELECT n FROM n1), 'calls refused for exhaustion wrote nothing');
SELECT is(pg_temp.spent('run'), '1000/0.35/0 budget_exhausted', 'calls refused for exhaustion charged nothing');

SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES
    ('run_pass', agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 100}')),
    ('run_cost', agent_state.start_run(pg_temp.id('a'), budget => '{"cost_usd": 0.3}'));
INSERT INTO pg_temp.ids VALUES
    ('s_pass', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run_pass'), 'p')),
    ('s_cost', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run_cost'), 'p'));
SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run_pass'), pg_temp.id('s_pass'), 'p', 'm', '{}',
                                     usage => '{"tokens": 150}') \g /dev/null
SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run_cost'), pg_temp.id('s_cost'), 'p', 'm', '{}',
                                     usage => '{"cost_usd": 0.1}'),
       agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run_cost'), pg_temp.id('s_cost'), 'p', 'm', '{}',
                                     usage => '{"cost_usd": 0.1}') \g /dev/null
RESET ROLE;
SELECT is(pg_temp.spent('run_pass'), '150/0/0 budget_exhausted', 'a call passing the limit is recorded in full and exhausts');
SELECT is(pg_temp.spent('run_cost'), '0/0.2/0 open', 'below the cost limit the run stays open (exact decimal sums)');
SET ROLE t220_ra;
SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run_cost'), pg_temp.id('s_cost'), 'p', 'm', '{}',
                                     usage => '{"cost_usd": 0.1}') \g /dev/null
RESET ROLE;
SELECT is(pg_temp.spent('run_cost'), '0/0.3/0 budget_exhausted', 'reaching the cost limit exactly exhausts the run');

-- ---------------------------------------------------------------- record_tool_call
SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES ('tc1', agent_state.record_tool_call(
    agent => pg_temp.id('a'), run => pg_temp.id('run2'), tool => 't220.search', input => '{"q": "tea"}',
    model_call => pg_temp.id('mc2')));
RESET ROLE;
SELECT results_eq(
    $$SELECT c.run_id, c.model_call_id, c.tool_name, c.grant_revision, c.input, c.created_by::text COLLATE "default"
      FROM agent_state.tool_calls AS c WHERE c.tool_call_id = pg_temp.id('tc1')$$,
    $$VALUES (pg_temp.id('run2'), pg_temp.id('mc2'), 't220.search', 1, '{"q": "tea"}'::jsonb, 't220_ra')$$,
    'record_tool_call stores the call with the grant revision it ran under');
SELECT is(pg_temp.spent('run2'), '0/0/1 open', 'a tool call charges one unit of tool_calls');
SET ROLE t220_op;
SELECT agent_state.grant_tool(pg_temp.id('a'), 't220.search', true) \g /dev/null
RESET ROLE;
SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES ('tc2', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.search', '[]'));
RESET ROLE;
SELECT is((SELECT c.grant_revision FROM agent_state.tool_calls AS c WHERE c.tool_call_id = pg_temp.id('tc2')), 2,
          'a tool call records the current grant revision');

CREATE TEMP TABLE n2 AS SELECT pg_temp.ledger_rows() AS n;
SET ROLE t220_ra;
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.off', '{}')$$,
                 '42501', NULL, 'a disabled tool: 42501');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.b_only', '{}')$$,
                 '42501', NULL, 'a tool granted only to another agent: 42501');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.nope', '{}')$$,
                 '42501', NULL, 'an unknown tool: 42501');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), NULL, '{}')$$,
                 '22004', NULL, 'tool null: 22004');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.search', NULL)$$,
                 '22004', NULL, 'input null: 22004');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.search', '{}',
                   pg_temp.id('mc1'))$$, '23503', NULL, 'a model call of another run: 23503');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.search', '{}',
                   pg_temp.id('b_mc'))$$, '23503', NULL, 'another agent''s model call: 23503');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.search', '{}',
                   pg_catalog.gen_random_uuid())$$, 'P0002', NULL, 'an unknown model call: P0002');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_catalog.gen_random_uuid(), 't220.search', '{}')$$,
                 'P0002', NULL, 'an unknown run: P0002');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('b_run'), 't220.search', '{}')$$,
                 '23503', NULL, 'another agent''s run: 23503');
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('done'), 't220.search', '{}')$$,
                 '55000', NULL, 'a finished run: 55000');
RESET ROLE;
SET ROLE t220_rb;
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run2'), 't220.search', '{}')$$,
                 '42501', NULL, 'a runtime that does not host the agent: 42501');
RESET ROLE;
SELECT is(pg_temp.ledger_rows(), (SELECT n FROM n2), 'refused tool calls wrote nothing');
SELECT is(pg_temp.spent('run2'), '0/0/2 open', 'refused tool calls charged nothing');

SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES ('run_tc', agent_state.start_run(pg_temp.id('a'), budget => '{"tool_calls": 2}'));
SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run_tc'), 't220.search', '{}') \g /dev/null
RESET ROLE;
SELECT is(pg_temp.spent('run_tc'), '0/0/1 open', 'one tool call of two: open');
SET ROLE t220_ra;
SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run_tc'), 't220.search', '{}') \g /dev/null
RESET ROLE;
SELECT is(pg_temp.spent('run_tc'), '0/0/2 budget_exhausted', 'the tool call reaching the limit is recorded and exhausts');
SET ROLE t220_ra;
SELECT throws_ok($$SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run_tc'), 't220.search', '{}')$$,
                 '53400', NULL, 'a third tool call: 53400');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_calls AS c WHERE c.run_id = pg_temp.id('run_tc')), 2::bigint,
          'exactly the calls within the budget are recorded');

-- Wall time is checked on every charge too: the call after the limit passed is
-- recorded and exhausts the run.
SET ROLE t220_ra;
INSERT INTO pg_temp.ids VALUES ('run_wt', agent_state.start_run(pg_temp.id('a'), budget => '{"wall_time_seconds": 0.2}'));
SELECT pg_catalog.pg_sleep(0.3) \g /dev/null
SELECT agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run_wt'), 't220.search', '{}') \g /dev/null
RESET ROLE;
SELECT is(pg_temp.spent('run_wt'), '0/0/1 budget_exhausted',
          'a tool call after the wall-time limit passed is recorded and exhausts the run');

-- ---------------------------------------------------------------- record_tool_result
SET ROLE t220_ra;
SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc1'), '{"sent": true}', 'unconfirmed') \g /dev/null
RESET ROLE;
SELECT is(pg_temp.believed('tc1'), 'unconfirmed', 'an unconfirmed result is what is believed');
SET ROLE t220_ra;
SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc1'), '{"still": "unknown"}', 'unconfirmed') \g /dev/null
SELECT agent_state.record_tool_result(agent => pg_temp.id('a'), tool_call => pg_temp.id('tc1'),
                                      output => '{"id": 42}', status => 'ok') \g /dev/null
RESET ROLE;
SELECT results_eq(
    $$SELECT r.result_no, r.status, r.output FROM agent_state.tool_results AS r
      WHERE r.tool_call_id = pg_temp.id('tc1') ORDER BY r.result_no$$,
    $$VALUES (1, 'unconfirmed', '{"sent": true}'::jsonb), (2, 'unconfirmed', '{"still": "unknown"}'::jsonb),
             (3, 'ok', '{"id": 42}'::jsonb)$$,
    'results are appended and numbered; only an explicit later result changes what is believed');
SET ROLE t220_ra;
SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc2'), '{"e": "boom"}', 'error') \g /dev/null
RESET ROLE;
CREATE TEMP TABLE n3 AS SELECT pg_temp.ledger_rows() AS n;
SET ROLE t220_ra;
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc1'), '{}', 'error')$$,
                 '55000', NULL, 'a result after ok: 55000 (the outcome is settled)');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc2'), '{}', 'unconfirmed')$$,
                 '55000', NULL, 'a result after error: 55000');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_ok'), '{}', 'ok')$$,
                 '55000', NULL, 'a result after ok on a finished run: 55000');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_none'), '{}', 'pending')$$,
                 '22023', NULL, 'an unknown result status: 22023');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_none'), '{}', NULL)$$,
                 '22004', NULL, 'status null: 22004');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_none'), NULL, 'ok')$$,
                 '22004', NULL, 'output null: 22004');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), NULL, '{}', 'ok')$$,
                 '22004', NULL, 'tool_call null: 22004');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_catalog.gen_random_uuid(), '{}', 'ok')$$,
                 'P0002', NULL, 'an unknown tool call: P0002');
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('b_tc'), '{}', 'ok')$$,
                 '23503', NULL, 'another agent''s tool call: 23503');
RESET ROLE;
SET ROLE t220_rb;
SELECT throws_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_none'), '{}', 'ok')$$,
                 '42501', NULL, 'a runtime that does not host the agent: 42501');
RESET ROLE;
SELECT is(pg_temp.ledger_rows(), (SELECT n FROM n3), 'refused results wrote nothing');

-- Reality arrives late: unknown outcomes can be resolved after the run finished.
SET ROLE t220_ra;
SELECT lives_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_unconfirmed'),
                    '{"confirmed": true}', 'ok')$$,
                'an unconfirmed call of a finished run can be resolved');
SELECT lives_ok($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc_done_none'), '{}', 'unconfirmed')$$,
                'a call without a result on a finished run can get one');
RESET ROLE;
SELECT is(pg_temp.believed('tc_done_unconfirmed'), 'ok', 'the late result is what is believed now');

-- ---------------------------------------------------------------- direct DML
-- Direct DML as a superuser that does not own the schema: the owner's writes are
-- the product's own, which skip these insert triggers (the functions do their
-- work; tests/pgtap/520_own_writes.sql).
SET ROLE t220_dba;
SELECT throws_ok($$INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '23503', NULL, 'direct insert: a model call with another run''s snapshot: 23503');
SELECT throws_ok($$INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), pg_temp.id('b_snap'), 'p', 'm', '{}')$$,
                 '23503', NULL, 'direct insert: a model call with another agent''s snapshot: 23503');
SELECT throws_ok($$INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request)
                   VALUES (pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '53400', NULL, 'direct insert: a model call on an exhausted run: 53400');
SELECT throws_ok($$INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request)
                   VALUES (pg_temp.id('a'), pg_temp.id('done'), pg_temp.id('s_done'), 'p', 'm', '{}')$$,
                 '55000', NULL, 'direct insert: a model call on a finished run: 55000');
INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request, tokens, cost_usd)
VALUES (pg_temp.id('a'), pg_temp.id('run2'), pg_temp.id('s2'), 'p', 'm', '{}', 11, 0.5);
SELECT is(pg_temp.spent('run2'), '11/0.5/2 open', 'direct insert: a model call is charged whatever path wrote it');
SELECT throws_ok($$INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, tool_name, grant_revision, input)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), 't220.search', 1, '{}')$$,
                 '42501', NULL, 'direct insert: a tool call under a superseded grant revision: 42501');
SELECT throws_ok($$INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, tool_name, grant_revision, input)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), 't220.off', 2, '{}')$$,
                 '42501', NULL, 'direct insert: a tool call under a disabled grant: 42501');
SELECT throws_ok($$INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, tool_name, grant_revision, input)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), 't220.b_only', 1, '{}')$$,
                 '42501', NULL, 'direct insert: a tool call under another agent''s grant: 42501');
SELECT throws_ok($$INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, model_call_id, tool_name, grant_revision, input)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), pg_temp.id('mc1'), 't220.search', 2, '{}')$$,
                 '23503', NULL, 'direct insert: a tool call citing another run''s model call: 23503');
SELECT throws_ok($$INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, tool_name, grant_revision, input)
                   VALUES (pg_temp.id('a'), pg_temp.id('run_tc'), 't220.search', 2, '{}')$$,
                 '53400', NULL, 'direct insert: a tool call on an exhausted run: 53400');
INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, tool_name, grant_revision, input)
VALUES (pg_temp.id('a'), pg_temp.id('run2'), 't220.search', 2, '{}');
SELECT is(pg_temp.spent('run2'), '11/0.5/3 open', 'direct insert: a tool call is charged whatever path wrote it');
SELECT throws_ok($$INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
                   VALUES (pg_temp.id('a'), pg_temp.id('tc1'), 9, 'error', '{}')$$,
                 '55000', NULL, 'direct insert: a result after a final one: 55000');
INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
VALUES (pg_temp.id('a'), pg_temp.id('tc_done_none'), 1, 'ok', '{}');
SELECT is((SELECT pg_catalog.max(r.result_no) FROM agent_state.tool_results AS r
           WHERE r.tool_call_id = pg_temp.id('tc_done_none')), 2,
          'direct insert: result numbers come from the database');
RESET ROLE;
SELECT throws_ok($$UPDATE agent_state.model_calls SET tokens = 0 WHERE model_call_id = pg_temp.id('mc1')$$,
                 '42501', NULL, 'owner: model calls never change');
SELECT throws_ok($$DELETE FROM agent_state.model_calls WHERE model_call_id = pg_temp.id('mc_err')$$,
                 '42501', NULL, 'owner: model calls are never deleted');
SELECT throws_ok($$UPDATE agent_state.tool_calls SET input = '{}' WHERE tool_call_id = pg_temp.id('tc1')$$,
                 '42501', NULL, 'owner: tool calls never change');
SELECT throws_ok($$DELETE FROM agent_state.tool_calls WHERE tool_call_id = pg_temp.id('tc_done_none')$$,
                 '42501', NULL, 'owner: tool calls are never deleted');
SELECT throws_ok($$UPDATE agent_state.tool_results SET status = 'ok' WHERE tool_call_id = pg_temp.id('tc2')$$,
                 '42501', NULL, 'owner: tool results never change (an error never silently becomes ok)');
SELECT throws_ok($$DELETE FROM agent_state.tool_results WHERE tool_call_id = pg_temp.id('tc1') AND result_no = 3$$,
                 '42501', NULL, 'owner: tool results are never deleted (ok never reverts to unconfirmed)');
SET LOCAL client_min_messages = warning;
SELECT throws_ok($$TRUNCATE agent_state.tool_results$$, '42501', NULL, 'owner: tool_results is never truncated');
SELECT throws_ok($$TRUNCATE agent_state.tool_calls CASCADE$$, '42501', NULL, 'owner: tool_calls is never truncated');
SELECT throws_ok($$TRUNCATE agent_state.model_calls CASCADE$$, '42501', NULL, 'owner: model_calls is never truncated');

GRANT SELECT, INSERT, UPDATE, DELETE ON agent_state.model_calls, agent_state.tool_calls, agent_state.tool_results
    TO t220_ra, t220_rb;
SET ROLE t220_rb;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_calls AS c WHERE c.runtime_agent_id = pg_temp.id('a')),
          0::bigint, 'runtime with table privileges sees no tool calls of an agent it does not host');
SELECT throws_ok($$INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
                   VALUES (pg_temp.id('a'), pg_temp.id('tc_done_unconfirmed'), 0, 'error', '{}')$$,
                 '42501', NULL, 'runtime with table privileges: no result for another agent''s call (RLS)');
SELECT throws_ok($$INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
                   VALUES (pg_temp.id('b'), pg_temp.id('tc_done_unconfirmed'), 0, 'error', '{}')$$,
                 '23503', NULL, 'runtime with table privileges: A''s call under B''s id: 23503');
SELECT throws_ok($$INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request)
                   VALUES (pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '42501', NULL, 'runtime with table privileges: another agent''s exhausted run is not even revealed');
SELECT throws_ok($$INSERT INTO agent_state.tool_calls (runtime_agent_id, run_id, tool_name, grant_revision, input)
                   VALUES (pg_temp.id('a'), pg_temp.id('run2'), 't220.search', 2, '{}')$$,
                 '42501', NULL, 'runtime with table privileges: no tool call for another agent');
RESET ROLE;
SET ROLE t220_ra;
SELECT throws_ok($$UPDATE agent_state.tool_results SET status = 'error' WHERE tool_call_id = pg_temp.id('tc1')$$,
                 '42501', NULL, 'runtime with table privileges: results never change');
SELECT throws_ok($$INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request)
                   VALUES (pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}')$$,
                 '53400', NULL, 'runtime with table privileges: no model call on an exhausted run');
RESET ROLE;
SELECT is(pg_temp.believed('tc1'), 'ok', 'after every attack the believed outcome is intact');

SELECT * FROM finish();
ROLLBACK;
