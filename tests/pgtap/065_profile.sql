-- The profile (display name and settings) is versioned like the persona (SPEC
-- section 5, "Profile"): create_agent writes revision 1, revise_profile appends,
-- nothing is updated in place, and ranking uses the revision current at the
-- moment it ranks for.
BEGIN;
SELECT plan(22);

\ir _setup.sql

CREATE ROLE t065_op IN ROLE agent_state_operator;
CREATE ROLE t065_rt IN ROLE agent_state_runtime;
CREATE ROLE t065_other IN ROLE agent_state_runtime;

SET ROLE t065_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t065-a', 'First name', '{"subject_boost": 2, "custom": 1}'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't065_rt') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'chess', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'CHESS');
INSERT INTO pg_temp.ids SELECT 'e', n.entry FROM agent_state.note(pg_temp.id('a'), 'plays chess on sundays',
                                                                 pg_temp.id('chess')) AS n;
INSERT INTO pg_temp.moments VALUES ('before', clock_timestamp());
SELECT is(agent_state.revise_profile(pg_temp.id('a'), display_name => 'Second name'), 2,
          'revise_profile appends revision 2');
SELECT is(agent_state.revise_profile(pg_temp.id('a'), settings => '{"subject_boost": 0}'), 3,
          'and revision 3');
RESET ROLE;

SELECT results_eq(
    $$SELECT revision, display_name, settings, created_by FROM agent_state.profile_history(pg_temp.id('a'))$$,
    $$VALUES (1, 'First name'::text, '{"subject_boost": 2, "custom": 1}'::jsonb, 't065_op'::text),
             (2, 'Second name', '{"subject_boost": 2, "custom": 1}', 't065_op'),
             (3, 'Second name', '{"subject_boost": 0}', 't065_op')$$,
    'profile_history: every revision oldest first; null keeps the current value');
SELECT ok((SELECT bool_and(h.created_at IS NOT NULL) FROM agent_state.profile_history(pg_temp.id('a')) AS h),
          'each revision is stamped');

-- Ranking reads the settings current at the moment it ranks for.
SET ROLE t065_rt;
SELECT is((SELECT round((SELECT r.score FROM agent_state.recall(pg_temp.id('a'), 'chess',
                             current_subject => pg_temp.id('chess'),
                             as_of => (SELECT t FROM pg_temp.moments WHERE k = 'before')) AS r)::numeric
                        / (SELECT r.score FROM agent_state.recall(pg_temp.id('a'), 'chess',
                             current_subject => pg_temp.id('chess')) AS r)::numeric, 2)),
          3.00, 'recall(as_of) ranks with the settings of then (boost 2: x3) and now with boost 0 (x1)');
SELECT is((SELECT count(*) FROM agent_state.profile_history(pg_temp.id('a'))), 3::bigint,
          'a runtime hosting the agent reads its profile history');
SELECT throws_ok($$SELECT agent_state.revise_profile(pg_temp.id('a'), 'Runtime name')$$, '42501', NULL,
                 'a runtime cannot revise the profile');
RESET ROLE;
SET ROLE t065_other;
SELECT throws_ok($$SELECT * FROM agent_state.profile_history(pg_temp.id('a'))$$, '42501', NULL,
                 'a runtime not hosting the agent cannot read its profile');
RESET ROLE;

-- Bad input: nothing written.
SET ROLE t065_op;
SELECT throws_ok($$SELECT agent_state.revise_profile(pg_temp.id('a'), settings => '{"subject_boost": "lots"}')$$,
                 '22023', NULL, 'bad settings: 22023');
SELECT throws_ok($$SELECT agent_state.revise_profile(pg_temp.id('a'), settings => '[1]')$$,
                 '22023', NULL, 'settings that are not an object: 22023');
SELECT throws_ok($$SELECT agent_state.revise_profile(pg_temp.id('a'), display_name => '  ')$$,
                 '22023', NULL, 'a blank display_name: 22023');
SELECT throws_ok($$SELECT agent_state.revise_profile(pg_temp.id('a'), display_name => pg_catalog.repeat('d', 1001))$$,
                 '22023', NULL, 'a display_name over 1000 characters: 22023');
SELECT throws_ok($$SELECT agent_state.revise_profile(NULL, 'x')$$, '22004', NULL, 'a null agent: 22004');
SELECT throws_ok($$SELECT agent_state.revise_profile(gen_random_uuid(), 'x')$$, 'P0002', NULL,
                 'an unknown agent: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.profile_history(gen_random_uuid())$$, 'P0002', NULL,
                 'profile_history of an unknown agent: P0002');
RESET ROLE;
SELECT is((SELECT max(p.revision) FROM agent_state.profile_revisions AS p
           WHERE p.runtime_agent_id = pg_temp.id('a')), 3, 'the refused calls wrote nothing');

-- Append-only, for every role, the owner included.
SELECT throws_ok($$UPDATE agent_state.profile_revisions SET display_name = 'rewritten'
                   WHERE runtime_agent_id = pg_temp.id('a')$$, '42501', NULL,
                 'a profile revision cannot be updated');
SELECT throws_ok($$DELETE FROM agent_state.profile_revisions WHERE runtime_agent_id = pg_temp.id('a')$$,
                 '42501', NULL, 'a profile revision cannot be deleted');
SELECT throws_ok($$TRUNCATE agent_state.profile_revisions$$, '42501', NULL,
                 'the profile cannot be truncated');
SELECT throws_ok($$INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, settings)
                   VALUES (pg_temp.id('a'), 4, '{"recency_half_life": "0 days"}')$$, '23514', NULL,
                 'no role can store invalid settings (the table''s CHECK)');
SELECT hasnt_column('agent_state', 'agents', 'settings', 'agents keeps no settings to update in place');
SELECT hasnt_column('agent_state', 'agents', 'display_name', 'nor a display name');

SELECT * FROM finish();
ROLLBACK;
