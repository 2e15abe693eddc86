-- One-call APIs: remember_many (a batch of memories, each as remember writes it, all
-- or nothing) and record_turn (snapshot, model call, tool calls and results, and a
-- checkpoint in one bound call, each part as its own function writes it).
BEGIN;
SELECT plan(33);

CREATE ROLE t240_op IN ROLE agent_state_operator;
CREATE ROLE t240_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t240_rb LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql

SET ROLE t240_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t240-a'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't240_ra') \g /dev/null
SELECT agent_state.register_tool('t240.search', '1', '{}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't240.search', true) \g /dev/null
RESET ROLE;
SET ROLE t240_ra;
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U240')),
    ('conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C240', 'direct'));
INSERT INTO pg_temp.ids VALUES
    ('m', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('ann'), 'facts',
                                     ARRAY[pg_temp.id('ann')])),
    ('run', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), NULL, '{"tool_calls": 3}'));

-- ---------------------------------------------------------------- remember_many
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.remember_many(pg_temp.id('a'), pg_catalog.jsonb_build_array(
              pg_catalog.jsonb_build_object('body', 'Ann likes tea', 'source_message', pg_temp.id('m')),
              pg_catalog.jsonb_build_object('body', 'Ann has a cat', 'source_message', pg_temp.id('m'),
                                            'subject', pg_temp.id('ann'), 'visibility', 'conversation')))),
          2::bigint, 'remember_many writes every item');
SELECT results_eq($$SELECT source_actor, source_messages, visibility FROM agent_state.memory_history(pg_temp.id('a'),
                      (SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'cat', pg_temp.id('conv')) AS r))$$,
                  $$VALUES (pg_temp.id('ann'), ARRAY[pg_temp.id('m')], 'conversation'::text)$$,
                  'each item as remember writes it: provenance from the message, the visibility given');
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), pg_catalog.jsonb_build_array(
                     pg_catalog.jsonb_build_object('body', 'fine', 'source_message', pg_temp.id('m')),
                     pg_catalog.jsonb_build_object('body', '', 'source_message', pg_temp.id('m'))))$$,
                 '22023', 'memories[1].body: must not be empty', 'a bad item is named, with remember''s SQLSTATE');
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), pg_catalog.jsonb_build_array(
                     pg_catalog.jsonb_build_object('body', 'x')))$$,
                 '22004', 'memories[0].source_message: must not be null', 'an item without evidence: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'),
                     '[{"body": "x", "source_message": "nope"}]')$$,
                 '22023', 'memories[0].source_message: must be a UUID', 'a malformed id: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), '[{"body": "x", "colour": 1}]')$$,
                 '22023', NULL, 'an unknown key: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), '{}')$$,
                 '22023', NULL, 'not an array: 22023');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('a'), 'fine', pg_temp.id('conv'))),
          0::bigint, 'a failed batch wrote nothing (all or nothing)');
-- The batch is written by one set-based statement when every item is valid: it
-- must write what remember writes, in item order, and write nothing at all when
-- one item names something this agent does not have.
CREATE TEMP TABLE batch AS
SELECT r.ord, r.entry FROM agent_state.remember_many(pg_temp.id('a'), pg_catalog.jsonb_build_array(
    pg_catalog.jsonb_build_object('body', 'Ann b1', 'source_message', pg_temp.id('m'), 'subject', pg_temp.id('ann'),
                                  'visibility', 'conversation'),
    pg_catalog.jsonb_build_object('body', 'Ann b2', 'source_message', pg_temp.id('m'), 'visibility', NULL),
    pg_catalog.jsonb_build_object('body', 'Ann b3', 'source_message', pg_temp.id('m'), 'subject', NULL)))
    WITH ORDINALITY AS r (entry, revision, ord);
INSERT INTO pg_temp.ids
SELECT 'single', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Ann b1', pg_temp.id('m'), pg_temp.id('ann'),
                                                   'conversation') AS r;
RESET ROLE;
SELECT results_eq($$SELECT e.body FROM pg_temp.batch AS b JOIN agent_state.memory_entries AS e ON e.entry_id = b.entry
                    ORDER BY b.ord$$,
                  $$VALUES ('Ann b1'::text), ('Ann b2'), ('Ann b3')$$,
                  'remember_many returns the entries in item order');
SELECT results_eq($$SELECT e.current_revision, e.live, e.body, e.subject_id, e.visibility, e.source_type,
                           e.evidence_observers, e.evidence_conversations, r.operation, r.source_actor_id,
                           r.source_message_id, r.evidence_observers, r.evidence_conversations, r.created_by,
                           e.revised_at = r.created_at
                    FROM agent_state.memory_entries AS e JOIN agent_state.memory_revisions AS r USING (runtime_agent_id, entry_id)
                    WHERE e.entry_id IN ((SELECT b.entry FROM pg_temp.batch AS b WHERE b.ord = 1), pg_temp.id('single'))$$,
                  $$SELECT e.current_revision, e.live, e.body, e.subject_id, e.visibility, e.source_type,
                           e.evidence_observers, e.evidence_conversations, r.operation, r.source_actor_id,
                           r.source_message_id, r.evidence_observers, r.evidence_conversations, r.created_by,
                           e.revised_at = r.created_at
                    FROM agent_state.memory_entries AS e JOIN agent_state.memory_revisions AS r USING (runtime_agent_id, entry_id)
                    WHERE e.entry_id = pg_temp.id('single')
                    UNION ALL
                    SELECT e.current_revision, e.live, e.body, e.subject_id, e.visibility, e.source_type,
                           e.evidence_observers, e.evidence_conversations, r.operation, r.source_actor_id,
                           r.source_message_id, r.evidence_observers, r.evidence_conversations, r.created_by,
                           e.revised_at = r.created_at
                    FROM agent_state.memory_entries AS e JOIN agent_state.memory_revisions AS r USING (runtime_agent_id, entry_id)
                    WHERE e.entry_id = pg_temp.id('single')$$,
                  'a batch item is written exactly as remember writes the same memory');
SELECT is((SELECT e.visibility FROM pg_temp.batch AS b JOIN agent_state.memory_entries AS e ON e.entry_id = b.entry
           WHERE b.ord = 2), 'perspective', 'a JSON null visibility is the default, as in remember');
SET ROLE t240_ra;
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), pg_catalog.jsonb_build_array(
                     pg_catalog.jsonb_build_object('body', 'batch ok', 'source_message', pg_temp.id('m')),
                     pg_catalog.jsonb_build_object('body', 'batch bad', 'source_message', pg_temp.id('m'),
                                                   'subject', pg_catalog.gen_random_uuid())))$$,
                 'P0002', NULL, 'an unknown subject in one item: P0002 from remember');
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), pg_catalog.jsonb_build_array(
                     pg_catalog.jsonb_build_object('body', 'batch ok', 'source_message', pg_temp.id('m')),
                     pg_catalog.jsonb_build_object('body', 'batch bad', 'source_message', pg_catalog.gen_random_uuid())))$$,
                 'P0002', NULL, 'an unknown source message in one item: P0002 from remember');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_entries WHERE body LIKE 'batch %'), 0::bigint,
          '... and neither batch wrote its valid item');
SET ROLE t240_rb;
SELECT throws_ok($$SELECT * FROM agent_state.remember_many(pg_temp.id('a'), '[]')$$, '42501', NULL,
                 'a role that may not act for the agent: 42501');
RESET ROLE;

-- ---------------------------------------------------------------- record_turn
SET ROLE t240_ra;
INSERT INTO pg_temp.ids SELECT 'turn_snap', (t ->> 'snapshot')::uuid
FROM agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run'), 'prompt one', 'p', 'm', '{"n": 1}',
                             usage => '{"tokens": 12}', messages => ARRAY[pg_temp.id('m')],
                             tool_calls => '[{"tool": "t240.search", "input": {"q": 1}, "output": {"hits": 2}, "status": "ok"},
                                             {"tool": "t240.search", "input": {"q": 2}}]',
                             frontier => '{"step": 1}') AS t;
SELECT is((agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run')) -> 'budget' -> 'spent') - 'wall_time_seconds',
          '{"tokens": 12, "cost_usd": 0, "tool_calls": 2}'::jsonb,
          'the model call and both tool calls are charged to the run');
SELECT is(pg_catalog.jsonb_array_length(agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run')) -> 'unconfirmed_tool_calls'),
          1, 'the tool call without a result is unconfirmed');
SELECT is((agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run')) -> 'frontier'), '{"step": 1}'::jsonb,
          'the checkpoint is the frontier');
SELECT results_eq($$SELECT kind FROM agent_state.snapshot_sources(pg_temp.id('a'), pg_temp.id('turn_snap'))$$,
                  $$VALUES ('message'::text)$$, 'the snapshot records its sources');
-- All or nothing: a bad part leaves no snapshot, call or charge behind.
SELECT throws_ok($$SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run'), 'prompt two', 'p', 'm', '{}',
                     tool_calls => '[{"tool": "t240.unknown", "input": {}}]')$$,
                 '42501', NULL, 'a tool that is not granted: record_tool_call''s 42501');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.prompt_snapshots AS s WHERE s.run_id = pg_temp.id('run')),
          1::bigint, 'and nothing of that turn was written');
SET ROLE t240_ra;
SELECT throws_ok($$SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run'), 'p', 'p', 'm', '{}',
                     tool_calls => '[{"tool": "t240.search"}]')$$,
                 '22023', NULL, 'a malformed tool call: 22023');
SELECT throws_ok($$SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run'), 'p', 'p', 'm', '{}',
                     tool_calls => '[{"tool": "t240.search", "input": {}}, {"tool": "t240.search", "input": {}}]')$$,
                 '53400', NULL, 'the budget still binds: the third tool call exhausts it, the fourth is refused');
RESET ROLE;

-- The common turn is written directly (one charge for the whole turn); the same
-- turn through the five calls must leave exactly the same rows behind.
SET ROLE t240_ra;
INSERT INTO pg_temp.ids VALUES
    ('run_direct', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), NULL, '{"tokens": 1000}')),
    ('run_five', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), NULL, '{"tokens": 1000}'));
CREATE TEMP TABLE turn_ids AS
SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run_direct'), 'same prompt', 'p', 'm', '{"n": 2}',
                               response => '{"ok": true}', usage => '{"tokens": 30, "cost_usd": 0.5}',
                               messages => ARRAY[pg_temp.id('m'), pg_temp.id('m')],
                               tool_calls => '[{"tool": "t240.search", "input": {"q": 1}, "output": {"hits": 2}, "status": "ok"},
                                               {"tool": "t240.search", "input": {"q": 2}},
                                               {"tool": "t240.search", "input": {"q": 3}, "output": {}, "status": "unconfirmed"}]',
                               frontier => '{"step": 1}') AS t;
DO $five$
DECLARE
    a uuid := pg_temp.id('a');
    run uuid := pg_temp.id('run_five');
    snap uuid;
    mc uuid;
BEGIN
    snap := agent_state.snapshot_prompt(a, run, 'same prompt', messages => ARRAY[pg_temp.id('m'), pg_temp.id('m')]);
    mc := agent_state.record_model_call(a, run, snap, 'p', 'm', '{"n": 2}', '{"ok": true}',
                                        '{"tokens": 30, "cost_usd": 0.5}');
    PERFORM agent_state.record_tool_result(a, agent_state.record_tool_call(a, run, 't240.search', '{"q": 1}', mc),
                                           '{"hits": 2}', 'ok');
    PERFORM agent_state.record_tool_call(a, run, 't240.search', '{"q": 2}', mc);
    PERFORM agent_state.record_tool_result(a, agent_state.record_tool_call(a, run, 't240.search', '{"q": 3}', mc),
                                           '{}', 'unconfirmed');
    PERFORM agent_state.checkpoint(a, run, '{"step": 1}');
END
$five$;
RESET ROLE;
CREATE FUNCTION pg_temp.turn_rows(run uuid) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT pg_catalog.format('run %s/%s/%s %s', r.spent_tokens, r.spent_cost_usd, r.spent_tool_calls, r.status)
    FROM agent_state.runs AS r WHERE r.run_id = run
    UNION ALL
    SELECT pg_catalog.format('snapshot %s %s %s %s %s', s.prompt, s.prompt_sha256, s.persona_revision,
                             s.memory_count, s.message_count)
    FROM agent_state.prompt_snapshots AS s WHERE s.run_id = run
    UNION ALL
    SELECT pg_catalog.format('source %s %s', m.ordinal, m.message_id)
    FROM agent_state.snapshot_messages AS m JOIN agent_state.prompt_snapshots AS s USING (runtime_agent_id, snapshot_id)
    WHERE s.run_id = run
    UNION ALL
    SELECT pg_catalog.format('model call %s %s %s %s %s %s %s', c.provider, c.model, c.request, c.response,
                             c.tokens, c.cost_usd, c.status)
    FROM agent_state.model_calls AS c WHERE c.run_id = run
    UNION ALL
    SELECT pg_catalog.format('tool call %s %s %s %s', c.tool_name, c.grant_revision, c.input,
                             c.model_call_id IS NOT NULL)
    FROM agent_state.tool_calls AS c WHERE c.run_id = run
    UNION ALL
    SELECT pg_catalog.format('result %s %s %s %s', c.input, t.result_no, t.status, t.output)
    FROM agent_state.tool_results AS t JOIN agent_state.tool_calls AS c USING (runtime_agent_id, tool_call_id)
    WHERE c.run_id = run
    UNION ALL
    SELECT pg_catalog.format('checkpoint %s %s', k.checkpoint, k.frontier)
    FROM agent_state.checkpoints AS k WHERE k.run_id = run
$$;
SELECT bag_eq($$SELECT * FROM pg_temp.turn_rows(pg_temp.id('run_direct'))$$,
              $$SELECT * FROM pg_temp.turn_rows(pg_temp.id('run_five'))$$,
              'record_turn writes exactly the rows the five calls write for the same turn');
SELECT is((SELECT pg_catalog.count(*) FROM pg_temp.turn_rows(pg_temp.id('run_direct'))), 10::bigint,
          '... run, snapshot, one message source (stored once), model call, three calls, two results, checkpoint');
SELECT results_eq($$SELECT c.input FROM pg_temp.turn_ids AS t,
                           pg_catalog.jsonb_array_elements_text(t.t -> 'tool_calls') WITH ORDINALITY AS x (id, ord)
                           JOIN agent_state.tool_calls AS c ON c.tool_call_id = x.id::uuid
                    ORDER BY x.ord$$,
                  $$VALUES ('{"q": 1}'::jsonb), ('{"q": 2}'), ('{"q": 3}')$$,
                  'the tool call ids come back in the order of tool_calls');
-- The calls of one turn are inserted by one statement, so two may share a
-- created_at microsecond; recover_run breaks such ties by id, so the ids of a
-- turn ascend in turn order and the unconfirmed calls come back in turn order.
SET ROLE t240_ra;
INSERT INTO pg_temp.ids VALUES
    ('run_many', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), NULL, '{"tokens": 1000}'));
CREATE TEMP TABLE many_ids AS
SELECT agent_state.record_turn(
           pg_temp.id('a'), pg_temp.id('run_many'), 'many calls', 'p', 'm', '{}',
           tool_calls => (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                                     'tool', 't240.search', 'input', pg_catalog.jsonb_build_object('q', i))
                                 ORDER BY i)
                          FROM pg_catalog.generate_series(1, 40) AS i)) -> 'tool_calls' AS ids;
SELECT ok((SELECT pg_catalog.bool_and(x.id::uuid < y.id::uuid)
           FROM pg_temp.many_ids AS m,
                pg_catalog.jsonb_array_elements_text(m.ids) WITH ORDINALITY AS x (id, ord)
                JOIN pg_catalog.jsonb_array_elements_text(m.ids) WITH ORDINALITY AS y (id, ord)
                  ON y.ord = x.ord + 1),
          'the tool call ids of one turn ascend in turn order');
SELECT results_eq($$SELECT (c ->> 'input')::jsonb
                    FROM pg_catalog.jsonb_array_elements(agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run_many'))
                                                          -> 'unconfirmed_tool_calls') AS c$$,
                  $$SELECT pg_catalog.jsonb_build_object('q', i) FROM pg_catalog.generate_series(1, 40) AS i$$,
                  '... and recover_run lists its unconfirmed calls in turn order');
RESET ROLE;

-- Budget edges: the charge that reaches a limit is the last part of the turn
-- (recorded, the run becomes budget_exhausted); a limit reached before the last
-- part refuses the turn (53400) and nothing of it is written.
SET ROLE t240_ra;
INSERT INTO pg_temp.ids VALUES
    ('run_edge', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), NULL, '{"tool_calls": 2}')),
    ('run_tokens', agent_state.start_run(pg_temp.id('a'), pg_temp.id('conv'), NULL, '{"tokens": 10}'));
SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run_edge'), 'p', 'p', 'm', '{}',
                               tool_calls => '[{"tool": "t240.search", "input": {}}, {"tool": "t240.search", "input": {}}]')
\g /dev/null
SELECT is(agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run_edge')) ->> 'status', 'budget_exhausted',
          'the last tool call reaching the limit is recorded and exhausts the run');
SELECT throws_ok($$SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run_tokens'), 'p', 'p', 'm', '{}',
                     usage => '{"tokens": 10}', tool_calls => '[{"tool": "t240.search", "input": {}}]')$$,
                 '53400', NULL, 'the model call reaching the limit refuses the tool call after it: 53400');
SELECT is(agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run_tokens')) -> 'budget' -> 'spent' -> 'tokens',
          '0'::jsonb, '... and nothing of that turn was charged');
SELECT is((agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run_tokens'), 'p', 'p', 'm', '{}',
                                   usage => '{"tokens": 10}') ->> 'model_call') IS NOT NULL
          AND agent_state.recover_run(pg_temp.id('a'), pg_temp.id('run_tokens')) ->> 'status' = 'budget_exhausted',
          true, 'without tool calls the model call reaching the limit is recorded and exhausts the run');
-- Sources of another perspective are refused as snapshot_prompt refuses them.
SELECT throws_ok($$SELECT agent_state.record_turn(pg_temp.id('a'), pg_temp.id('run_direct'), 'p', 'p', 'm', '{}',
                     messages => ARRAY[pg_catalog.gen_random_uuid()])$$,
                 'P0002', NULL, 'an unknown message source: snapshot_prompt''s P0002');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
