-- Discovery (SPEC section 3): list_agents, find_agent, list_conversations,
-- list_runs, list_memories show a role what it may act for right now, nothing
-- more, and find_agent tells nothing about agents it may not act for.
BEGIN;
SELECT plan(26);

\ir _setup.sql

CREATE ROLE t490_op IN ROLE agent_state_operator;
CREATE ROLE t490_rt IN ROLE agent_state_runtime;
CREATE ROLE t490_idle IN ROLE agent_state_runtime;
CREATE ROLE t490_none;

SET ROLE t490_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t490-a', 'Agent A'));
INSERT INTO pg_temp.ids VALUES ('b', agent_state.create_agent('t490-b'));
SELECT agent_state.revise_profile(pg_temp.id('a'), 'Agent A, renamed') \g /dev/null
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't490_rt') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'c1', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1');
INSERT INTO pg_temp.ids SELECT 'c2', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C2');
INSERT INTO pg_temp.ids SELECT 'r1', agent_state.start_run(pg_temp.id('a'), pg_temp.id('c1'));
INSERT INTO pg_temp.ids SELECT 'r2', agent_state.start_run(pg_temp.id('a'));
INSERT INTO pg_temp.ids SELECT 'tea', n.entry FROM agent_state.note(pg_temp.id('a'), 'likes tea') AS n;
INSERT INTO pg_temp.ids SELECT 'plan', n.entry FROM agent_state.note(pg_temp.id('a'), 'the plan') AS n;
INSERT INTO pg_temp.ids SELECT 'new', n.entry FROM agent_state.note(pg_temp.id('a'), 'newest') AS n;
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('plan')) \g /dev/null
SELECT agent_state.note(pg_temp.id('b'), 'b only') \g /dev/null

-- ------------------------------------------------ list_agents, find_agent
SELECT ok((SELECT count(*) FROM agent_state.list_agents() WHERE agent IN (pg_temp.id('a'), pg_temp.id('b'))) = 2,
          'an operator lists every agent');
SELECT is((SELECT display_name FROM agent_state.list_agents() WHERE agent = pg_temp.id('a')), 'Agent A, renamed',
          'with its current display name');
SELECT is(agent_state.find_agent('t490-b'), pg_temp.id('b'), 'an operator finds any agent by handle');
SELECT throws_ok($$SELECT agent_state.find_agent('t490-nobody')$$, 'P0002', NULL, 'an unknown handle: P0002');
SELECT throws_ok($$SELECT agent_state.find_agent(NULL)$$, '22004', NULL, 'a null handle: 22004');
RESET ROLE;

SET ROLE t490_rt;
SELECT results_eq($$SELECT agent, handle FROM agent_state.list_agents()$$,
                  $$VALUES (pg_temp.id('a'), 't490-a'::text)$$, 'a runtime lists only the agents it hosts');
SELECT is(agent_state.find_agent('t490-a'), pg_temp.id('a'), 'a runtime finds an agent it hosts');
SELECT throws_ok($$SELECT agent_state.find_agent('t490-b')$$, 'P0002',
                 'handle: no agent ''t490-b'' that role t490_rt may act for',
                 'an agent it does not host: P0002');
SELECT throws_ok($$SELECT agent_state.find_agent('t490-nobody')$$, 'P0002',
                 'handle: no agent ''t490-nobody'' that role t490_rt may act for',
                 'the same error, word for word, for an agent that does not exist');
RESET ROLE;
SET ROLE t490_idle;
SELECT is_empty($$SELECT * FROM agent_state.list_agents()$$, 'a runtime hosting nothing lists nothing');
RESET ROLE;
SET ROLE t490_none;
SELECT throws_ok($$SELECT * FROM agent_state.list_agents()$$, '42501', NULL,
                 'a role in neither group may not call it at all');
RESET ROLE;
SET ROLE t490_op;
SELECT agent_state.revoke_hosting(pg_temp.id('a'), 't490_rt') \g /dev/null
RESET ROLE;
SET ROLE t490_rt;
SELECT is_empty($$SELECT * FROM agent_state.list_agents()$$, 'hosting revoked: the agent is no longer listed');
SELECT throws_ok($$SELECT agent_state.find_agent('t490-a')$$, 'P0002', NULL, 'nor found');
RESET ROLE;
SET ROLE t490_op;
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't490_rt') \g /dev/null
RESET ROLE;

-- ------------------------------------------------ per agent
SET ROLE t490_rt;
SELECT results_eq($$SELECT conversation FROM agent_state.list_conversations(pg_temp.id('a'))$$,
                  $$VALUES (pg_temp.id('c2')), (pg_temp.id('c1'))$$, 'conversations, newest first');
SELECT results_eq($$SELECT conversation FROM agent_state.list_conversations(pg_temp.id('a'), max_results => 1)$$,
                  $$VALUES (pg_temp.id('c2'))$$, 'cut to max_results');
SELECT results_eq($$SELECT run, conversation, status FROM agent_state.list_runs(pg_temp.id('a'))$$,
                  $$VALUES (pg_temp.id('r2'), NULL::uuid, 'open'::text), (pg_temp.id('r1'), pg_temp.id('c1'), 'open')$$,
                  'runs, newest first');
SELECT results_eq($$SELECT entry, body FROM agent_state.list_memories(pg_temp.id('a'))$$,
                  $$VALUES (pg_temp.id('new'), 'newest'::text), (pg_temp.id('tea'), 'likes tea')$$,
                  'live memory entries, newest first');
SELECT results_eq($$SELECT entry, live, revision FROM agent_state.list_memories(pg_temp.id('a'), include_forgotten => true)$$,
                  $$VALUES (pg_temp.id('new'), true, 1), (pg_temp.id('plan'), false, 2), (pg_temp.id('tea'), true, 1)$$,
                  'with include_forgotten, forgotten entries too, in their current state');
SELECT throws_ok($$SELECT * FROM agent_state.list_memories(pg_temp.id('b'))$$, '42501', NULL,
                 'another agent''s memories: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.list_runs(pg_temp.id('b'))$$, '42501', NULL,
                 'another agent''s runs: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.list_conversations(pg_temp.id('b'))$$, '42501', NULL,
                 'another agent''s conversations: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.list_conversations(pg_temp.id('a'), max_results => 0)$$, '22023',
                 'max_results: must be from 1 to 10000', 'max_results 0: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.list_runs(pg_temp.id('a'), max_results => NULL)$$, '22004',
                 'max_results: must not be null', 'max_results null: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.list_memories(pg_temp.id('a'), include_forgotten => NULL)$$, '22004',
                 NULL, 'include_forgotten null: 22004');
RESET ROLE;
SET ROLE t490_op;
SELECT throws_ok($$SELECT * FROM agent_state.list_memories(gen_random_uuid())$$, 'P0002', NULL,
                 'an operator asking for an unknown agent: P0002');
RESET ROLE;

-- ------------------------------------------------ read-only transactions
SET ROLE t490_rt;
SET TRANSACTION READ ONLY;
SELECT lives_ok($$SELECT count(*) FROM agent_state.list_agents(), agent_state.list_memories(pg_temp.id('a')),
                  agent_state.list_runs(pg_temp.id('a')), agent_state.list_conversations(pg_temp.id('a')),
                  agent_state.find_agent('t490-a')$$,
                'every discovery verb works in a read-only transaction');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
