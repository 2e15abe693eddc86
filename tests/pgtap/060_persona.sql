-- Persona (SPEC section 5): numbering, the always-active first revision,
-- activation and revert without copies, the activation log, active_persona at
-- past moments, persona_history with created_by as the calling role's name.
BEGIN;
SET client_min_messages = warning;
SELECT plan(47);

-- An operator whose name needs quoting everywhere.
CREATE ROLE "t060 Op ""Q"" ü" IN ROLE agent_state_operator;
CREATE ROLE t060_op2 IN ROLE agent_state_operator;
CREATE ROLE t060_ra LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql
CREATE FUNCTION pg_temp.rows_of(agent uuid) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.persona_revisions AS r WHERE r.runtime_agent_id = agent)
        || '/' || (SELECT pg_catalog.count(*) FROM agent_state.persona_activations AS a
                   WHERE a.runtime_agent_id = agent)
$$;

SET ROLE "t060 Op ""Q"" ü";
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t060-a')),
    ('b', agent_state.create_agent('t060-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't060_ra') \g /dev/null
RESET ROLE;

-- ---------------------------------------------------------------- no persona yet
SELECT is_empty($$SELECT * FROM agent_state.active_persona(pg_temp.id('a'))$$,
                'an agent without persona has no active revision');
SELECT is_empty($$SELECT * FROM agent_state.persona_history(pg_temp.id('a'))$$,
                'and an empty history');
SELECT pg_temp.mark('t0') \g /dev/null

-- ---------------------------------------------------------------- numbering
SET ROLE "t060 Op ""Q"" ü";
SELECT is(agent_state.revise_persona(pg_temp.id('a'), 'You are A, version one.', false), 1,
          'the first revision is number 1');
RESET ROLE;
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'))), 1,
          'the first revision is active even with activate => false');
SELECT pg_temp.mark('t1') \g /dev/null
SET ROLE "t060 Op ""Q"" ü";
SELECT is(agent_state.revise_persona(agent => pg_temp.id('a'), body => 'You are A, version two.'), 2,
          'the next revision is number 2');
RESET ROLE;
SELECT pg_temp.mark('t2') \g /dev/null
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'))), 2,
          'a new revision is activated by default');
SET ROLE t060_op2;
SELECT is(agent_state.revise_persona(pg_temp.id('a'), 'You are A, draft three.', activate => false), 3,
          'revision 3');
SELECT is(agent_state.revise_persona(pg_temp.id('b'), 'You are B.'), 1,
          'numbering is per agent: B starts at 1');
RESET ROLE;
SELECT pg_temp.mark('t3') \g /dev/null
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'))), 2,
          'activate => false leaves the active revision alone');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('b'))), 1,
          'B''s first revision is active');

-- ---------------------------------------------------------------- activate and revert
SELECT is(pg_temp.rows_of(pg_temp.id('a')), '3/2', 'three revisions, two activations logged');
SET ROLE t060_op2;
SELECT lives_ok($$SELECT agent_state.activate_persona(pg_temp.id('a'), 3)$$, 'activate the draft (revision 3)');
RESET ROLE;
SELECT pg_temp.mark('t4') \g /dev/null
SELECT is((SELECT revision || ':' || body FROM agent_state.active_persona(pg_temp.id('a'))),
          '3:You are A, draft three.', 'revision 3 is active with its body');
SET ROLE "t060 Op ""Q"" ü";
SELECT lives_ok($$SELECT agent_state.activate_persona(agent => pg_temp.id('a'), revision => 1)$$,
                'revert to revision 1');
RESET ROLE;
SELECT pg_temp.mark('t5') \g /dev/null
SELECT is((SELECT revision || ':' || body FROM agent_state.active_persona(pg_temp.id('a'))),
          '1:You are A, version one.', 'after the revert revision 1 is active');
SELECT is(pg_temp.rows_of(pg_temp.id('a')), '3/4', 'reverting copied no revision; it logged one activation');
SELECT is((SELECT pg_catalog.max(revision) FROM agent_state.persona_revisions WHERE runtime_agent_id = pg_temp.id('a')),
          3, 'no revision 4 was minted by the revert');
SET ROLE "t060 Op ""Q"" ü";
SELECT lives_ok($$SELECT agent_state.activate_persona(pg_temp.id('a'), 1)$$,
                'activating the active revision again is accepted');
RESET ROLE;
SELECT is(pg_temp.rows_of(pg_temp.id('a')), '3/4', 'and changes nothing (no new activation)');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.persona_revisions
           WHERE runtime_agent_id = pg_temp.id('a') AND is_active), 1::bigint, 'exactly one active revision');

-- ---------------------------------------------------------------- the activation log
SELECT results_eq(
    $$SELECT revision, created_by::text COLLATE "default" FROM agent_state.persona_activations
      WHERE runtime_agent_id = pg_temp.id('a') ORDER BY activation_id$$,
    $$VALUES (1, 't060 Op "Q" ü'), (2, 't060 Op "Q" ü'), (3, 't060_op2'), (1, 't060 Op "Q" ü')$$,
    'every activation is logged in order with the role that made it');
SELECT ok((SELECT pg_catalog.bool_and(created_at > pg_temp.t('t0') AND created_at < pg_catalog.clock_timestamp())
           FROM agent_state.persona_activations WHERE runtime_agent_id = pg_temp.id('a')),
          'activation times are real clock times of this test');

-- ---------------------------------------------------------------- active_persona as_of
SELECT is_empty($$SELECT * FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t0'))$$,
                'as_of before the first revision: no row');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t1'))), 1,
          'as_of t1: revision 1');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t2'))), 2,
          'as_of t2: revision 2');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t3'))), 2,
          'as_of t3: still revision 2 (revision 3 was not activated)');
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t4'))),
          'You are A, draft three.', 'as_of t4: revision 3 with its body');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t5'))), 1,
          'as_of t5: revision 1 again (the revert)');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'), 'infinity')), 1,
          'as_of in the far future: the current revision');
SELECT is((SELECT activated_at FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t4'))),
          (SELECT created_at FROM agent_state.persona_activations
           WHERE runtime_agent_id = pg_temp.id('a') AND revision = 3),
          'activated_at is the time the activation was logged');
SELECT ok((SELECT activated_at > pg_temp.t('t3') AND activated_at < pg_temp.t('t4')
           FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('t4'))),
          'activated_at lies between the surrounding moments');
SELECT is_empty($$SELECT * FROM agent_state.active_persona(pg_temp.id('b'), pg_temp.t('t2'))$$,
                'B had no persona at t2 (per-agent log)');

-- ---------------------------------------------------------------- persona_history
SELECT results_eq(
    $$SELECT revision, body, created_by, is_active FROM agent_state.persona_history(pg_temp.id('a'))$$,
    $$VALUES (1, 'You are A, version one.', 't060 Op "Q" ü', true),
             (2, 'You are A, version two.', 't060 Op "Q" ü', false),
             (3, 'You are A, draft three.', 't060_op2', false)$$,
    'persona_history: revisions oldest first, created_by is the role name unquoted');
SELECT ok((SELECT pg_catalog.bool_and(h.created_at > pg_temp.t('t0')) AND pg_catalog.count(*) = 3
           FROM agent_state.persona_history(pg_temp.id('a')) AS h),
          'persona_history created_at values are the creation times');
SELECT ok((SELECT h1.created_at < h2.created_at
           FROM agent_state.persona_history(pg_temp.id('a')) AS h1,
                agent_state.persona_history(pg_temp.id('a')) AS h2
           WHERE h1.revision = 1 AND h2.revision = 2),
          'created_at increases with the revision number');

-- ---------------------------------------------------------------- runtimes read, operators write
SET ROLE t060_ra;
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'))), 1,
          'a hosting runtime reads the active persona');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.persona_history(pg_temp.id('a'))), 3::bigint,
          'a hosting runtime reads the persona history');
SELECT throws_ok($$SELECT agent_state.revise_persona(pg_temp.id('a'), 'runtime wrote this')$$, '42501',
                 NULL, 'a runtime cannot revise the persona of the agent it hosts');
SELECT throws_ok($$SELECT agent_state.activate_persona(pg_temp.id('a'), 2)$$, '42501',
                 NULL, 'a runtime cannot activate a persona revision');
SELECT throws_ok($$SELECT * FROM agent_state.active_persona(pg_temp.id('b'))$$, '42501',
                 NULL, 'a runtime cannot read the persona of an agent it does not host');
RESET ROLE;
SELECT is(pg_temp.rows_of(pg_temp.id('a')), '3/4', 'refused runtime writes changed nothing');

-- ---------------------------------------------------------------- bad revisions
SET ROLE t060_op2;
SELECT throws_ok($$SELECT agent_state.activate_persona(pg_temp.id('a'), 4)$$, 'P0002',
                 NULL, 'activating a revision that does not exist: P0002');
SELECT throws_ok($$SELECT agent_state.activate_persona(pg_temp.id('a'), 0)$$, 'P0002',
                 NULL, 'revision 0: P0002');
SELECT throws_ok($$SELECT agent_state.activate_persona(pg_temp.id('a'), NULL)$$, '22004',
                 NULL, 'revision null: 22004');
SELECT throws_ok($$SELECT agent_state.activate_persona(pg_temp.id('b'), 3)$$, 'P0002',
                 NULL, 'a revision number only A has is unknown for B: P0002');
RESET ROLE;
SELECT is(pg_temp.rows_of(pg_temp.id('a')) || ' ' || pg_temp.rows_of(pg_temp.id('b')), '3/4 1/1',
          'bad activations changed nothing');

-- The whole transaction satisfies the deferred exactly-one-active check.
SELECT lives_ok($$SET CONSTRAINTS ALL IMMEDIATE$$, 'deferred persona checks pass');

SELECT * FROM finish();
ROLLBACK;
