-- SDK sessions: items kept append-only with their full JSON; pop and clear
-- retract (hidden from the session, kept in its history, audited); each agent's
-- sessions are its own.
BEGIN;
SELECT plan(25);

\ir _setup.sql

CREATE ROLE t455_op IN ROLE agent_state_operator;
CREATE ROLE t455_rt IN ROLE agent_state_runtime;
SET ROLE t455_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t455-a')), ('b', agent_state.create_agent('t455-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't455_rt') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'sa', agent_state.open_conversation(pg_temp.id('a'), 'openai-agents', 'session-1', 'direct');
INSERT INTO pg_temp.ids SELECT 'sb', agent_state.open_conversation(pg_temp.id('b'), 'openai-agents', 'session-1', 'direct');
RESET ROLE;

SET ROLE t455_rt;
SELECT is(agent_state.session_add_items(pg_temp.id('a'), pg_temp.id('sa'),
          '[{"role": "user", "content": "hi"}, {"type": "function_call", "name": "f"}, "x", null]'),
          4, 'add_items appends each element and says how many');
SELECT is(agent_state.session_add_items(pg_temp.id('a'), pg_temp.id('sa'), '[]'), 0, 'an empty list adds nothing');
SELECT results_eq($$SELECT item_no, item FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'))$$,
                  $$VALUES (1::bigint, '{"role": "user", "content": "hi"}'::jsonb),
                           (2, '{"type": "function_call", "name": "f"}'), (3, '"x"'), (4, 'null')$$,
                  'get_items: every item, oldest first, JSON kept whole');
SELECT results_eq($$SELECT item FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'), 2)$$,
                  $$VALUES ('"x"'::jsonb), ('null')$$, 'with max_results, the newest ones, oldest first');
SELECT is_empty($$SELECT * FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'), 0)$$,
                'max_results 0: nothing');
SELECT is(agent_state.session_pop_item(pg_temp.id('a'), pg_temp.id('sa')), 'null'::jsonb,
          'pop_item returns the newest item (a JSON null is an item)');
SELECT is(agent_state.session_pop_item(pg_temp.id('a'), pg_temp.id('sa')), '"x"'::jsonb, 'and then the one before');
SELECT results_eq($$SELECT item_no FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'))$$,
                  $$VALUES (1::bigint), (2)$$, 'popped items are hidden from get_items');
SELECT is(agent_state.session_add_items(pg_temp.id('a'), pg_temp.id('sa'), '[{"role": "assistant"}]'), 1,
          'adding after a pop');
SELECT results_eq($$SELECT item_no FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'))$$,
                  $$VALUES (1::bigint), (2), (5)$$, 'numbers are never reused');
SELECT is(agent_state.session_clear(pg_temp.id('a'), pg_temp.id('sa')), 3, 'clear retracts what is left');
SELECT is_empty($$SELECT * FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'))$$,
                'a cleared session is empty');
SELECT ok(agent_state.session_pop_item(pg_temp.id('a'), pg_temp.id('sa')) IS NULL, 'popping an empty session: null');
SELECT is(agent_state.session_clear(pg_temp.id('a'), pg_temp.id('sa')), 0, 'clearing it again: 0');
SELECT results_eq($$SELECT item_no, retracted, retracted_by FROM agent_state.session_item_history(pg_temp.id('a'), pg_temp.id('sa'))$$,
                  $$VALUES (1::bigint, 'clear'::text, 't455_rt'::text), (2, 'clear', 't455_rt'), (3, 'pop', 't455_rt'),
                           (4, 'pop', 't455_rt'), (5, 'clear', 't455_rt')$$,
                  'the history keeps every item with how, and by whom, it was retracted');

-- Isolation and bad input.
SELECT throws_ok($$SELECT agent_state.session_add_items(pg_temp.id('b'), pg_temp.id('sb'), '[1]')$$, '42501', NULL,
                 'another agent''s session: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sb'))$$, '23503', NULL,
                 'another agent''s conversation named under this agent: 23503');
SELECT throws_ok($$SELECT agent_state.session_add_items(pg_temp.id('a'), gen_random_uuid(), '[1]')$$, 'P0002', NULL,
                 'an unknown conversation: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.session_item_history(pg_temp.id('a'), gen_random_uuid())$$, 'P0002',
                 NULL, 'the history of an unknown conversation: P0002, not an empty history');
SELECT throws_ok($$SELECT agent_state.session_add_items(pg_temp.id('a'), pg_temp.id('sa'), '{"role": "user"}')$$,
                 '22023', 'items: must be a JSON array, not object', 'items must be an array');
SELECT throws_ok($$SELECT agent_state.session_add_items(pg_temp.id('a'), pg_temp.id('sa'), NULL)$$, '22004', NULL,
                 'items null: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'), -1)$$, '22023',
                 NULL, 'a negative max_results: 22023');
RESET ROLE;

-- Append-only for every role, the owner included.
SELECT throws_ok($$UPDATE agent_state.session_items SET item = '"forged"'$$, '42501', NULL,
                 'session items cannot be updated');
SELECT throws_ok($$DELETE FROM agent_state.session_retractions$$, '42501', NULL,
                 'retractions cannot be deleted');
SET TRANSACTION READ ONLY;
SET ROLE t455_rt;
SELECT lives_ok($$SELECT * FROM agent_state.session_get_items(pg_temp.id('a'), pg_temp.id('sa'))$$,
                'get_items works in a read-only transaction');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
