-- Runs: start_run, finish_run, continue_run; budgets; who may call them; direct
-- DML attacks on the run row (spent, status, limits) for every role.
BEGIN;
SELECT plan(111);

CREATE ROLE t200_op IN ROLE agent_state_operator;
CREATE ROLE t200_ra IN ROLE agent_state_runtime;
CREATE ROLE t200_rb IN ROLE agent_state_runtime;
CREATE ROLE t200_out;
\ir _setup.sql
CREATE FUNCTION pg_temp.runs() RETURNS bigint LANGUAGE sql STABLE
AS $$ SELECT pg_catalog.count(*) FROM agent_state.runs $$;
CREATE FUNCTION pg_temp.status(key text) RETURNS text LANGUAGE sql STABLE
AS $$ SELECT r.status FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id(key) $$;

SET ROLE t200_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t200-a')),
    ('b', agent_state.create_agent('t200-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't200_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't200_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1')),
    ('conv2', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C2')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C1'));
INSERT INTO pg_temp.ids VALUES
    ('msg', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('ann'), 'hi',
                                       ARRAY[pg_temp.id('ann')])),
    ('b_msg', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'), 'hi',
                                         ARRAY[pg_temp.id('b_actor')]));
RESET ROLE;

-- ---------------------------------------------------------------- catalog
SELECT has_table('agent_state', 'runs', 'table agent_state.runs exists');
SELECT col_is_pk('agent_state', 'runs', ARRAY['runtime_agent_id', 'run_id'], 'runs key is (agent, run)');
SELECT fk_ok('agent_state', 'runs', ARRAY['runtime_agent_id', 'conversation_id'],
             'agent_state', 'conversations', ARRAY['runtime_agent_id', 'conversation_id'],
             'a run''s conversation is a composite foreign key');
SELECT fk_ok('agent_state', 'runs', ARRAY['runtime_agent_id', 'trigger_message_id'],
             'agent_state', 'messages', ARRAY['runtime_agent_id', 'message_id'],
             'a run''s trigger message is a composite foreign key');
SELECT fk_ok('agent_state', 'runs', ARRAY['runtime_agent_id', 'continued_from'],
             'agent_state', 'runs', ARRAY['runtime_agent_id', 'run_id'],
             'continued_from is a composite foreign key');
SELECT is_definer('agent_state', f, 'agent_state.' || f || ' is SECURITY DEFINER')
FROM pg_catalog.unnest(ARRAY['start_run', 'finish_run', 'continue_run']) AS f;
SELECT ok(pg_catalog.has_function_privilege('agent_state_runtime', p.sig, 'EXECUTE'),
          'runtimes may execute ' || p.sig)
FROM pg_catalog.unnest(ARRAY['agent_state.start_run(uuid,uuid,uuid,jsonb)',
                             'agent_state.finish_run(uuid,uuid,text,jsonb)',
                             'agent_state.continue_run(uuid,uuid,jsonb,jsonb)']) AS p (sig);
SELECT ok(NOT pg_catalog.has_function_privilege('t200_out', 'agent_state.start_run(uuid,uuid,uuid,jsonb)',
                                                'EXECUTE'),
          'a role outside both groups may not execute start_run');
SELECT policies_are('agent_state', 'runs', ARRAY['agent_scope', 'owner_bypass'],
                    'runs: agent scope and owner bypass policies');

-- ---------------------------------------------------------------- start_run
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('r_plain', agent_state.start_run(pg_temp.id('a')));
RESET ROLE;
SELECT results_eq(
    $$SELECT r.status, r.conversation_id, r.trigger_message_id, r.continued_from, r.chain_root,
             r.limit_tokens, r.limit_cost_usd, r.limit_tool_calls, r.limit_wall_time_seconds,
             r.spent_tokens, r.spent_cost_usd, r.spent_tool_calls, r.created_by::text COLLATE "default"
      FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('r_plain')$$,
    $$VALUES ('open', NULL::uuid, NULL::uuid, NULL::uuid, pg_temp.id('r_plain'),
              NULL::numeric, NULL::numeric, NULL::bigint, NULL::numeric, 0::numeric, 0::numeric, 0::bigint,
              't200_ra')$$,
    'start_run with defaults: an open run without limits, stamped with the caller');

SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('r_full', agent_state.start_run(
    agent => pg_temp.id('a'), conversation => pg_temp.id('conv'), trigger_message => pg_temp.id('msg'),
    budget => '{"tokens": 200000, "cost_usd": 2.5, "tool_calls": 40, "wall_time_seconds": 3600}'));
INSERT INTO pg_temp.ids VALUES ('r_inferred', agent_state.start_run(
    pg_temp.id('a'), trigger_message => pg_temp.id('msg')));
RESET ROLE;
SELECT results_eq(
    $$SELECT r.conversation_id, r.trigger_message_id, r.limit_tokens, r.limit_cost_usd, r.limit_tool_calls,
             r.limit_wall_time_seconds
      FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('r_full')$$,
    $$VALUES (pg_temp.id('conv'), pg_temp.id('msg'), 200000::numeric, 2.5::numeric, 40::bigint, 3600::numeric)$$,
    'start_run stores conversation, trigger message and every budget limit');
SELECT is((SELECT r.conversation_id FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('r_inferred')),
          pg_temp.id('conv'), 'without conversation, the trigger message''s conversation is the run''s');

CREATE TEMP TABLE n0 AS SELECT pg_temp.runs() AS n;
SET ROLE t200_rb;
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'))$$, '42501', NULL,
                 'a runtime that does not host the agent: 42501');
RESET ROLE;
SET ROLE t200_out;
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'))$$, '42501', NULL,
                 'a role outside both groups: 42501');
RESET ROLE;
SET ROLE t200_ra;
SELECT throws_ok($$SELECT agent_state.start_run(NULL)$$, '22004', 'agent: must not be null', 'agent null: 22004');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => NULL)$$, '22004',
                 'budget: must not be null', 'budget null: 22004');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '[]')$$, '22023',
                 'budget: must be a JSON object, not array', 'budget an array: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '5')$$, '22023', NULL,
                 'budget a number: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokenz": 5}')$$, '22023',
                 'budget.tokenz: unknown budget key; known keys are tokens, cost_usd, tool_calls, wall_time_seconds',
                 'an unknown budget key: 22023 naming it');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 0}')$$, '22023',
                 NULL, 'tokens 0: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": -5}')$$, '22023',
                 NULL, 'tokens negative: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 10.5}')$$, '22023',
                 'budget.tokens: must be a positive integer of at most 1000000000000000, not 10.5',
                 'tokens not an integer: 22023 naming the key');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": "100"}')$$, '22023',
                 NULL, 'tokens a string: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": null}')$$, '22023',
                 NULL, 'tokens JSON null: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 1e30}')$$, '22023',
                 NULL, 'tokens beyond the documented maximum: 22023, not an overflow');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tool_calls": 2.5}')$$, '22023',
                 NULL, 'tool_calls not an integer: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"tool_calls": 1e12}')$$, '22023',
                 NULL, 'tool_calls beyond the maximum: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"cost_usd": 0}')$$, '22023',
                 NULL, 'cost_usd 0: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"cost_usd": true}')$$, '22023',
                 NULL, 'cost_usd a boolean: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), budget => '{"wall_time_seconds": -1}')$$,
                 '22023', NULL, 'wall_time_seconds negative: 22023');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), pg_catalog.gen_random_uuid())$$, 'P0002',
                 NULL, 'an unknown conversation: P0002');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), pg_temp.id('b_conv'))$$, '23503',
                 NULL, 'another agent''s conversation: 23503');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), pg_catalog.gen_random_uuid())$$,
                 'P0002', NULL, 'an unknown trigger message: P0002');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), NULL, pg_temp.id('b_msg'))$$, '23503',
                 NULL, 'another agent''s trigger message: 23503');
SELECT throws_ok($$SELECT agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv2'), pg_temp.id('msg'))$$,
                 '22023', pg_catalog.format('trigger_message: message %s is not in conversation %s',
                                            pg_temp.id('msg'), pg_temp.id('conv2')),
                 'a trigger message from another conversation: 22023');
RESET ROLE;
SELECT is(pg_temp.runs(), (SELECT n FROM n0), 'refused start_run calls wrote nothing');

-- ---------------------------------------------------------------- finish_run
SET ROLE t200_ra;
INSERT INTO pg_temp.ids
SELECT 'f_' || o, agent_state.start_run(pg_temp.id('a'))
FROM pg_catalog.unnest(ARRAY['succeeded', 'failed', 'cancelled', 'handed_off']) AS o;
SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_' || o), o, pg_catalog.jsonb_build_object('why', o))
FROM pg_catalog.unnest(ARRAY['succeeded', 'failed', 'cancelled', 'handed_off']) AS o \g /dev/null
RESET ROLE;
SELECT results_eq(
    $$SELECT r.status, r.detail ->> 'why', r.finished_at IS NOT NULL, r.finished_by::text COLLATE "default"
      FROM agent_state.runs AS r
      WHERE r.run_id IN (pg_temp.id('f_succeeded'), pg_temp.id('f_failed'), pg_temp.id('f_cancelled'),
                         pg_temp.id('f_handed_off'))
      ORDER BY r.status$$,
    $$VALUES ('cancelled', 'cancelled', true, 't200_ra'), ('failed', 'failed', true, 't200_ra'),
             ('handed_off', 'handed_off', true, 't200_ra'), ('succeeded', 'succeeded', true, 't200_ra')$$,
    'finish_run records each outcome with its detail, when and by whom');

SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('f_open', agent_state.start_run(pg_temp.id('a')));
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_succeeded'), 'failed')$$,
                 '55000', NULL, 'finishing a finished run: 55000');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_failed'), 'failed')$$,
                 '55000', NULL, 'finishing a finished run with the same outcome: 55000');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), 'done')$$,
                 '22023', NULL, 'an unknown outcome: 22023');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), 'budget_exhausted')$$,
                 '22023', NULL, 'budget_exhausted is a status, not an outcome: 22023');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), 'open')$$,
                 '22023', NULL, 'open is not an outcome: 22023');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), NULL)$$,
                 '22004', NULL, 'outcome null: 22004');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), 'failed', '[1]')$$,
                 '22023', NULL, 'detail not an object: 22023');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), 'failed', NULL)$$,
                 '22004', NULL, 'detail null: 22004');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), NULL, 'failed')$$,
                 '22004', NULL, 'run null: 22004');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_catalog.gen_random_uuid(), 'failed')$$,
                 'P0002', NULL, 'an unknown run: P0002');
RESET ROLE;
SET ROLE t200_rb;
INSERT INTO pg_temp.ids VALUES ('b_run', agent_state.start_run(pg_temp.id('b')));
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('b'), pg_temp.id('f_open'), 'failed')$$,
                 '23503', NULL, 'another agent''s run named under my agent: 23503');
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_open'), 'failed')$$,
                 '42501', NULL, 'finishing a run of an agent I do not host: 42501');
RESET ROLE;
SELECT is(pg_temp.status('f_open'), 'open', 'refused finish_run calls left the run open');

-- A budget_exhausted run can still be finished.
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('f_exh', agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 10}'));
RESET ROLE;
UPDATE agent_state.runs SET spent_tokens = 10 WHERE run_id = pg_temp.id('f_exh');
SELECT is(pg_temp.status('f_exh'), 'budget_exhausted', 'spending that reaches a limit marks the run exhausted');
SET ROLE t200_ra;
SELECT lives_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('f_exh'), 'failed')$$,
                'a budget_exhausted run can be finished');
RESET ROLE;
SELECT is(pg_temp.status('f_exh'), 'failed', 'the exhausted run is now failed');

-- ---------------------------------------------------------------- continue_run
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('c1', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('msg'),
                                                           '{"tokens": 100, "tool_calls": 5, "cost_usd": 1}'));
RESET ROLE;
UPDATE agent_state.runs SET spent_tokens = 40, spent_tool_calls = 2, spent_cost_usd = 0.25
WHERE run_id = pg_temp.id('c1');
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('c2', agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c1'), '{"next": "step 3"}'));
RESET ROLE;
SELECT results_eq(
    $$SELECT r.status, r.continued_from, r.chain_root, r.conversation_id, r.trigger_message_id, r.task_context,
             r.spent_tokens, r.spent_tool_calls, r.spent_cost_usd, r.limit_tokens, r.limit_tool_calls, r.limit_cost_usd
      FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('c2')$$,
    $$VALUES ('open', pg_temp.id('c1'), pg_temp.id('c1'), pg_temp.id('conv'), pg_temp.id('msg'),
              '{"next": "step 3"}'::jsonb, 40::numeric, 2::bigint, 0.25::numeric, 100::numeric, 5::bigint, 1::numeric)$$,
    'continue_run: a new open run in the chain, spent carried over, limits kept (budget null)');
SELECT results_eq(
    $$SELECT r.status, r.detail FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('c1')$$,
    $$VALUES ('handed_off', pg_catalog.jsonb_build_object('continued_by', pg_temp.id('c2')))$$,
    'the open run it continues is finished as handed_off, naming its continuation');
SELECT is((SELECT c.chain_started_at = o.chain_started_at
           FROM agent_state.runs AS c, agent_state.runs AS o
           WHERE c.run_id = pg_temp.id('c2') AND o.run_id = pg_temp.id('c1')),
          true, 'wall time of the continuation counts from the start of the chain');

CREATE TEMP TABLE n1 AS SELECT pg_temp.runs() AS n;
SET ROLE t200_ra;
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c1'), '{}')$$, '55000', NULL,
                 'a run is continued at most once: 55000');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '{}', '{"tokens": 40}')$$,
                 '22023', 'budget.tokens: limit 40 is not above the 40 tokens already spent',
                 'a token limit at what is already spent: 22023 (a continuation never resets spending)');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '{}', '{"tool_calls": 1}')$$,
                 '22023', 'budget.tool_calls: limit 1 is not above the 2 tool calls already made',
                 'a tool_calls limit below what is spent: 22023');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '{}', '{"cost_usd": 0.25}')$$,
                 '22023', 'budget.cost_usd: limit 0.25 is not above the 0.25 already spent',
                 'a cost limit at what is spent: 22023');
SELECT throws_like($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '{}',
                                                     '{"wall_time_seconds": 0.000001}')$$,
                   'budget.wall_time_seconds: limit 0.000001 is not above the %.___ seconds since the task started',
                   'a wall time limit already passed since the chain started: 22023');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '{}', '{"budget": 1}')$$,
                 '22023', NULL, 'an unknown budget key: 22023');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), NULL)$$,
                 '22004', NULL, 'task_context null: 22004');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '"text"')$$,
                 '22023', NULL, 'task_context a JSON string: 22023');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_catalog.gen_random_uuid(), '{}')$$,
                 'P0002', NULL, 'continuing an unknown run: P0002');
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('b_run'), '{}')$$,
                 '23503', NULL, 'continuing another agent''s run: 23503');
RESET ROLE;
SET ROLE t200_rb;
SELECT throws_ok($$SELECT agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '{}')$$,
                 '42501', NULL, 'continuing a run of an agent I do not host: 42501');
RESET ROLE;
SELECT is(pg_temp.runs(), (SELECT n FROM n1), 'refused continue_run calls wrote nothing');
SELECT is(pg_temp.status('c2'), 'open', 'refused continue_run calls left the run open');

SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('c3', agent_state.continue_run(pg_temp.id('a'), pg_temp.id('c2'), '[]',
                                                               '{"tokens": 1000, "cost_usd": 0.5}'));
RESET ROLE;
SELECT results_eq(
    $$SELECT r.limit_tokens, r.limit_cost_usd, r.limit_tool_calls, r.spent_tokens, r.chain_root
      FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('c3')$$,
    $$VALUES (1000::numeric, 0.5::numeric, 5::bigint, 40::numeric, pg_temp.id('c1'))$$,
    'budget keys given replace those limits (raise or lower above spent); others are kept');

-- A finished run can be continued; its outcome stays.
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('c_failed_next', agent_state.continue_run(pg_temp.id('a'), pg_temp.id('f_failed'), '{}'));
RESET ROLE;
SELECT is(pg_temp.status('f_failed'), 'failed', 'continuing a failed run keeps its outcome');
SELECT is(pg_temp.status('c_failed_next'), 'open', 'the continuation of a failed run is open');

-- An exhausted run continued without new limits starts exhausted; with a higher
-- limit it is open.
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('e1', agent_state.start_run(pg_temp.id('a'), budget => '{"tokens": 10}'));
RESET ROLE;
UPDATE agent_state.runs SET spent_tokens = 12 WHERE run_id = pg_temp.id('e1');
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('e2', agent_state.continue_run(pg_temp.id('a'), pg_temp.id('e1'), '{}'));
RESET ROLE;
SELECT is(pg_temp.status('e2'), 'budget_exhausted', 'continued with the same limits it starts exhausted');
SET ROLE t200_ra;
INSERT INTO pg_temp.ids VALUES ('e3', agent_state.continue_run(pg_temp.id('a'), pg_temp.id('e2'), '{}',
                                                               '{"tokens": 20}'));
RESET ROLE;
SELECT is(pg_temp.status('e1'), 'handed_off', 'an exhausted run continued is finished as handed_off');
SELECT is(pg_temp.status('e2'), 'handed_off', 'an exhausted continuation continued in turn is handed_off');
SELECT is(pg_temp.status('e3'), 'open', 'continued with a higher limit it is open');
SELECT is((SELECT r.spent_tokens FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('e3')), 12::numeric,
          'spending carries over through the whole chain');

-- ---------------------------------------------------------------- direct DML on runs
-- As the owner (superuser here) and as a runtime granted table privileges: the
-- triggers hold for every role.
SELECT throws_ok($$UPDATE agent_state.runs SET spent_tokens = 0 WHERE run_id = pg_temp.id('c3')$$, '42501',
                 'runs: spent budget never decreases', 'owner: spent tokens never decrease');
SELECT throws_ok($$UPDATE agent_state.runs SET spent_cost_usd = 0 WHERE run_id = pg_temp.id('c3')$$, '42501',
                 NULL, 'owner: spent cost never decreases');
SELECT throws_ok($$UPDATE agent_state.runs SET spent_tool_calls = 0 WHERE run_id = pg_temp.id('c3')$$, '42501',
                 NULL, 'owner: spent tool calls never decrease');
SELECT throws_ok($$UPDATE agent_state.runs SET status = 'open' WHERE run_id = pg_temp.id('f_succeeded')$$, '55000',
                 NULL, 'owner: a finished run never reopens');
SELECT throws_ok($$UPDATE agent_state.runs SET status = 'failed' WHERE run_id = pg_temp.id('f_succeeded')$$,
                 '55000', NULL, 'owner: a finished run''s outcome never changes');
SELECT throws_ok($$UPDATE agent_state.runs SET spent_tokens = spent_tokens + 1 WHERE run_id = pg_temp.id('c1')$$,
                 '55000', NULL, 'owner: a finished run is never charged');
SELECT throws_ok($$UPDATE agent_state.runs SET status = 'open' WHERE run_id = pg_temp.id('e2')$$, '55000',
                 NULL, 'owner: an exhausted run never reopens');
SELECT throws_ok($$UPDATE agent_state.runs SET limit_tokens = 1000000 WHERE run_id = pg_temp.id('e2')$$, '42501',
                 NULL, 'owner: limits of a run never change');
SELECT throws_ok($$UPDATE agent_state.runs SET conversation_id = NULL, trigger_message_id = NULL
                   WHERE run_id = pg_temp.id('c3')$$, '42501', NULL, 'owner: a run''s context never changes');
SELECT throws_ok($$UPDATE agent_state.runs SET chain_started_at = now() WHERE run_id = pg_temp.id('c3')$$, '42501',
                 NULL, 'owner: the chain''s start (wall time) never changes');
SELECT throws_ok($$UPDATE agent_state.runs SET finished_at = now() - interval '1 day'
                   WHERE run_id = pg_temp.id('f_failed')$$, '55000', NULL,
                 'owner: finish stamps of a finished run never change');
SELECT throws_ok($$DELETE FROM agent_state.runs WHERE run_id = pg_temp.id('r_plain')$$, '42501', NULL,
                 'owner: runs are never deleted');
SET LOCAL client_min_messages = warning;
SELECT throws_ok($$TRUNCATE agent_state.runs CASCADE$$, '42501', NULL, 'owner: runs are never truncated');
SELECT throws_ok($$INSERT INTO agent_state.runs (runtime_agent_id, continued_from, spent_tokens)
                   VALUES (pg_temp.id('a'), pg_temp.id('c3'), 0)$$, '23514',
                 'budget: a continuation never resets spent budget',
                 'owner: a continuation inserted with less spending is refused');
SELECT throws_ok($$INSERT INTO agent_state.runs
                       (runtime_agent_id, continued_from, spent_tokens, spent_tool_calls, spent_cost_usd)
                   VALUES (pg_temp.id('a'), pg_temp.id('c1'), 40, 2, 0.25)$$, '23505', NULL,
                 'owner: a second continuation of a run is refused (unique)');
SELECT throws_ok($$INSERT INTO agent_state.runs (runtime_agent_id, status) VALUES (pg_temp.id('a'), 'succeeded')$$,
                 '22023', NULL, 'owner: a run cannot be inserted finished');
SELECT throws_ok($$INSERT INTO agent_state.runs (runtime_agent_id, continued_from)
                   VALUES (pg_temp.id('b'), pg_temp.id('c3'))$$, '23503', NULL,
                 'owner: continuing another agent''s run by direct insert: 23503');
SELECT throws_ok($$INSERT INTO agent_state.runs (runtime_agent_id, conversation_id)
                   VALUES (pg_temp.id('a'), pg_temp.id('b_conv'))$$, '23503', NULL,
                 'owner: a run in another agent''s conversation: 23503');
SELECT throws_ok($$INSERT INTO agent_state.runs (runtime_agent_id, conversation_id, trigger_message_id)
                   VALUES (pg_temp.id('a'), pg_temp.id('conv2'), pg_temp.id('msg'))$$, '22023',
                 pg_catalog.format('trigger_message: message %s is not in conversation %s',
                                   pg_temp.id('msg'), pg_temp.id('conv2')),
                 'owner: a trigger message outside the run''s conversation is refused, as start_run refuses it');
-- Direct insert of a chain head: chain columns come from the database.
WITH d AS (
    INSERT INTO agent_state.runs (runtime_agent_id, chain_root, chain_started_at, spent_tokens, limit_tokens)
    VALUES (pg_temp.id('a'), pg_catalog.gen_random_uuid(), '2000-01-01', 5, 5)
    RETURNING run_id
)
INSERT INTO pg_temp.ids SELECT 'direct', d.run_id FROM d;
SELECT results_eq(
    $$SELECT r.chain_root = r.run_id, r.chain_started_at > now() - interval '1 hour', r.status
      FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('direct')$$,
    $$VALUES (true, true, 'budget_exhausted')$$,
    'owner: a direct insert cannot choose the chain or backdate its start; a spent limit starts exhausted');

GRANT SELECT, INSERT, UPDATE, DELETE ON agent_state.runs TO t200_ra, t200_rb;
SET ROLE t200_ra;
SELECT throws_ok($$UPDATE agent_state.runs SET status = 'open' WHERE run_id = pg_temp.id('f_succeeded')$$, '55000',
                 NULL, 'runtime with table privileges: a finished run never reopens');
SELECT throws_ok($$UPDATE agent_state.runs SET spent_tokens = 0 WHERE run_id = pg_temp.id('c3')$$, '42501',
                 NULL, 'runtime with table privileges: spent never decreases');
SELECT throws_ok($$DELETE FROM agent_state.runs WHERE run_id = pg_temp.id('c3')$$, '42501',
                 NULL, 'runtime with table privileges: runs are never deleted');
SELECT throws_ok($$INSERT INTO agent_state.runs (runtime_agent_id) VALUES (pg_temp.id('b'))$$, '42501',
                 NULL, 'runtime with table privileges: no run for an agent it does not host (RLS)');
RESET ROLE;
SET ROLE t200_rb;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.runs AS r WHERE r.runtime_agent_id = pg_temp.id('a')),
          0::bigint, 'runtime with table privileges sees no runs of an agent it does not host');
UPDATE agent_state.runs SET status = 'cancelled' WHERE run_id = pg_temp.id('c3');
RESET ROLE;
SELECT is(pg_temp.status('c3'), 'open', '... and cannot finish them');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('c3')), 1::bigint,
          'the attacked run is still there');
SELECT is((SELECT r.spent_tokens FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('c3')), 40::numeric,
          'the attacked run''s spending is intact');

-- The columns a run may not change, derived from the catalog (every column but
-- status, the spent_* and the finish columns): the update trigger's function and
-- its WHEN clause (the test that lets a plain charge skip it) name each one, so a
-- column added to runs without adding it there fails here.
SELECT is_empty($$
    SELECT a.attname FROM pg_catalog.pg_attribute AS a
    WHERE a.attrelid = 'agent_state.runs'::regclass AND a.attnum > 0 AND NOT a.attisdropped
      AND a.attname NOT IN ('status', 'spent_tokens', 'spent_cost_usd', 'spent_tool_calls',
                            'detail', 'finished_at', 'finished_by')
      AND pg_catalog.strpos(
          (SELECT p.prosrc FROM pg_catalog.pg_proc AS p
           WHERE p.oid = 'agent_state._tg_run_before_update()'::regprocedure),
          'NEW.' || a.attname || ',') = 0
      AND pg_catalog.strpos(
          (SELECT p.prosrc FROM pg_catalog.pg_proc AS p
           WHERE p.oid = 'agent_state._tg_run_before_update()'::regprocedure),
          'NEW.' || a.attname || ')') = 0
$$, '_tg_run_before_update refuses a change of every column but the mutable ones');
SELECT is_empty($$
    SELECT a.attname FROM pg_catalog.pg_attribute AS a
    WHERE a.attrelid = 'agent_state.runs'::regclass AND a.attnum > 0 AND NOT a.attisdropped
      AND a.attname NOT IN ('status', 'spent_tokens', 'spent_cost_usd', 'spent_tool_calls',
                            'detail', 'finished_at', 'finished_by')
      AND pg_catalog.strpos(
          coalesce((SELECT pg_catalog.pg_get_triggerdef(g.oid) FROM pg_catalog.pg_trigger AS g
                    WHERE g.tgrelid = 'agent_state.runs'::regclass AND g.tgname = 'runs_before_update'), ''),
          'new.' || a.attname || ' IS DISTINCT FROM old.' || a.attname) = 0
$$, 'runs_before_update''s WHEN clause sends a change of each of them to that function');

SELECT * FROM finish();
ROLLBACK;
