-- The eleven graph_* functions called directly (the LangGraph integration's
-- tests skip where LangGraph is not installed): the checkpointer's put, writes
-- and list round trip, a thread copied, pruned and deleted through the audited
-- purge (the payloads go, the run ledger stays), the store's put, get, search,
-- namespaces and delete, isolation between agents, and bad input.
BEGIN;
SET client_min_messages = warning;
SELECT plan(168);

CREATE ROLE t260_op IN ROLE agent_state_operator;
CREATE ROLE t260_ra IN ROLE agent_state_runtime;
CREATE ROLE t260_rb IN ROLE agent_state_runtime;
\ir _setup.sql
-- Read as the superuser: a thread's stored checkpoints/writes, an agent's run
-- ledger (runs/checkpoints), and every graph row of every agent.
CREATE FUNCTION pg_temp.payloads(agent uuid, thread text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.graph_checkpoints AS c
            WHERE c.runtime_agent_id = agent AND c.thread_id = thread) || '/'
        || (SELECT pg_catalog.count(*) FROM agent_state.graph_writes AS w
            WHERE w.runtime_agent_id = agent AND w.thread_id = thread)
$$;
CREATE FUNCTION pg_temp.ledger(agent uuid) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent) || '/'
        || (SELECT pg_catalog.count(*) FROM agent_state.checkpoints AS c WHERE c.runtime_agent_id = agent)
$$;
CREATE FUNCTION pg_temp.graph_rows() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.concat_ws(',',
        (SELECT pg_catalog.count(*) FROM agent_state.graph_threads),
        (SELECT pg_catalog.count(*) FROM agent_state.graph_runs),
        (SELECT pg_catalog.count(*) FROM agent_state.graph_checkpoints),
        (SELECT pg_catalog.count(*) FROM agent_state.graph_writes),
        (SELECT pg_catalog.count(*) FROM agent_state.graph_purges),
        (SELECT pg_catalog.count(*) FROM agent_state.graph_items),
        (SELECT pg_catalog.count(*) FROM agent_state.graph_item_values),
        (SELECT pg_catalog.count(*) FROM agent_state.memory_entries WHERE live),
        (SELECT pg_catalog.count(*) FROM agent_state.runs),
        (SELECT pg_catalog.count(*) FROM agent_state.checkpoints))
$$;

SET ROLE t260_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t260-a')),
    ('b', agent_state.create_agent('t260-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't260_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't260_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ANN')),
    ('conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C-A', 'direct')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U-B')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C-B', 'direct'));
INSERT INTO pg_temp.ids VALUES
    ('m1', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('ann'), 'I like themes',
                                      ARRAY[pg_temp.id('ann')])),
    ('b_msg', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'), 'secret',
                                         ARRAY[pg_temp.id('b_actor')]));
RESET ROLE;

-- ================================================================ checkpointer
-- Thread th1: checkpoints c1 and c2 of LangGraph run r1, c2a in a child
-- namespace, c3 of run r2; pending writes of c2 from two tasks, and a special
-- write (idx < 0) of c3.
SET ROLE t260_ra;
SELECT agent_state.graph_put(pg_temp.id('a'), 'th1', '', 'c1', NULL, 'msgpack', '\x01',
                             '{"run_id": "r1", "step": 1}') \g /dev/null
SELECT agent_state.graph_put(pg_temp.id('a'), 'th1', '', 'c2', 'c1', 'msgpack', '\x02',
                             '{"run_id": "r1", "step": 2}') \g /dev/null
SELECT agent_state.graph_put(pg_temp.id('a'), 'th1', 'child', 'c2a', 'c2', 'json', '\x2a',
                             '{"run_id": "r1"}') \g /dev/null
SELECT agent_state.graph_put(pg_temp.id('a'), 'th1', '', 'c3', 'c2', 'msgpack', '\x03',
                             '{"run_id": "r2", "step": 3}') \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th1', '', 'c2', 'task-b', 'p', '{0,1}', '{x,y}',
                                    '{json,json}', ARRAY['\x10', '\x11']::bytea []) \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th1', '', 'c2', 'task-a', 'p', '{0}', '{z}',
                                    '{json}', ARRAY['\x12']::bytea []) \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th1', '', 'c3', 'task-c', NULL, '{-1}', '{__error__}',
                                    '{json}', ARRAY['\x20']::bytea []) \g /dev/null
-- Again, as LangGraph retries: a checkpoint id stored again and a write stored
-- again are kept; the special write is replaced.
SELECT agent_state.graph_put(pg_temp.id('a'), 'th1', '', 'c1', NULL, 'msgpack', '\xff',
                             '{"run_id": "r1", "step": 99}') \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th1', '', 'c2', 'task-a', 'p', '{0}', '{z}',
                                    '{json}', ARRAY['\xff']::bytea []) \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th1', '', 'c3', 'task-c', NULL, '{-1}', '{__error__}',
                                    '{json}', ARRAY['\x21']::bytea []) \g /dev/null

SELECT results_eq(
    $$SELECT checkpoint_id, parent_checkpoint_id, payload_type, payload, metadata
      FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '')$$,
    $$VALUES ('c3'::text, 'c2'::text, 'msgpack'::text, '\x03'::bytea, '{"run_id": "r2", "step": 3}'::jsonb),
             ('c2', 'c1', 'msgpack', '\x02', '{"run_id": "r1", "step": 2}'),
             ('c1', NULL, 'msgpack', '\x01', '{"run_id": "r1", "step": 1}')$$,
    'graph_list: a namespace''s checkpoints newest first, as stored (the second put of c1 changed nothing)');
SELECT results_eq(
    $$SELECT thread_id, checkpoint_ns, checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'))$$,
    $$VALUES ('th1'::text, ''::text, 'c3'::text), ('th1', 'child', 'c2a'), ('th1', '', 'c2'), ('th1', '', 'c1')$$,
    'graph_list without a thread or namespace: every checkpoint of the agent, by id descending');
SELECT results_eq(
    $$SELECT write_task_ids, write_channels, write_types, write_values
      FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', 'c2')$$,
    $$VALUES (ARRAY['task-a', 'task-b', 'task-b'], ARRAY['z', 'x', 'y'], ARRAY['json', 'json', 'json'],
              ARRAY['\x12', '\x10', '\x11']::bytea [])$$,
    'graph_list: a checkpoint''s pending writes by task and idx; a write stored again kept its first value');
SELECT results_eq(
    $$SELECT write_task_ids, write_channels, write_values
      FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', 'c3')$$,
    $$VALUES (ARRAY['task-c'], ARRAY['__error__'], ARRAY['\x21']::bytea [])$$,
    'graph_put_writes: a special write (idx < 0) is replaced by the next one');
SELECT results_eq(
    $$SELECT checkpoint_id, write_task_ids FROM agent_state.graph_list(pg_temp.id('a'), 'th1', 'child')$$,
    $$VALUES ('c2a'::text, NULL::text [])$$,
    'graph_list: a checkpoint without writes has null write arrays');
SELECT results_eq(
    $$SELECT checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', max_results => 1)$$,
    $$VALUES ('c3'::text)$$, 'graph_list with max_results 1 (get_tuple): the latest checkpoint');
SELECT results_eq(
    $$SELECT checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', checkpoint => 'c1')$$,
    $$VALUES ('c1'::text)$$, 'graph_list with a checkpoint id: that checkpoint');
SELECT results_eq(
    $$SELECT checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', before => 'c3')$$,
    $$VALUES ('c2'::text), ('c1')$$, 'graph_list with before: the older checkpoints only');
SELECT results_eq(
    $$SELECT checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1', filter => '{"step": 2}')$$,
    $$VALUES ('c2'::text)$$, 'graph_list with a filter: checkpoints whose metadata contains it');
SELECT is_empty($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', max_results => 0)$$,
                'graph_list with max_results 0: nothing');
INSERT INTO pg_temp.ids
SELECT 'run_r1', l.run_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', 'c1') AS l
UNION ALL
SELECT 'run_r2', l.run_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', 'c3') AS l;
SELECT results_eq(
    $$SELECT checkpoint_id, run_id FROM agent_state.graph_list(pg_temp.id('a'), 'th1')$$,
    $$VALUES ('c3'::text, pg_temp.id('run_r2')), ('c2a', pg_temp.id('run_r1')), ('c2', pg_temp.id('run_r1')),
             ('c1', pg_temp.id('run_r1'))$$,
    'graph_list: run_id is the run of the checkpoint''s LangGraph run');
RESET ROLE;
SELECT isnt(pg_temp.id('run_r1'), pg_temp.id('run_r2'), 'two LangGraph runs are two runs');
SELECT results_eq(
    $$SELECT r.run_id, r.continued_from, r.status, r.conversation_id FROM agent_state.runs AS r
      WHERE r.runtime_agent_id = pg_temp.id('a') ORDER BY r.created_at, r.run_id$$,
    $$VALUES (pg_temp.id('run_r1'), NULL::uuid, 'handed_off'::text,
              (SELECT t.conversation_id FROM agent_state.graph_threads AS t
               WHERE t.runtime_agent_id = pg_temp.id('a') AND t.thread_id = 'th1')),
             (pg_temp.id('run_r2'), pg_temp.id('run_r1'), 'open',
              (SELECT t.conversation_id FROM agent_state.graph_threads AS t
               WHERE t.runtime_agent_id = pg_temp.id('a') AND t.thread_id = 'th1'))$$,
    'the second LangGraph run continues the first (handed off); both in the thread''s conversation');
SELECT results_eq(
    $$SELECT c.connector, c.external_ref, c.kind FROM agent_state.conversations AS c
      JOIN agent_state.graph_threads AS t
        ON t.runtime_agent_id = c.runtime_agent_id AND t.conversation_id = c.conversation_id
      WHERE t.runtime_agent_id = pg_temp.id('a') AND t.thread_id = 'th1'$$,
    $$VALUES ('langgraph'::text, 'th1'::text, 'group'::text)$$,
    'the thread is a conversation (connector langgraph, external_ref the thread id)');
SELECT results_eq(
    $$SELECT c.run_id, c.checkpoint, c.frontier FROM agent_state.checkpoints AS c
      WHERE c.runtime_agent_id = pg_temp.id('a') ORDER BY c.created_at, c.checkpoint$$,
    $$VALUES (pg_temp.id('run_r1'), 1, '{"thread_id": "th1", "checkpoint_ns": "", "checkpoint_id": "c1"}'::jsonb),
             (pg_temp.id('run_r1'), 2, '{"thread_id": "th1", "checkpoint_ns": "", "checkpoint_id": "c2"}'),
             (pg_temp.id('run_r1'), 3, '{"thread_id": "th1", "checkpoint_ns": "child", "checkpoint_id": "c2a"}'),
             (pg_temp.id('run_r2'), 1, '{"thread_id": "th1", "checkpoint_ns": "", "checkpoint_id": "c3"}')$$,
    'each stored checkpoint is its run''s frontier in the run ledger (a checkpoint stored again is not)');
SELECT is(pg_temp.payloads(pg_temp.id('a'), 'th1'), '4/4', 'th1 holds 4 checkpoints and 4 writes');

-- ---------------------------------------------------------------- copy_thread
SET ROLE t260_ra;
SELECT is(agent_state.graph_copy_thread(pg_temp.id('a'), 'th1', 'th2'), 4,
          'graph_copy_thread: returns how many checkpoints it copied');
SELECT results_eq(
    $$SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, payload, metadata, write_values
      FROM agent_state.graph_list(pg_temp.id('a'), 'th2')$$,
    $$VALUES ('th2'::text, ''::text, 'c3'::text, 'c2'::text, '\x03'::bytea, '{"run_id": "r2", "step": 3}'::jsonb,
              ARRAY['\x21']::bytea []),
             ('th2', 'child', 'c2a', 'c2', '\x2a', '{"run_id": "r1"}', NULL),
             ('th2', '', 'c2', 'c1', '\x02', '{"run_id": "r1", "step": 2}', ARRAY['\x12', '\x10', '\x11']::bytea []),
             ('th2', '', 'c1', NULL, '\x01', '{"run_id": "r1", "step": 1}', NULL)$$,
    'graph_copy_thread: the target has every checkpoint and write of the source');
INSERT INTO pg_temp.ids
SELECT DISTINCT 'run_th2', l.run_id FROM agent_state.graph_list(pg_temp.id('a'), 'th2') AS l;
RESET ROLE;
SELECT results_eq(
    $$SELECT r.continued_from, r.status, r.conversation_id = t.conversation_id, c.frontier
      FROM agent_state.runs AS r
      JOIN agent_state.graph_threads AS t ON t.runtime_agent_id = r.runtime_agent_id AND t.thread_id = 'th2'
      JOIN agent_state.checkpoints AS c ON c.runtime_agent_id = r.runtime_agent_id AND c.run_id = r.run_id
      WHERE r.runtime_agent_id = pg_temp.id('a') AND r.run_id = pg_temp.id('run_th2')$$,
    $$VALUES (NULL::uuid, 'open'::text, true,
              '{"thread_id": "th2", "checkpoint_ns": "", "checkpoint_id": "c3"}'::jsonb)$$,
    'the copy is a thread with a run of its own, resuming from the newest copied checkpoint');
SELECT ok(pg_temp.id('run_th2') NOT IN (pg_temp.id('run_r1'), pg_temp.id('run_r2')),
          'the copy''s checkpoints belong to its own run, not the source''s');
SET ROLE t260_ra;
SELECT is(agent_state.graph_copy_thread(pg_temp.id('a'), 'th1', 'th2'), 0,
          'graph_copy_thread again: nothing new to copy');
RESET ROLE;
SELECT is((SELECT count(*) FROM agent_state.checkpoints
           WHERE runtime_agent_id = pg_temp.id('a') AND run_id = pg_temp.id('run_th2')), 1::bigint,
          'and adds nothing to the target run''s history');
SET ROLE t260_ra;
SELECT is(agent_state.graph_copy_thread(pg_temp.id('a'), 'no-such-thread', 'th9'), 0,
          'graph_copy_thread of a thread without checkpoints: 0');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.graph_threads AS t
           WHERE t.runtime_agent_id = pg_temp.id('a') AND t.thread_id IN ('no-such-thread', 'th9')), 0::bigint,
          'copying a thread without checkpoints creates no thread');
SELECT is(pg_temp.payloads(pg_temp.id('a'), 'th1'), '4/4', 'the source is unchanged');

-- ---------------------------------------------------------------- prune
-- The purges remove payloads through an audited record; the run ledger stays.
CREATE TEMP TABLE ledger_before AS SELECT pg_temp.ledger(pg_temp.id('a')) AS v;
SET ROLE t260_ra;
SELECT is(agent_state.graph_prune(pg_temp.id('a'), ARRAY['th2']), 2,
          'graph_prune keep_latest: all but the newest checkpoint of each namespace (c1 and c2)');
SELECT results_eq($$SELECT checkpoint_ns, checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'), 'th2')$$,
                  $$VALUES (''::text, 'c3'::text), ('child', 'c2a')$$,
                  'graph_prune keep_latest: the newest of each namespace stay');
RESET ROLE;
SELECT results_eq(
    $$SELECT p.reason, p.removed, p.created_by::text COLLATE "default" FROM agent_state.graph_purges AS p
      WHERE p.runtime_agent_id = pg_temp.id('a') AND p.thread_id = 'th2'$$,
    $$VALUES ('prune keep_latest'::text,
              '{"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": "c1"},
                                {"checkpoint_ns": "", "checkpoint_id": "c2"}]}'::jsonb, 't260_ra'::text)$$,
    'graph_prune: one purge record names who, why and which checkpoints');
SELECT is(pg_temp.payloads(pg_temp.id('a'), 'th2'), '2/1', 'graph_prune: the pruned checkpoints'' writes went too');
SET ROLE t260_ra;
SELECT is(agent_state.graph_prune(pg_temp.id('a'), ARRAY['th2', 'no-such-thread'], 'delete', 'cleanup'), 2,
          'graph_prune delete: every checkpoint of the threads');
SELECT is_empty($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'th2')$$,
                'graph_prune delete: the thread has no checkpoint left');
SELECT is(agent_state.graph_prune(pg_temp.id('a'), ARRAY['th2'], 'delete'), 0,
          'graph_prune of a thread without checkpoints: 0');
RESET ROLE;
SELECT results_eq(
    $$SELECT p.reason, p.removed FROM agent_state.graph_purges AS p
      WHERE p.runtime_agent_id = pg_temp.id('a') AND p.thread_id = 'th2' ORDER BY p.purge_id$$,
    $$VALUES ('prune keep_latest'::text,
              '{"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": "c1"},
                                {"checkpoint_ns": "", "checkpoint_id": "c2"}]}'::jsonb),
             ('cleanup', '{"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": "c3"},
                                           {"checkpoint_ns": "child", "checkpoint_id": "c2a"}]}')$$,
    'graph_prune: a purge record per purge that removed something, with the reason given');
SELECT is(pg_temp.payloads(pg_temp.id('a'), 'th2'), '0/0', 'graph_prune delete: no payload of th2 is left');

-- ---------------------------------------------------------------- delete_thread
-- Writes may arrive before their checkpoint: c9 has writes only.
SET ROLE t260_ra;
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th1', '', 'c9', 'task-z', NULL, '{0}', '{q}',
                                    '{json}', ARRAY['\x30']::bytea []) \g /dev/null
SELECT is_empty($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', 'c9')$$,
                'graph_list: writes without their checkpoint are not a checkpoint');
SELECT is(agent_state.graph_delete_thread(pg_temp.id('a'), 'th1'), 5,
          'graph_delete_thread: every checkpoint of the thread, and the one that has writes only');
SELECT is_empty($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'th1')$$,
                'graph_delete_thread: the thread has no checkpoint left');
SELECT is(agent_state.graph_delete_thread(pg_temp.id('a'), 'th1'), 0, 'graph_delete_thread again: 0');
SELECT is(agent_state.graph_delete_thread(pg_temp.id('a'), 'no-such-thread', 'why not'), 0,
          'graph_delete_thread of an unknown thread: 0');
RESET ROLE;
SELECT is(pg_temp.payloads(pg_temp.id('a'), 'th1'), '0/0', 'graph_delete_thread: no payload of th1 is left');
SELECT results_eq(
    $$SELECT p.reason, p.removed FROM agent_state.graph_purges AS p
      WHERE p.runtime_agent_id = pg_temp.id('a') AND p.thread_id = 'th1'$$,
    $$VALUES ('delete_thread'::text,
              '{"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": "c1"},
                                {"checkpoint_ns": "", "checkpoint_id": "c2"},
                                {"checkpoint_ns": "", "checkpoint_id": "c3"},
                                {"checkpoint_ns": "", "checkpoint_id": "c9"},
                                {"checkpoint_ns": "child", "checkpoint_id": "c2a"}]}'::jsonb)$$,
    'graph_delete_thread: one purge record (none for the calls that removed nothing)');
SELECT is(pg_temp.ledger(pg_temp.id('a')), (SELECT v FROM ledger_before),
          'the purges left the run ledger (runs and their checkpoints) as it was');
SELECT results_eq(
    $$SELECT t.thread_id, c.external_ref FROM agent_state.graph_threads AS t
      JOIN agent_state.conversations AS c
        ON c.runtime_agent_id = t.runtime_agent_id AND c.conversation_id = t.conversation_id
      WHERE t.runtime_agent_id = pg_temp.id('a') ORDER BY 1$$,
    $$VALUES ('th1'::text, 'th1'::text), ('th2', 'th2')$$,
    'the threads and their conversations stay; the unknown threads were not created');

-- ---------------------------------------------------------------- delete_for_runs
SET ROLE t260_ra;
SELECT agent_state.graph_put(pg_temp.id('a'), 'th3', '', 'd1', NULL, 'msgpack', '\xd1', '{"run_id": "r3"}'),
       agent_state.graph_put(pg_temp.id('a'), 'th4', '', 'e1', NULL, 'msgpack', '\xe1', '{"run_id": "r3"}') \g /dev/null
SELECT agent_state.graph_put(pg_temp.id('a'), 'th3', '', 'd2', 'd1', 'msgpack', '\xd2', '{"run_id": "r4"}') \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'th3', '', 'd1', 'task', NULL, '{0}', '{c}', '{json}',
                                    ARRAY['\xd1']::bytea []) \g /dev/null
SELECT is(agent_state.graph_delete_for_runs(pg_temp.id('a'), ARRAY['r3', 'no-such-run']), 2,
          'graph_delete_for_runs: the checkpoints of the LangGraph runs named, in every thread');
SELECT results_eq($$SELECT thread_id, checkpoint_id FROM agent_state.graph_list(pg_temp.id('a'))$$,
                  $$VALUES ('th3'::text, 'd2'::text)$$,
                  'graph_delete_for_runs: the checkpoints of other runs stay');
SELECT is(agent_state.graph_delete_for_runs(pg_temp.id('a'), ARRAY['no-such-run']), 0,
          'graph_delete_for_runs of runs without checkpoints: 0');
RESET ROLE;
SELECT results_eq(
    $$SELECT p.thread_id, p.reason, p.removed FROM agent_state.graph_purges AS p
      WHERE p.runtime_agent_id = pg_temp.id('a') AND p.thread_id IN ('th3', 'th4') ORDER BY 1$$,
    $$VALUES ('th3'::text, 'delete_for_runs'::text,
              '{"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": "d1"}]}'::jsonb),
             ('th4', 'delete_for_runs', '{"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": "e1"}]}')$$,
    'graph_delete_for_runs: one purge record per thread');
SELECT is(pg_temp.payloads(pg_temp.id('a'), 'th3'), '1/0',
          'graph_delete_for_runs: the removed checkpoint''s writes went too');

-- ================================================================ store
-- A runtime's items come from a message (m1, in conversation conv): the entry
-- is remembered from it. Four items in three namespaces, then prefs amended.
SET ROLE t260_ra;
INSERT INTO pg_temp.ids
SELECT 'prefs', p.entry FROM agent_state.graph_item_put(pg_temp.id('a'), '{users,u1}', 'prefs',
    '{"theme": "dark", "lang": "en"}', 'likes the dark theme', pg_temp.id('m1')) AS p;
INSERT INTO pg_temp.ids
SELECT 'food', p.entry FROM agent_state.graph_item_put(pg_temp.id('a'), '{users,u1}', 'food',
    '{"drink": "tea"}', 'drinks green tea', pg_temp.id('m1')) AS p;
INSERT INTO pg_temp.ids
SELECT 'u2', p.entry FROM agent_state.graph_item_put(pg_temp.id('a'), '{users,u2}', 'prefs',
    '{"theme": "light"}', 'likes the light theme', pg_temp.id('m1')) AS p;
INSERT INTO pg_temp.ids
SELECT 'readme', p.entry FROM agent_state.graph_item_put(pg_temp.id('a'), '{docs}', 'readme',
    '{"v": 1}', 'project readme', pg_temp.id('m1')) AS p;
SELECT results_eq(
    $$SELECT namespace, key, value, created_at = updated_at, score
      FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}', item_key => 'prefs')$$,
    $$VALUES ('{users,u1}'::text [], 'prefs'::text, '{"theme": "dark", "lang": "en"}'::jsonb, true, NULL::float8)$$,
    'graph_item_search with item_key (get): the item, created_at = updated_at when new, no score without a query');
SELECT results_eq(
    $$SELECT entry, revision FROM agent_state.graph_item_put(pg_temp.id('a'), '{users,u1}', 'prefs',
          '{"theme": "solarized"}', 'likes the solarized theme', pg_temp.id('m1'))$$,
    $$VALUES (pg_temp.id('prefs'), 2)$$,
    'graph_item_put of a live key: the same entry, amended to revision 2');
SELECT results_eq(
    $$SELECT value, updated_at > created_at
      FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}', item_key => 'prefs')$$,
    $$VALUES ('{"theme": "solarized"}'::jsonb, true)$$,
    'get after the put: the new value, updated after it was created');
SELECT is_empty($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}', item_key => 'prefs')$$,
                'get reads the key in exactly the namespace given, not under it');
SELECT results_eq(
    $$SELECT key, score > 0, (SELECT pg_catalog.count(*) FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}',
                                  'coffee', item_key => 'food'))
      FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}', 'green tea', item_key => 'food')$$,
    $$VALUES ('food'::text, true, 0::bigint)$$,
    'get with a query: the item with its score when its text matches, nothing when it does not');
SELECT results_eq(
    $$SELECT (SELECT pg_catalog.count(*) FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}',
                  filter => '{"drink": "tea"}', item_key => 'food')),
             (SELECT pg_catalog.count(*) FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}',
                  filter => '{"drink": "coffee"}', item_key => 'food')),
             (SELECT pg_catalog.count(*) FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}',
                  skip => 1, item_key => 'food')),
             (SELECT pg_catalog.count(*) FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}',
                  max_results => 0, item_key => 'food'))$$,
    $$VALUES (1::bigint, 0::bigint, 0::bigint, 0::bigint)$$,
    'get with a filter (kept when the value contains it), skip 1 and max_results 0 (nothing), as a search of one item');
SELECT results_eq(
    $$SELECT namespace, key FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}')$$,
    $$VALUES ('{users,u1}'::text [], 'prefs'::text), ('{users,u2}', 'prefs'), ('{users,u1}', 'food')$$,
    'graph_item_search: the live items under the prefix, most recently updated first');
SELECT results_eq(
    $$SELECT namespace, key FROM agent_state.graph_item_search(pg_temp.id('a'), NULL)$$,
    $$VALUES ('{users,u1}'::text [], 'prefs'::text), ('{docs}', 'readme'), ('{users,u2}', 'prefs'),
             ('{users,u1}', 'food')$$,
    'graph_item_search without a prefix: every item of the agent');
SELECT results_eq(
    $$SELECT key, score > 0 FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}', 'tea')$$,
    $$VALUES ('food'::text, true)$$,
    'graph_item_search with a query: the items whose text matches, with a score');
SELECT results_eq(
    $$SELECT namespace, key FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}',
          filter => '{"theme": "light"}')$$,
    $$VALUES ('{users,u2}'::text [], 'prefs'::text)$$,
    'graph_item_search with a filter: the items whose value contains it');
SELECT results_eq(
    $$SELECT namespace, key
      FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}', max_results => 1, skip => 1)$$,
    $$VALUES ('{users,u2}'::text [], 'prefs'::text)$$,
    'graph_item_search with max_results and skip: one page');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'))$$,
    $$VALUES ('{docs}'::text []), ('{users,u1}'), ('{users,u2}')$$,
    'graph_list_namespaces: the distinct namespaces of live items, sorted');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'), prefix => '{users}')$$,
    $$VALUES ('{users,u1}'::text []), ('{users,u2}')$$, 'graph_list_namespaces with a prefix');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'), suffix => '{u2}')$$,
    $$VALUES ('{users,u2}'::text [])$$, 'graph_list_namespaces with a suffix');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'), prefix => '{*,u1}')$$,
    $$VALUES ('{users,u1}'::text [])$$, 'graph_list_namespaces: * matches any one label');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'), max_depth => 1)$$,
    $$VALUES ('{docs}'::text []), ('{users}')$$, 'graph_list_namespaces with max_depth: cut and distinct');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'), max_results => 1, skip => 1)$$,
    $$VALUES ('{users,u1}'::text [])$$, 'graph_list_namespaces with max_results and skip: one page');

-- Delete forgets the entry; a put after it makes a new one.
SELECT is(agent_state.graph_item_delete(pg_temp.id('a'), '{users,u2}', 'prefs'), true,
          'graph_item_delete of a live item: true');
SELECT is(agent_state.graph_item_delete(pg_temp.id('a'), '{users,u2}', 'prefs'), false,
          'graph_item_delete again: false');
SELECT is(agent_state.graph_item_delete(pg_temp.id('a'), '{users,u1}', 'no-such-key'), false,
          'graph_item_delete of a key never stored: false');
SELECT results_eq(
    $$SELECT namespace, key FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}')$$,
    $$VALUES ('{users,u1}'::text [], 'prefs'::text), ('{users,u1}', 'food')$$,
    'graph_item_search: a deleted item is gone');
SELECT results_eq(
    $$SELECT namespace FROM agent_state.graph_list_namespaces(pg_temp.id('a'))$$,
    $$VALUES ('{docs}'::text []), ('{users,u1}')$$,
    'graph_list_namespaces: a namespace without live items is gone');
INSERT INTO pg_temp.ids
SELECT 'u2_again', p.entry FROM agent_state.graph_item_put(pg_temp.id('a'), '{users,u2}', 'prefs',
    '{"theme": "sepia"}', 'likes the sepia theme', pg_temp.id('m1')) AS p;
SELECT results_eq(
    $$SELECT value, created_at = updated_at
      FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u2}', item_key => 'prefs')$$,
    $$VALUES ('{"theme": "sepia"}'::jsonb, true)$$,
    'graph_item_put after a delete: a new item');
RESET ROLE;
SELECT isnt(pg_temp.id('u2_again'), pg_temp.id('u2'), 'graph_item_put after a delete: a new entry');
SELECT results_eq(
    $$SELECT e.entry_id, e.live, e.current_revision, e.body FROM agent_state.memory_entries AS e
      WHERE e.entry_id IN (pg_temp.id('prefs'), pg_temp.id('u2'), pg_temp.id('u2_again'))
      ORDER BY e.created_at$$,
    $$VALUES (pg_temp.id('prefs'), true, 2, 'likes the solarized theme'::text),
             (pg_temp.id('u2'), false, 2, 'likes the light theme'),
             (pg_temp.id('u2_again'), true, 1, 'likes the sepia theme')$$,
    'the items are memory entries: amended, forgotten (history kept), re-created');
SELECT results_eq(
    $$SELECT v.revision, v.value FROM agent_state.graph_item_values AS v
      WHERE v.entry_id = pg_temp.id('prefs') ORDER BY v.revision$$,
    $$VALUES (1, '{"theme": "dark", "lang": "en"}'::jsonb), (2, '{"theme": "solarized"}')$$,
    'the value is kept per revision');
SELECT results_eq(
    $$SELECT r.operation, r.source_type, r.source_message_id, r.source_actor_id, r.evidence_conversations
      FROM agent_state.memory_revisions AS r
      WHERE r.entry_id = pg_temp.id('u2') ORDER BY r.revision$$,
    $$VALUES ('create'::text, 'agent'::text, pg_temp.id('m1'), pg_temp.id('ann'), ARRAY[pg_temp.id('conv')]),
             ('forget', 'agent', NULL, NULL, ARRAY[pg_temp.id('conv')])$$,
    'a runtime''s item is remembered from its message (its author and conversation the provenance); delete forgets it');

-- Without a message: an operator records an item no conversation recalls; a
-- runtime is refused (no evidence is invented).
SET ROLE t260_op;
SELECT results_eq(
    $$SELECT revision FROM agent_state.graph_item_put(pg_temp.id('a'), '{ops}', 'k', '{"x": 1}', 'operator note')$$,
    $$VALUES (1)$$, 'graph_item_put without a message by an operator: revision 1');
SET ROLE t260_ra;
SELECT throws_ok($$SELECT agent_state.graph_item_put(pg_temp.id('a'), '{ops}', 'k2', '{}', 'runtime note')$$,
                 '22004', NULL, 'graph_item_put without a message by a runtime: 22004');
SELECT results_eq($$SELECT key, value FROM agent_state.graph_item_search(pg_temp.id('a'), '{ops}')$$,
                  $$VALUES ('k'::text, '{"x": 1}'::jsonb)$$,
                  'graph_item_search without a conversation: the operator''s item too');
SELECT is_empty($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), '{ops}',
                                                              conversation => pg_temp.id('conv'))$$,
                'graph_item_search with a conversation: not the operator''s item (eligible nowhere)');
SELECT results_eq(
    $$SELECT namespace, key FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}',
          conversation => pg_temp.id('conv'))$$,
    $$VALUES ('{users,u2}'::text [], 'prefs'::text), ('{users,u1}', 'prefs'), ('{users,u1}', 'food')$$,
    'graph_item_search with a conversation: the items its context may hold');
RESET ROLE;

-- ================================================================ isolation
-- Agent B (hosted by t260_rb) has a thread tb and an item {secret}/k.
SET ROLE t260_rb;
SELECT agent_state.graph_put(pg_temp.id('b'), 'tb', '', 'b1', NULL, 'msgpack', '\xbb', '{"run_id": "rb"}') \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('b'), 'tb', '', 'b1', 'task', NULL, '{0}', '{c}', '{json}',
                                    ARRAY['\xbb']::bytea []) \g /dev/null
SELECT agent_state.graph_item_put(pg_temp.id('b'), '{secret}', 'k', '{"s": 1}', 'the secret',
                                  pg_temp.id('b_msg')) \g /dev/null
RESET ROLE;
CREATE TEMP TABLE b_before AS
SELECT pg_temp.payloads(pg_temp.id('b'), 'tb') AS payloads, pg_temp.ledger(pg_temp.id('b')) AS ledger;

-- A runtime hosting A, calling with B: 42501, from every function.
SET ROLE t260_ra;
SELECT throws_ok(s, '42501', NULL, d)
FROM (VALUES
    ($$SELECT agent_state.graph_put(pg_temp.id('b'), 'tb', '', 'x1', 'b1', 'msgpack', '\x00', '{}')$$,
     'graph_put for an agent the runtime does not host: 42501'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('b'), 'tb', '', 'b1', 'task', NULL, '{1}', '{c}', '{json}',
                                           ARRAY['\x00']::bytea [])$$,
     'graph_put_writes for another agent: 42501'),
    ($$SELECT * FROM agent_state.graph_list(pg_temp.id('b'), 'tb')$$, 'graph_list for another agent: 42501'),
    ($$SELECT * FROM agent_state.graph_list_namespaces(pg_temp.id('b'))$$,
     'graph_list_namespaces for another agent: 42501'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('b'), '{secret}', 'k', '{}', 'x', pg_temp.id('m1'))$$,
     'graph_item_put for another agent: 42501'),
    ($$SELECT agent_state.graph_item_delete(pg_temp.id('b'), '{secret}', 'k')$$,
     'graph_item_delete for another agent: 42501'),
    ($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('b'), '{secret}')$$,
     'graph_item_search for another agent: 42501'),
    ($$SELECT agent_state.graph_delete_thread(pg_temp.id('b'), 'tb')$$,
     'graph_delete_thread for another agent: 42501'),
    ($$SELECT agent_state.graph_delete_for_runs(pg_temp.id('b'), ARRAY['rb'])$$,
     'graph_delete_for_runs for another agent: 42501'),
    ($$SELECT agent_state.graph_prune(pg_temp.id('b'), ARRAY['tb'], 'delete')$$,
     'graph_prune for another agent: 42501'),
    ($$SELECT agent_state.graph_copy_thread(pg_temp.id('b'), 'tb', 'stolen')$$,
     'graph_copy_thread for another agent: 42501'),
    ($$SELECT agent_state.graph_put('00000000-0000-4000-8000-000000000260', 't', '', 'x1', NULL, 'msgpack',
                                    '\x00', '{}')$$,
     'graph_put for an agent that does not exist: 42501 too')
) AS t (s, d);

-- B's thread ids and namespaces under A: nothing is found, nothing is touched.
SELECT is_empty($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tb')$$,
                'graph_list: B''s thread id under A finds nothing');
SELECT is_empty($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), checkpoint => 'b1')$$,
                'graph_list: B''s checkpoint id under A finds nothing');
SELECT is_empty($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), '{secret}')$$,
                'graph_item_search: B''s namespace under A finds nothing');
SELECT is_empty($$SELECT * FROM agent_state.graph_list_namespaces(pg_temp.id('a'), '{secret}')$$,
                'graph_list_namespaces: B''s namespace under A finds nothing');
SELECT is(agent_state.graph_item_delete(pg_temp.id('a'), '{secret}', 'k'), false,
          'graph_item_delete: B''s item under A: false');
SELECT is(agent_state.graph_delete_thread(pg_temp.id('a'), 'tb'), 0, 'graph_delete_thread: B''s thread under A: 0');
SELECT is(agent_state.graph_prune(pg_temp.id('a'), ARRAY['tb'], 'delete'), 0, 'graph_prune: B''s thread under A: 0');
SELECT is(agent_state.graph_delete_for_runs(pg_temp.id('a'), ARRAY['rb']), 0,
          'graph_delete_for_runs: B''s LangGraph run under A: 0');
SELECT is(agent_state.graph_copy_thread(pg_temp.id('a'), 'tb', 'stolen'), 0,
          'graph_copy_thread: B''s thread under A copies nothing');
-- The same thread id is A's own thread, apart from B's.
SELECT agent_state.graph_put(pg_temp.id('a'), 'tb', '', 'a1', NULL, 'msgpack', '\xaa', '{"run_id": "rb"}') \g /dev/null
SELECT results_eq($$SELECT checkpoint_id, payload FROM agent_state.graph_list(pg_temp.id('a'), 'tb')$$,
                  $$VALUES ('a1'::text, '\xaa'::bytea)$$,
                  'the same thread id under A is A''s own thread');
RESET ROLE;
SELECT results_eq(
    $$SELECT pg_temp.payloads(pg_temp.id('b'), 'tb'), pg_temp.ledger(pg_temp.id('b')),
             (SELECT pg_catalog.count(*) FROM agent_state.graph_purges AS p WHERE p.runtime_agent_id = pg_temp.id('b')),
             (SELECT pg_catalog.count(*) FROM agent_state.graph_items AS i
              JOIN agent_state.memory_entries AS e
                ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id
              WHERE i.runtime_agent_id = pg_temp.id('b') AND e.live)$$,
    $$SELECT payloads, ledger, 0::bigint, 1::bigint FROM b_before$$,
    'B''s checkpoints, writes, runs and item are untouched, and B has no purge');
SELECT is((SELECT b_before.payloads || ' ' || b_before.ledger FROM b_before), '1/1 1/1',
          'B had one checkpoint, one write, one run and one ledger checkpoint');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.graph_threads AS t WHERE t.thread_id = 'stolen'), 0::bigint,
          'no thread was created by the refused or empty copies');

-- ================================================================ bad input
CREATE TEMP TABLE rows_before AS SELECT pg_temp.graph_rows() AS v;
SET ROLE t260_ra;
SELECT throws_ok(s, e, NULL, d)
FROM (VALUES
    ($$SELECT agent_state.graph_put(NULL, 't', '', 'x', NULL, 'msgpack', '\x00', '{}')$$, '22004',
     'graph_put: a null agent: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), NULL, '', 'x', NULL, 'msgpack', '\x00', '{}')$$, '22004',
     'graph_put: a null thread_id: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), ' ', '', 'x', NULL, 'msgpack', '\x00', '{}')$$, '22023',
     'graph_put: a blank thread_id: 22023'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', NULL, 'x', NULL, 'msgpack', '\x00', '{}')$$, '22004',
     'graph_put: a null checkpoint_ns: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', NULL, NULL, 'msgpack', '\x00', '{}')$$, '22004',
     'graph_put: a null checkpoint_id: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', '', NULL, 'msgpack', '\x00', '{}')$$, '22023',
     'graph_put: an empty checkpoint_id: 22023'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', 'x', NULL, NULL, '\x00', '{}')$$, '22004',
     'graph_put: a null payload_type: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', 'x', NULL, 'msgpack', NULL, '{}')$$, '22004',
     'graph_put: a null payload: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', 'x', NULL, 'msgpack', '\x00', NULL)$$, '22004',
     'graph_put: null metadata: 22004'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', 'x', NULL, 'msgpack', '\x00', '[]')$$, '22023',
     'graph_put: metadata not an object: 22023'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', 'x', NULL, NULL, '{0}', '{c}', '{json}',
                                           ARRAY['\x00']::bytea [])$$, '22004',
     'graph_put_writes: a null task_id: 22004'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', 'x', 'task', NULL, NULL, '{c}', '{json}',
                                           ARRAY['\x00']::bytea [])$$, '22004',
     'graph_put_writes: null idxs: 22004'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', 'x', 'task', NULL, '{0,1}', '{c}', '{json}',
                                           ARRAY['\x00']::bytea [])$$, '22023',
     'graph_put_writes: write arrays of different lengths: 22023'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', 'x', 'task', NULL, '{0}', ARRAY[NULL::text],
                                           '{json}', ARRAY['\x00']::bytea [])$$, '22023',
     'graph_put_writes: a null channel: 22023'),
    ($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), filter => '[]')$$, '22023',
     'graph_list: a filter that is not an object: 22023'),
    ($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), max_results => -1)$$, '22023',
     'graph_list: a negative max_results: 22023'),
    ($$SELECT * FROM agent_state.graph_list_namespaces(pg_temp.id('a'), max_depth => 0)$$, '22023',
     'graph_list_namespaces: max_depth 0: 22023'),
    ($$SELECT * FROM agent_state.graph_list_namespaces(pg_temp.id('a'), skip => -1)$$, '22023',
     'graph_list_namespaces: a negative skip: 22023'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), NULL, 'k', '{}', 'b', pg_temp.id('m1'))$$, '22004',
     'graph_item_put: a null namespace: 22004'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{}', 'k', '{}', 'b', pg_temp.id('m1'))$$, '22023',
     'graph_item_put: an empty namespace: 22023'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{a.b}', 'k', '{}', 'b', pg_temp.id('m1'))$$, '22023',
     'graph_item_put: a label with a dot: 22023'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{a,""}', 'k', '{}', 'b', pg_temp.id('m1'))$$, '22023',
     'graph_item_put: an empty label: 22023'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{n}', NULL, '{}', 'b', pg_temp.id('m1'))$$, '22004',
     'graph_item_put: a null key: 22004'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{n}', '', '{}', 'b', pg_temp.id('m1'))$$, '22023',
     'graph_item_put: an empty key: 22023'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{n}', 'k', NULL, 'b', pg_temp.id('m1'))$$, '22004',
     'graph_item_put: a null value: 22004'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{n}', 'k', '[1]', 'b', pg_temp.id('m1'))$$, '22023',
     'graph_item_put: a value that is not an object: 22023'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{n}', 'k', '{}', NULL, pg_temp.id('m1'))$$, '22004',
     'graph_item_put: a null body: 22004'),
    ($$SELECT * FROM agent_state.graph_item_put(pg_temp.id('a'), '{users,u1}', 'prefs', '{}', ' ', pg_temp.id('m1'))$$,
     '22023', 'graph_item_put: a blank body amending a live item: 22023'),
    ($$SELECT agent_state.graph_item_delete(pg_temp.id('a'), NULL, 'k')$$, '22004',
     'graph_item_delete: a null namespace: 22004'),
    ($$SELECT agent_state.graph_item_delete(pg_temp.id('a'), '{n}', NULL)$$, '22004',
     'graph_item_delete: a null key: 22004'),
    ($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, max_results => NULL)$$, '22004',
     'graph_item_search: a null max_results: 22004'),
    ($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, pg_catalog.repeat('q', 10001))$$, '22023',
     'graph_item_search: a query over 10,000 characters: 22023'),
    ($$SELECT agent_state.graph_delete_thread(pg_temp.id('a'), NULL)$$, '22004',
     'graph_delete_thread: a null thread_id: 22004'),
    ($$SELECT agent_state.graph_delete_thread(pg_temp.id('a'), 'tb', NULL)$$, '22004',
     'graph_delete_thread: a null reason: 22004'),
    ($$SELECT agent_state.graph_delete_thread(pg_temp.id('a'), 'tb', ' ')$$, '22023',
     'graph_delete_thread: a blank reason: 22023'),
    ($$SELECT agent_state.graph_delete_for_runs(pg_temp.id('a'), NULL)$$, '22004',
     'graph_delete_for_runs: null graph_run_ids: 22004'),
    ($$SELECT agent_state.graph_delete_for_runs(pg_temp.id('a'), ARRAY['rb'], '')$$, '22023',
     'graph_delete_for_runs: an empty reason: 22023'),
    ($$SELECT agent_state.graph_prune(pg_temp.id('a'), NULL)$$, '22004',
     'graph_prune: null thread_ids: 22004'),
    ($$SELECT agent_state.graph_prune(pg_temp.id('a'), ARRAY['tb'], NULL)$$, '22004',
     'graph_prune: a null strategy: 22004'),
    ($$SELECT agent_state.graph_prune(pg_temp.id('a'), ARRAY['tb'], 'keep_none')$$, '22023',
     'graph_prune: an unknown strategy: 22023'),
    ($$SELECT agent_state.graph_copy_thread(pg_temp.id('a'), NULL, 'x')$$, '22004',
     'graph_copy_thread: a null source_thread_id: 22004'),
    ($$SELECT agent_state.graph_copy_thread(pg_temp.id('a'), 'tb', '')$$, '22023',
     'graph_copy_thread: an empty target_thread_id: 22023')
) AS t (s, e, d);
SET ROLE t260_op;
SELECT throws_ok($$SELECT * FROM agent_state.graph_list('00000000-0000-4000-8000-000000000260')$$, 'P0002', NULL,
                 'an operator naming an agent that does not exist: P0002');
RESET ROLE;
SELECT is(pg_temp.graph_rows(), (SELECT v FROM rows_before), 'the refused calls wrote nothing');

-- ================================================================ refusal on read
-- SPEC section 14: a checkpoint or pending write altered with the triggers off
-- is refused by every shape of read (get_tuple of the latest or of one id,
-- list, list before an id, a list of the whole agent), with XX001 naming the
-- table; the rest of history is still served.
SET ROLE t260_ra;
SELECT agent_state.graph_put(pg_temp.id('a'), 'tamper', '', 'k1', NULL, 'msgpack', '\x01', '{}') \g /dev/null
SELECT agent_state.graph_put(pg_temp.id('a'), 'tamper', '', 'k2', 'k1', 'msgpack', '\x02', '{}') \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'tamper', '', 'k2', 'task', '', '{0,1}', '{x,y}',
                                    '{json,json}', ARRAY['\x10', '\x11']::bytea []) \g /dev/null
RESET ROLE;
-- graph_list checks a genuine record by _chain_intact, _chain_digest for a table
-- with no excluded or erasable column and no closing update: the tables are
-- listed so, and the two give the same digest for every stored record.
SELECT results_eq(
    $$SELECT pg_catalog.count(*) FROM agent_state._chain_tables() AS t
      WHERE t.tbl IN ('graph_checkpoints', 'graph_writes', 'graph_item_values')
        AND t.excluded = '{}' AND t.erasable IS NULL AND t.closing IS NULL$$,
    $$VALUES (3::bigint)$$,
    '_chain_tables: the LangGraph checkpoints, writes and item values have no excluded or erasable column and no closing update');
SET "TimeZone" = 'UTC';
SELECT results_eq(
    $$SELECT pg_catalog.count(*), pg_catalog.bool_and(agent_state._chain_intact(u.tbl, u.r, u.stored)),
             pg_catalog.bool_and(u.stored = agent_state._chain_digest(u.tbl, u.r, '{}', NULL))
      FROM (SELECT 'graph_checkpoints'::name, pg_catalog.to_jsonb(c), c.chain_digest
            FROM agent_state.graph_checkpoints AS c
            UNION ALL
            SELECT 'graph_writes'::name, pg_catalog.to_jsonb(w), w.chain_digest
            FROM agent_state.graph_writes AS w
            UNION ALL
            SELECT 'graph_item_values'::name, pg_catalog.to_jsonb(v), v.chain_digest
            FROM agent_state.graph_item_values AS v) AS u (tbl, r, stored)$$,
    $$SELECT (SELECT pg_catalog.count(*) FROM agent_state.graph_checkpoints)
             + (SELECT pg_catalog.count(*) FROM agent_state.graph_writes)
             + (SELECT pg_catalog.count(*) FROM agent_state.graph_item_values), true, true$$,
    '_chain_intact agrees with _chain_digest on every stored checkpoint, write and item value');
RESET "TimeZone";
-- (Each attack is undone by writing the old value back with the triggers off:
-- a rollback to a savepoint would also undo pgTAP's count of the tests run.)
SET session_replication_role = replica;
UPDATE agent_state.graph_writes SET value = '\x66' WHERE thread_id = 'tamper' AND idx = 1;
RESET session_replication_role;
SET ROLE t260_ra;
SELECT throws_like($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', max_results => 1)$$,
                   '%graph_writes%does not match its digest%',
                   'an altered pending write: get_tuple of the latest refuses it, naming graph_writes');
SELECT throws_ok($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', 'k2')$$, 'XX001', NULL,
                 '... get_tuple of its checkpoint''s id: XX001');
SELECT throws_ok($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', max_results => 10)$$,
                 'XX001', NULL, '... list: XX001');
SELECT throws_ok($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tamper')$$, 'XX001', NULL,
                 '... list without a namespace: XX001');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', before => 'k2')),
          1::bigint, '... a read that does not serve it still works');
RESET ROLE;
SET session_replication_role = replica;
UPDATE agent_state.graph_writes SET value = '\x11' WHERE thread_id = 'tamper' AND idx = 1;
UPDATE agent_state.graph_checkpoints SET payload = '\x66' WHERE thread_id = 'tamper' AND checkpoint_id = 'k1';
RESET session_replication_role;
SET "TimeZone" = 'UTC';
SELECT is((SELECT agent_state._chain_intact('graph_checkpoints', pg_catalog.to_jsonb(c), c.chain_digest)
           FROM agent_state.graph_checkpoints AS c WHERE c.thread_id = 'tamper' AND c.checkpoint_id = 'k1'),
          false, '_chain_intact: false for the altered checkpoint (graph_list then asks _chain_checked)');
RESET "TimeZone";
SET ROLE t260_ra;
SELECT throws_like($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', 'k1')$$,
                   '%graph_checkpoints%does not match its digest%',
                   'an altered checkpoint: get_tuple of its id refuses it, naming graph_checkpoints');
SELECT throws_ok($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', before => 'k2')$$,
                 'XX001', NULL, '... list before a later id: XX001');
SELECT throws_ok($$SELECT * FROM agent_state.graph_list(pg_temp.id('a'), namespace => '')$$, 'XX001', NULL,
                 '... list of the whole agent: XX001');
SELECT results_eq($$SELECT checkpoint_id, write_channels FROM agent_state.graph_list(pg_temp.id('a'), 'tamper', '', max_results => 1)$$,
                  $$VALUES ('k2'::text, '{x,y}'::text [])$$, '... the intact latest checkpoint is still served, with its writes');
RESET ROLE;
SET session_replication_role = replica;
UPDATE agent_state.graph_checkpoints SET payload = '\x01' WHERE thread_id = 'tamper' AND checkpoint_id = 'k1';
RESET session_replication_role;
SET ROLE t260_ra;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.graph_list(pg_temp.id('a'), 'tamper')), 2::bigint,
          'the attacks undone, the whole thread is served again');
RESET ROLE;
-- The store: a get and a search refuse an item whose value, or whose memory
-- revision, was altered.
SET session_replication_role = replica;
UPDATE agent_state.graph_item_values SET value = '{"drink": "poison"}'
WHERE entry_id = pg_temp.id('food') AND revision = 1;
RESET session_replication_role;
SET ROLE t260_ra;
SELECT throws_like($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}', item_key => 'food')$$,
                   '%graph_item_values%does not match its digest%',
                   'an altered item value: get refuses it, naming graph_item_values');
SELECT throws_ok($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), '{users}', 'tea')$$, 'XX001', NULL,
                 '... a search that would serve it: XX001');
RESET ROLE;
SET session_replication_role = replica;
UPDATE agent_state.graph_item_values SET value = '{"drink": "tea"}'
WHERE entry_id = pg_temp.id('food') AND revision = 1;
UPDATE agent_state.memory_revisions SET body = 'drinks poison' WHERE entry_id = pg_temp.id('food') AND revision = 1;
UPDATE agent_state.memory_entries SET body = 'drinks poison' WHERE entry_id = pg_temp.id('food');
RESET session_replication_role;
SET ROLE t260_ra;
SELECT throws_ok($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}', item_key => 'food')$$,
                 'XX001', NULL, 'an altered memory revision of an item: get refuses it (XX001)');
RESET ROLE;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions SET body = 'drinks green tea' WHERE entry_id = pg_temp.id('food') AND revision = 1;
UPDATE agent_state.memory_entries SET body = 'drinks green tea' WHERE entry_id = pg_temp.id('food');
RESET session_replication_role;
SET ROLE t260_ra;
SELECT results_eq($$SELECT value FROM agent_state.graph_item_search(pg_temp.id('a'), '{users,u1}', item_key => 'food')$$,
                  $$VALUES ('{"drink": "tea"}'::jsonb)$$, 'the attacks undone, get serves the item again');
RESET ROLE;

-- ================================================================ plans
-- The reads keep to the primary key whatever ANALYZE saw: with one checkpoint
-- holding almost every pending write, a generic plan made for the average value
-- scanned all of graph_writes for each checkpoint served.
SET ROLE t260_ra;
SELECT agent_state.graph_put(pg_temp.id('a'), 'skew', '', 's1', NULL, 'msgpack', '\x01', '{}') \g /dev/null
SELECT agent_state.graph_put_writes(pg_temp.id('a'), 'skew', '', 's1', 'task-' || g, '', '{0,1}', '{x,y}',
                                    '{json,json}', ARRAY['\x10', '\x11']::bytea [])
FROM pg_catalog.generate_series(1, 300) AS g \g /dev/null
RESET ROLE;
ANALYZE agent_state.graph_writes, agent_state.graph_checkpoints;
CREATE TEMP TABLE scans_before AS
SELECT pg_catalog.pg_stat_get_xact_numscans('agent_state.graph_writes'::regclass)
     + pg_catalog.pg_stat_get_xact_numscans('agent_state.graph_checkpoints'::regclass) AS n;
SET ROLE t260_ra;
SELECT pg_catalog.count(*) FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', max_results => 10) \g /dev/null
SELECT pg_catalog.count(*) FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', 'c2') \g /dev/null
SELECT pg_catalog.count(*) FROM agent_state.graph_list(pg_temp.id('a'), 'th1', '', before => 'c3') \g /dev/null
RESET ROLE;
SELECT is(pg_catalog.pg_stat_get_xact_numscans('agent_state.graph_writes'::regclass)
          + pg_catalog.pg_stat_get_xact_numscans('agent_state.graph_checkpoints'::regclass)
          - (SELECT n FROM scans_before), 0::bigint,
          'get_tuple and list read no table sequentially after ANALYZE saw one checkpoint hold most writes');

-- The pending writes of graph_list's every read shape come from one inlined
-- function; its comparisons must reach the whole primary key (the arguments'
-- collations differ: checkpoint ids sort as "C").
CREATE FUNCTION pg_temp.pending_plan() RETURNS text LANGUAGE plpgsql AS $pp$
DECLARE
    line text;
    plan text := '';
BEGIN
    FOR line IN EXPLAIN (COSTS OFF)
        SELECT * FROM agent_state.graph_checkpoints AS c
        LEFT JOIN LATERAL agent_state._graph_pending_writes(
            c.runtime_agent_id, c.thread_id, c.checkpoint_ns, c.checkpoint_id) AS w ON true
    LOOP
        plan := plan || line || E'\n';
    END LOOP;
    RETURN plan;
END
$pp$;
SELECT alike(pg_temp.pending_plan(),
             '%Index Cond: ((runtime_agent_id = c.runtime_agent_id) AND (thread_id = c.thread_id) AND '
             '(checkpoint_ns = c.checkpoint_ns) AND (checkpoint_id = c.checkpoint_id))%',
             'a checkpoint''s pending writes are read by the whole primary key (inlined, no function scan)');

SELECT * FROM finish();
ROLLBACK;
