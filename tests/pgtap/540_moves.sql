-- A shard's side of moving an agent (SPEC section 15): move_step and
-- shard_inventory on one database, without a router (tests/python/test_router.py
-- drives whole moves through one). A frozen agent answers 55006 and writes
-- nothing; a retired copy answers as for an unknown agent; a step in the wrong
-- state is 55000; both functions are for operators only.
BEGIN;
SELECT plan(22);

\ir _setup.sql

CREATE ROLE t540_op IN ROLE agent_state_operator;
CREATE ROLE t540_rt IN ROLE agent_state_runtime;

SET ROLE t540_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t540-a'));
INSERT INTO pg_temp.ids VALUES ('b', agent_state.create_agent('t540-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't540_rt') \g /dev/null
SELECT agent_state.note(pg_temp.id('a'), 'before the move') \g /dev/null
RESET ROLE;

-- ------------------------------------------------ operators only, arguments
SET ROLE t540_rt;
SELECT throws_ok($$SELECT agent_state.move_step(pg_temp.id('a'), 'begin', 'shard_b')$$, '42501', NULL,
                 'a runtime cannot move the agent it hosts');
SELECT throws_ok($$SELECT agent_state.shard_inventory()$$, '42501', NULL,
                 'nor read a shard''s inventory');
RESET ROLE;
SET ROLE t540_op;
SELECT throws_ok($$SELECT agent_state.move_step(pg_temp.id('a'), 'teleport')$$, '22023', NULL,
                 'an unknown step: 22023');
SELECT throws_ok($$SELECT agent_state.move_step(pg_catalog.gen_random_uuid(), 'begin', 'shard_b')$$, 'P0002', NULL,
                 'an unknown agent: P0002');
SELECT is(agent_state.move_step(pg_temp.id('a'), 'state') ->> 'state', 'live', 'an agent starts live');
SELECT throws_ok($$SELECT agent_state.move_step(pg_temp.id('a'), 'retire')$$, '55000', NULL,
                 'a live agent cannot be retired before it is frozen: 55000');

-- ------------------------------------------------ frozen
SELECT is(agent_state.move_step(pg_temp.id('a'), 'begin', 'shard_b') ->> 'state', 'out', 'begin freezes it');
SELECT throws_ok($$SELECT agent_state.note(pg_temp.id('a'), 'during the move')$$, '55006', NULL,
                 'a write for a frozen agent: 55006');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*)::integer FROM agent_state.memory_entries
           WHERE runtime_agent_id = pg_temp.id('a')), 1, 'and nothing is written');
SET ROLE t540_op;
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'move')$$, '55006', NULL,
                 'a read too: 55006');
SELECT lives_ok($$SELECT agent_state.note(pg_temp.id('b'), 'another agent')$$,
                'other agents are not frozen');
SELECT is((SELECT e ->> 'state' FROM pg_catalog.jsonb_array_elements(agent_state.shard_inventory() -> 'agents') AS e
           WHERE e ->> 'agent' = pg_temp.id('a')::text), 'out', 'the inventory shows the move state');
SELECT ok(EXISTS (SELECT FROM agent_state.list_agents() WHERE agent = pg_temp.id('a')),
          'the source of a move still lists it (a router lists a moving agent once)');
SELECT is(agent_state.move_step(pg_temp.id('a'), 'abort') ->> 'state', 'live', 'abort makes it live again');
SELECT lives_ok($$SELECT agent_state.note(pg_temp.id('a'), 'after the abort')$$, 'and writable');

-- ------------------------------------------------ retired
SELECT agent_state.move_step(pg_temp.id('a'), 'begin', 'shard_b') \g /dev/null
SELECT is(agent_state.move_step(pg_temp.id('a'), 'retire') ->> 'state', 'gone', 'a frozen copy retires');
SELECT throws_ok($$SELECT agent_state.note(pg_temp.id('a'), 'after the move')$$, 'P0002', NULL,
                 'a retired copy answers as for an unknown agent');
SELECT ok(NOT EXISTS (SELECT FROM agent_state.list_agents() WHERE agent = pg_temp.id('a')),
          'and is not listed');
SELECT throws_ok($$SELECT agent_state.find_agent('t540-a')$$, 'P0002', NULL,
                 'nor found by its handle');
RESET ROLE;
-- A copy moved in and not yet live (written as move_step's import leaves it) is
-- not listed either: through a router the source lists the agent.
INSERT INTO agent_state.agent_moves (agent, state, peer) VALUES (pg_temp.id('b'), 'in', 'shard_a');
SET ROLE t540_op;
SELECT ok(NOT EXISTS (SELECT FROM agent_state.list_agents() WHERE agent = pg_temp.id('b')),
          'a copy moved in and not yet live is not listed');
SELECT throws_ok($$SELECT agent_state.find_agent('t540-b')$$, 'P0002', NULL,
                 'nor found by its handle');
RESET ROLE;
SET ROLE t540_rt;
SELECT throws_ok($$SELECT agent_state.note(pg_temp.id('a'), 'after the move')$$, '42501', NULL,
                 'for its runtime too (42501, as for an agent it does not host)');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
