-- restore_agent (SPEC section 13): the state back to a known-good moment by new
-- revisions only; never widening visibility, dropping evidence or un-redacting;
-- idempotent; all or nothing.
BEGIN;
SELECT plan(31);

\ir _setup.sql
-- How many rows the agent's history tables hold (what a refused call must not change).
CREATE FUNCTION pg_temp.history_rows(agent uuid) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.concat_ws(',',
        (SELECT count(*) FROM agent_state.memory_revisions WHERE runtime_agent_id = agent),
        (SELECT count(*) FROM agent_state.persona_activations WHERE runtime_agent_id = agent),
        (SELECT count(*) FROM agent_state.profile_revisions WHERE runtime_agent_id = agent),
        (SELECT count(*) FROM agent_state.tool_grants WHERE runtime_agent_id = agent),
        (SELECT count(*) FROM agent_state.agent_restores WHERE runtime_agent_id = agent))
$$;

CREATE ROLE t475_op IN ROLE agent_state_operator;
CREATE ROLE t475_rt IN ROLE agent_state_runtime;

-- ------------------------------------------------ a known-good state, then a bad week
SET ROLE t475_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t475-a', 'Good name', '{"subject_boost": 1}'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't475_rt') \g /dev/null
SELECT agent_state.register_tool('t475_search', '1', '{}') \g /dev/null
SELECT agent_state.register_tool('t475_shell', '1', '{}') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be careful and kind') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't475_search', true, '{}') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'tea', n.entry FROM agent_state.note(pg_temp.id('a'), 'likes green tea') AS n;
INSERT INTO pg_temp.ids SELECT 'plan', n.entry FROM agent_state.note(pg_temp.id('a'), 'the launch plan') AS n;
INSERT INTO pg_temp.ids SELECT 'secret', n.entry FROM agent_state.note(pg_temp.id('a'), 'the secret code') AS n;
INSERT INTO pg_temp.ids SELECT 'wide', n.entry FROM agent_state.note(pg_temp.id('a'), 'wide open') AS n;
INSERT INTO pg_temp.ids SELECT 'alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ALICE');
INSERT INTO pg_temp.ids SELECT 'conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1');
INSERT INTO pg_temp.ids SELECT 'm1', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'),
    pg_temp.id('alice'), 'I am vegetarian', ARRAY[pg_temp.id('alice')]);
INSERT INTO pg_temp.ids SELECT 'diet', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice is vegetarian',
    pg_temp.id('m1'), pg_temp.id('alice')) AS r;
SELECT pg_temp.mark('good');

SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be reckless') \g /dev/null
SELECT agent_state.revise_profile(pg_temp.id('a'), 'Bad name', '{"subject_boost": 50}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't475_search', false, '{}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't475_shell', true, '{}') \g /dev/null
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('tea'), 'likes strong coffee', 1) \g /dev/null
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('plan')) \g /dev/null
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('wide'), 'narrowed', 1, visibility => 'conversation') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'junk', n.entry FROM agent_state.note(pg_temp.id('a'), 'bad advice') AS n;
SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('secret'), 'leaked') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'm2', agent_state.record_message(pg_temp.id('a'), pg_temp.id('conv'),
    pg_temp.id('alice'), 'actually I eat fish', ARRAY[pg_temp.id('alice')]);
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('diet'), 'Alice eats fish', 1, pg_temp.id('m2')) \g /dev/null
RESET ROLE;

-- ------------------------------------------------ refusals write nothing
CREATE TEMP TABLE before_refusals AS SELECT pg_temp.history_rows(pg_temp.id('a')) AS v;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t475_rt;
SELECT throws_ok($$SELECT * FROM agent_state.restore_agent(pg_temp.id('a'), pg_temp.t('good'), 'x')$$,
                 '42501', NULL, 'a runtime cannot restore its agent');
RESET ROLE;
SET ROLE t475_op;
SELECT throws_ok($$SELECT * FROM agent_state.restore_agent(pg_temp.id('a'), NULL, 'x')$$, '22004', NULL,
                 'a null as_of: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.restore_agent(pg_temp.id('a'), pg_temp.t('good'), NULL)$$,
                 '22004', NULL, 'a null reason: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.restore_agent(gen_random_uuid(), pg_temp.t('good'), 'x')$$,
                 'P0002', NULL, 'an unknown agent: P0002');
SELECT is_empty($$SELECT * FROM agent_state.restore_agent(pg_temp.id('a'), now() + interval '1 day', 'x')$$,
                'a moment after now is now: nothing to write');
RESET ROLE;
SELECT is(pg_temp.history_rows(pg_temp.id('a')), (SELECT v FROM before_refusals),
          'the refused and empty restores wrote nothing');

-- ------------------------------------------------ the restore
SET ROLE t475_op;
CREATE TEMP TABLE wrote AS
SELECT * FROM agent_state.restore_agent(pg_temp.id('a'), pg_temp.t('good'), 'undo the bad week');
RESET ROLE;
SELECT results_eq(
    $$SELECT kind, object, operation FROM pg_temp.wrote ORDER BY kind, object COLLATE "C", operation$$,
    $$SELECT * FROM (VALUES
        ('memory'::text, pg_temp.id('diet')::text, 'amend'::text),
        ('memory', pg_temp.id('junk')::text, 'forget'),
        ('memory', pg_temp.id('plan')::text, 'restore'),
        ('memory', pg_temp.id('tea')::text, 'amend'),
        ('memory', pg_temp.id('wide')::text, 'amend'),
        ('persona', NULL, 'activate'),
        ('profile', NULL, 'revise'),
        ('tool', 't475_search', 'grant'),
        ('tool', 't475_shell', 'grant')) AS v (kind, object, operation)
      ORDER BY kind, object COLLATE "C", operation$$,
    'restore_agent returns every revision it wrote');

SET ROLE t475_rt;
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('a'))), 'Be careful and kind',
          'the persona active then is active again');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'))), 1,
          'by activating that revision, not by a copy');
SELECT results_eq($$SELECT display_name, settings FROM agent_state.profile_history(pg_temp.id('a'))
                    ORDER BY revision DESC LIMIT 1$$,
                  $$VALUES ('Good name'::text, '{"subject_boost": 1}'::jsonb)$$,
                  'the profile of then, as a new revision');
SELECT results_eq($$SELECT tool, enabled FROM agent_state.tool_grants(pg_temp.id('a'))$$,
                  $$VALUES ('t475_search'::text, true), ('t475_shell', false)$$,
                  'the grants of then; a tool first granted later is disabled');
SELECT is((SELECT body FROM agent_state.memory_entry(pg_temp.id('a'), pg_temp.id('tea'))), 'likes green tea',
          'an amended entry has its body of then again');
SELECT is((SELECT live FROM agent_state.memory_entry(pg_temp.id('a'), pg_temp.id('plan'))), true,
          'a forgotten entry is live again');
SELECT is((SELECT operation FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('plan'))
           ORDER BY revision DESC LIMIT 1), 'restore', 'through a restore revision');
SELECT is((SELECT live FROM agent_state.memory_entry(pg_temp.id('a'), pg_temp.id('junk'))), false,
          'an entry created since is forgotten');
SELECT is((SELECT visibility FROM agent_state.memory_entry(pg_temp.id('a'), pg_temp.id('wide'))),
          'conversation', 'visibility never widens: the narrower of the two');
SELECT is((SELECT body FROM agent_state.memory_entry(pg_temp.id('a'), pg_temp.id('wide'))), 'wide open',
          'with the body of then');
RESET ROLE;
SELECT set_eq(
    $$SELECT v.m FROM agent_state._revision_evidence(pg_temp.id('a'), pg_temp.id('diet'),
        (SELECT current_revision FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('diet'))) AS v (m)$$,
    $$VALUES (pg_temp.id('m1')), (pg_temp.id('m2'))$$,
    'the restored revision keeps every evidence message the entry has now');
SELECT is((SELECT body FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('diet')),
          'Alice is vegetarian', 'and the body of then');
SELECT ok((SELECT bool_and(r.body = '[redacted]') FROM agent_state.memory_revisions AS r
           WHERE r.entry_id = pg_temp.id('secret')), 'a redacted entry stays redacted: no text comes back');
SELECT is((SELECT live FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('secret')), false,
          'and stays out of recall');
SELECT ok((SELECT bool_and(r.reason = 'undo the bad week') FROM agent_state.memory_revisions AS r
           WHERE r.runtime_agent_id = pg_temp.id('a') AND r.created_at > pg_temp.t('good')
             AND r.revision = (SELECT max(x.revision) FROM agent_state.memory_revisions AS x
                               WHERE x.runtime_agent_id = r.runtime_agent_id AND x.entry_id = r.entry_id)
             AND r.entry_id <> pg_temp.id('secret')),
          'each memory revision it wrote records the reason');
SELECT results_eq($$SELECT reason, changes, created_by = 't475_op' FROM agent_state.agent_restores
                    WHERE runtime_agent_id = pg_temp.id('a')$$,
                  $$VALUES ('undo the bad week'::text, 9, true)$$,
                  'the restore is logged with its reason');
SELECT is_empty($$SELECT * FROM agent_state.verify()$$,
                'verify() finds every invariant held');
SELECT ok((SELECT count(*) FROM agent_state.memory_shares WHERE runtime_agent_id = pg_temp.id('a')) = 0,
          'no sharing grant was written');
SET ROLE t475_rt;
SELECT ok(EXISTS (SELECT FROM agent_state.recall(pg_temp.id('a'), 'launch plan') AS r
                  WHERE r.entry = pg_temp.id('plan')),
          'the restored entry is recalled again');
SELECT ok(EXISTS (SELECT FROM agent_state.timeline(pg_temp.id('a'), pg_temp.t('good')) AS t
                  WHERE t.operation = 'restore' AND t.object = pg_temp.id('plan')::text),
          'the timeline shows the restore');
RESET ROLE;

-- ------------------------------------------------ twice: nothing the second time
CREATE TEMP TABLE after_first AS SELECT pg_temp.history_rows(pg_temp.id('a')) AS v;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t475_op;
SELECT is_empty($$SELECT * FROM agent_state.restore_agent(pg_temp.id('a'), pg_temp.t('good'), 'again')$$,
                'restoring twice to the same moment writes nothing the second time');
RESET ROLE;
SELECT is(pg_temp.history_rows(pg_temp.id('a')), (SELECT v FROM after_first), 'not a single row');

-- ------------------------------------------------ append-only all the same
SELECT throws_ok($$UPDATE agent_state.agent_restores SET reason = 'rewritten'$$, '42501', NULL,
                 'the restore log is append-only');
SELECT throws_ok($$DELETE FROM agent_state.agent_restores$$, '42501', NULL, 'and cannot be deleted');

SELECT * FROM finish();
ROLLBACK;
