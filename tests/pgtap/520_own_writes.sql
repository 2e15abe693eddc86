-- The product's own writes skip the commit-time checks that its functions
-- already keep (SPEC section 1; agent_state._own_write): the entry, revision and
-- snapshot-source checks, and the insert triggers of snapshots, model calls, tool
-- calls, tool results and checkpoints (the functions lock and charge the run,
-- check the grant, hash the prompt and number checkpoints and results themselves). This file proves both halves of that allowance:
--   1. the functions keep the invariants: after every kind of write through them
--      (the lifecycle fixtures touch every table, plus remember_many and
--      record_turn), verify(), which runs the same per-row checks, finds nothing;
--   2. every other role's direct DML is still checked, a superuser included;
--      only the schema owner's own direct writes skip the checks, and verify()
--      reports what they let through.
BEGIN;
SELECT plan(29);

DO $roles$
BEGIN
    CREATE ROLE agent_state_lifecycle_host;
EXCEPTION WHEN duplicate_object THEN
    NULL;
END
$roles$;
CREATE ROLE t520_dba SUPERUSER;
CREATE ROLE t520_ra IN ROLE agent_state_runtime;
GRANT ALL ON ALL TABLES IN SCHEMA agent_state TO t520_ra;

-- ---------------------------------------------------------------- which checks are skipped
SELECT ok(pg_catalog.pg_get_triggerdef(g.oid) LIKE '%NOT agent_state._own_write()%',
          g.tgname || ': skipped for the product''s own writes')
FROM pg_catalog.pg_trigger AS g
WHERE g.tgrelid::regclass::text IN ('agent_state.memory_entries', 'agent_state.memory_revisions',
                                    'agent_state.prompt_snapshots', 'agent_state.graph_checkpoints',
                                    'agent_state.graph_writes', 'agent_state.model_calls',
                                    'agent_state.tool_calls', 'agent_state.checkpoints',
                                    'agent_state.tool_results')
  AND g.tgname IN ('memory_entries_insert_check', 'memory_entries_revision_check',
                   'memory_revisions_evidence_check', 'prompt_snapshots_sources_check',
                   'prompt_snapshots_before_insert', 'model_calls_before_insert',
                   'tool_calls_before_insert', 'checkpoints_before_insert', 'tool_results_before_insert',
                   -- a purge deletes exactly what it lists (_graph_purge); direct DML
                   -- is tested in tests/python/test_langgraph_saver.py
                   'graph_checkpoints_purge_listed', 'graph_writes_purge_listed')
ORDER BY g.tgname;
SELECT is((SELECT pg_catalog.count(*)::integer FROM pg_catalog.pg_trigger AS g
           WHERE g.tgrelid::regclass::text LIKE 'agent_state.%'
             AND pg_catalog.pg_get_triggerdef(g.oid) LIKE '%_own_write()%'),
          11, 'no other trigger skips anything for the owner');

SELECT is(agent_state._own_write(), true, 'the schema owner''s writes are the product''s own');
SET ROLE t520_dba;
SELECT is(agent_state._own_write(), false, 'another superuser''s are not');
RESET ROLE;
SET ROLE t520_ra;
SELECT is(agent_state._own_write(), false, 'a runtime''s direct writes are not');
RESET ROLE;

-- ---------------------------------------------------------------- 1. the functions keep them
\set handle t520
\ir ../lifecycle/realistic_state.sql
\ir ../lifecycle/state_0.2.0.sql
DO $more$
DECLARE
    agent uuid;
    conv uuid;
    actor uuid;
    msg uuid;
    run uuid;
    e uuid;
BEGIN
    SELECT a.runtime_agent_id INTO agent FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
    actor := agent_state.resolve_actor(agent, 'slack', 't520-user', 'T520');
    conv := agent_state.open_conversation(agent, 'slack', 't520-dm', 'direct');
    msg := agent_state.record_message(agent, conv, actor, 'I moved to Lisbon; I cycle to work',
                                      ARRAY[actor]);
    PERFORM agent_state.remember_many(agent, pg_catalog.jsonb_build_array(
        pg_catalog.jsonb_build_object('body', 'T520 lives in Lisbon', 'source_message', msg,
                                      'subject', actor),
        pg_catalog.jsonb_build_object('body', 'T520 cycles to work', 'source_message', msg,
                                      'visibility', 'conversation')));
    SELECT r.entry INTO e FROM agent_state.remember(agent, 'T520 likes figs', msg, actor) AS r;
    PERFORM agent_state.amend(agent, e, 'T520 likes fresh figs', 1, msg);
    PERFORM agent_state.amend(agent, e, 'T520 likes fresh figs', 2, visibility => 'conversation');
    run := agent_state.start_run(agent, conv, msg, '{"tokens": 100000}');
    PERFORM agent_state.record_turn(agent, run, 'prompt with figs', 'p', 'm', '{}',
        persona_revision => NULL,
        memory => pg_catalog.jsonb_build_array(
            pg_catalog.jsonb_build_object('entry', e, 'revision', 3)),
        messages => ARRAY[msg],
        tool_calls => '[]', frontier => '{"step": 1}');
    -- record_turn's direct path (one charge for the whole turn) and the five
    -- calls, on one run: the spending, numbering and hashes must add up.
    PERFORM agent_state.record_turn(agent, run, 'prompt two', 'p', 'm', '{}',
        usage => '{"tokens": 120, "cost_usd": 0.25}', messages => ARRAY[msg, msg],
        tool_calls => '[{"tool": "search", "input": {"q": "figs"}, "output": {"hits": 2}, "status": "ok"},
                        {"tool": "search", "input": {"q": "Lisbon"}}]',
        frontier => '{"step": 2}');
    PERFORM agent_state.record_model_call(agent, run,
        agent_state.snapshot_prompt(agent, run, 'prompt three'), 'p', 'm', '{}',
        usage => '{"tokens": 7}');
    PERFORM agent_state.record_tool_call(agent, run, 'search', '{"q": 3}');
    PERFORM agent_state.checkpoint(agent, run, '{"step": 3}');
    PERFORM agent_state.forget(agent, e, 3);
END
$more$;
SET CONSTRAINTS ALL IMMEDIATE;
SET CONSTRAINTS ALL DEFERRED;
SELECT is_empty($$SELECT * FROM agent_state.verify()$$,
                'after every kind of write through the functions, verify() finds nothing');
SELECT cmp_ok((SELECT pg_catalog.count(*) FROM agent_state.memory_revisions), '>=', 12::bigint,
              'the fixtures wrote revisions of many entries');
SELECT cmp_ok((SELECT pg_catalog.count(*) FROM agent_state.prompt_snapshots
               WHERE memory_count > 0 AND message_count > 0), '>=', 2::bigint,
              'and snapshots with both kinds of source');
SELECT results_eq(
    $$SELECT r.spent_tokens, r.spent_cost_usd, r.spent_tool_calls,
             (SELECT pg_catalog.max(k.checkpoint) FROM agent_state.checkpoints AS k
              WHERE k.runtime_agent_id = r.runtime_agent_id AND k.run_id = r.run_id)
      FROM agent_state.runs AS r
      WHERE r.run_id = (SELECT s.run_id FROM agent_state.prompt_snapshots AS s WHERE s.prompt = 'prompt two')$$,
    $$VALUES (127::numeric, 0.25::numeric, 3::bigint, 3)$$,
    'the turn''s run: every charge counted once, checkpoints 1 to 3');

-- ---------------------------------------------------------------- 2. everyone else's direct DML is checked
CREATE TEMP TABLE fx AS
SELECT a.runtime_agent_id AS agent, (SELECT r.run_id FROM agent_state.runs AS r
                                    WHERE r.runtime_agent_id = a.runtime_agent_id AND r.status = 'open'
                                    LIMIT 1) AS run
FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
GRANT SELECT ON fx TO PUBLIC;

-- (throws_ok rolls each failed statement back itself.)
SET ROLE t520_dba;
SELECT throws_ok($$
    INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body, visibility,
                                            source_type, revised_at)
    SELECT fx.agent, 1, 'orphan', 'perspective', 'operator', now() FROM pg_temp.fx;
    SET CONSTRAINTS ALL IMMEDIATE$$,
    '23503', NULL, 'another superuser''s entry without a revision fails at commit');
SELECT throws_ok($$
    UPDATE agent_state.memory_entries SET body = 'silently changed'
    WHERE runtime_agent_id = (SELECT fx.agent FROM pg_temp.fx) AND live;
    SET CONSTRAINTS ALL IMMEDIATE$$,
    '23514', NULL, 'another superuser''s entry change without a revision fails at commit');
SELECT throws_ok($$
    INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256,
                                              memory_count)
    SELECT fx.agent, fx.run, 'short', '', 2 FROM pg_temp.fx;
    SET CONSTRAINTS ALL IMMEDIATE$$,
    '23514', NULL, 'another superuser''s snapshot without its sources fails at commit');
WITH k AS (
    INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
    SELECT fx.agent, fx.run, 99, '{}' FROM pg_temp.fx
    RETURNING checkpoint
)
SELECT isnt((SELECT k.checkpoint FROM k), 99,
            'another superuser''s checkpoint is numbered by the database, not by the writer');
RESET ROLE;

-- The owner's own direct writes are the product's: unchecked at commit (that is
-- the allowance), reported by verify(). (Outside pgTAP calls: rolling back to the
-- savepoint would roll back pgTAP's count of the tests run in it.)
SAVEPOINT owner_direct;
INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body, visibility,
                                        source_type, revised_at)
SELECT fx.agent, 1, 'orphan', 'perspective', 'operator', now() FROM pg_temp.fx;
SET CONSTRAINTS ALL IMMEDIATE;
SELECT pg_catalog.count(*) AS owner_orphans FROM agent_state.verify() AS v
WHERE v.check_name = 'memory_entry' \gset
ROLLBACK TO SAVEPOINT owner_direct;
SET CONSTRAINTS ALL DEFERRED;
SELECT is(:owner_orphans::integer, 1,
          'the schema owner''s direct entry without a revision commits unchecked, '
          'and verify() reports it');

-- What a row shows about itself is held by row checks, for the owner too.
SELECT throws_ok($$INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body, visibility,
                                                           source_type, revised_at)
                   SELECT fx.agent, 0, 'no revision 0', 'perspective', 'operator', now() FROM pg_temp.fx$$,
                 '23514', NULL, 'the owner''s direct entry at revision 0 is refused by a row check');
SELECT throws_ok($$INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body, visibility,
                                                           source_type, revised_at)
                   SELECT fx.agent, 1, pg_catalog.repeat('x', 100001), 'perspective', 'operator', now()
                   FROM pg_temp.fx$$,
                 '23514', NULL, 'the owner''s direct entry with an overlong body is refused by a row check');

-- The same for the execution tables' insert triggers: an uncharged model call and
-- a checkpoint out of sequence, both reported. A forged prompt hash is refused
-- even for the owner: a row check holds it (23514).
SELECT throws_ok($$INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256)
                   SELECT fx.agent, fx.run, 'forged', pg_catalog.repeat('0', 64) FROM pg_temp.fx$$,
                 '23514', NULL, 'the owner''s direct snapshot with a forged hash is refused by a row check');
SAVEPOINT owner_exec;
INSERT INTO agent_state.prompt_snapshots (runtime_agent_id, run_id, prompt, prompt_sha256)
SELECT fx.agent, fx.run, 'forged', pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to('forged', 'UTF8')), 'hex')
FROM pg_temp.fx;
INSERT INTO agent_state.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model, request, tokens)
SELECT fx.agent, fx.run, s.snapshot_id, 'p', 'm', '{}', 5
FROM pg_temp.fx JOIN agent_state.prompt_snapshots AS s ON s.run_id = fx.run AND s.prompt = 'forged';
INSERT INTO agent_state.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
SELECT fx.agent, fx.run, 99, '{}' FROM pg_temp.fx;
INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
SELECT fx.agent, c.tool_call_id, 9, 'ok', '{}'
FROM pg_temp.fx JOIN agent_state.tool_calls AS c ON c.runtime_agent_id = fx.agent
ORDER BY c.tool_call_id
LIMIT 1;
SELECT pg_catalog.string_agg(v.check_name || ': ' || v.detail, '; ' ORDER BY v.check_name) AS owner_exec
FROM agent_state.verify() AS v
WHERE v.check_name IN ('snapshot_hash', 'run_budget', 'checkpoint_numbering', 'tool_result_numbering') \gset
ROLLBACK TO SAVEPOINT owner_exec;
SELECT alike(:'owner_exec'::text,
             'checkpoint_numbering: % checkpoints numbered 1 to 99; run_budget: %; '
             'tool_result_numbering: % results numbered % to 9',
             'the owner''s direct model call, checkpoint and tool result skip the insert triggers, '
             'and verify() reports each (a numbered stream with a gap)');

-- "Own" is the owner of the functions, not of the schema: after ALTER SCHEMA ...
-- OWNER the functions still run as their owner, and a model call through them
-- must still be charged once, not a second time by the insert trigger. (The
-- schema's event trigger refuses that ALTER, sql/guard.sql and
-- tests/python/test_install_trust.py: a superuser who disables it can still do it.)
SAVEPOINT schema_owner;
ALTER EVENT TRIGGER agent_state_guard DISABLE;
ALTER SCHEMA agent_state OWNER TO t520_dba;
SELECT r.spent_tokens AS tokens_before FROM agent_state.runs AS r JOIN pg_temp.fx ON r.run_id = fx.run \gset
SELECT agent_state.record_model_call(fx.agent, fx.run, agent_state.snapshot_prompt(fx.agent, fx.run, 'after alter'),
                                     'p', 'm', '{}', usage => '{"tokens": 5}') IS NOT NULL AS called
FROM pg_temp.fx \gset
SELECT r.spent_tokens - :tokens_before AS charged FROM agent_state.runs AS r JOIN pg_temp.fx ON r.run_id = fx.run \gset
ROLLBACK TO SAVEPOINT schema_owner;
SELECT is(:charged::numeric, 5::numeric,
          'after the schema changes owner, a model call through the functions is charged once');

SELECT * FROM finish();
ROLLBACK;
