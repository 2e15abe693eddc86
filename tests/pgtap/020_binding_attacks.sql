-- Perspective binding under attack: runtime role t020_ra hosts agent A and tries
-- every foundation function on agent B (hosted by t020_rb), with and without
-- settings that a naive implementation might read for identity. Every attempt
-- must raise 42501 and write nothing.
BEGIN;
SELECT plan(59);

CREATE ROLE t020_op IN ROLE agent_state_operator;
CREATE ROLE t020_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t020_rb LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql

-- Every foundation row, counted by the superuser (who bypasses RLS).
CREATE FUNCTION pg_temp.foundation_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.agents)
         + (SELECT pg_catalog.count(*) FROM agent_state.agent_hosts)
         + (SELECT pg_catalog.count(*) FROM agent_state.actors)
         + (SELECT pg_catalog.count(*) FROM agent_state.actor_identities)
         + (SELECT pg_catalog.count(*) FROM agent_state.conversations)
         + (SELECT pg_catalog.count(*) FROM agent_state.messages)
         + (SELECT pg_catalog.count(*) FROM agent_state.persona_revisions)
         + (SELECT pg_catalog.count(*) FROM agent_state.persona_revisions WHERE is_active)
         + (SELECT pg_catalog.count(*) FROM agent_state.persona_activations)
$$;

-- Agent B with one of everything, so the attacks can name real rows of B.
SET ROLE t020_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t020-a')),
    ('b', agent_state.create_agent('t020-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't020_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't020_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'UB')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'CB', 'direct'));
CREATE TEMP TABLE setup_done AS
SELECT agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'),
                                  'hello from B', ARRAY[pg_temp.id('b_actor')]) AS m,
       agent_state.revise_persona(pg_temp.id('b'), 'B persona') AS r1;
INSERT INTO setup_done (r1) SELECT agent_state.revise_persona(pg_temp.id('b'), 'B persona 2', false);
RESET ROLE;
CREATE TEMP TABLE before_rows AS SELECT pg_temp.foundation_rows() AS n;

-- Each attack as one statement, so the same list runs under every disguise.
CREATE TEMP TABLE attacks (name text PRIMARY KEY, stmt text NOT NULL);
INSERT INTO attacks VALUES
    ('resolve_actor', $$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'UX')$$),
    ('link_identity', $$SELECT agent_state.link_identity(pg_temp.id('b'), pg_temp.id('b_actor'), 'github', 'gx')$$),
    ('open_conversation', $$SELECT agent_state.open_conversation(pg_temp.id('b'), 'slack', 'CX')$$),
    ('record_message', $$SELECT agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'),
        pg_temp.id('b_actor'), 'spoofed', ARRAY[pg_temp.id('b_actor')])$$),
    ('active_persona', $$SELECT * FROM agent_state.active_persona(pg_temp.id('b'))$$),
    ('persona_history', $$SELECT * FROM agent_state.persona_history(pg_temp.id('b'))$$),
    ('revise_persona', $$SELECT agent_state.revise_persona(pg_temp.id('b'), 'hijacked')$$),
    ('activate_persona', $$SELECT agent_state.activate_persona(pg_temp.id('b'), 2)$$),
    ('grant_hosting', $$SELECT agent_state.grant_hosting(pg_temp.id('b'), 't020_ra')$$),
    ('revoke_hosting', $$SELECT agent_state.revoke_hosting(pg_temp.id('b'), 't020_rb')$$),
    ('create_agent', $$SELECT agent_state.create_agent('t020-evil')$$);

GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
GRANT ALL ON ALL SEQUENCES IN SCHEMA pg_temp TO PUBLIC;

-- ---------------------------------------------------------------- plain attempts
SET ROLE t020_ra;
SELECT throws_ok(a.stmt, '42501', NULL, 'A''s runtime calling ' || a.name || ' for B: 42501')
FROM attacks AS a ORDER BY a.name;
SELECT throws_ok($$SELECT agent_state.resolve_actor('00000000-0000-0000-0000-0000000000bb', 'slack', 'UX')$$,
                 '42501', NULL, 'an unknown agent is refused exactly like an existing unhosted one');
RESET ROLE;
SELECT is(pg_temp.foundation_rows(), (SELECT n FROM before_rows), 'plain attempts wrote nothing');

-- ---------------------------------------------------------------- settings as disguise
-- A real (non-superuser) session: session_user is t020_ra from here on.
SET SESSION AUTHORIZATION t020_ra;
SELECT is(session_user::text, 't020_ra', 'the session now belongs to t020_ra');
SET agent_state.agent = 'placeholder';
SET application_name = 't020_rb';
DO $spoof$
BEGIN
    PERFORM pg_catalog.set_config('agent_state.agent', pg_temp.id('b')::text, false);
    PERFORM pg_catalog.set_config('agent_state.agent_id', pg_temp.id('b')::text, false);
    PERFORM pg_catalog.set_config('agent_state.caller', 't020_rb', false);
    PERFORM pg_catalog.set_config('agent_state.role', 'agent_state_operator', false);
    PERFORM pg_catalog.set_config('agent_state.operator', 'on', false);
    PERFORM pg_catalog.set_config('request.jwt.claims', pg_catalog.json_build_object(
        'role', 't020_rb', 'sub', 't020_rb', 'agent', pg_temp.id('b'))::text, false);
    PERFORM pg_catalog.set_config('request.jwt.claim.role', 't020_rb', false);
    PERFORM pg_catalog.set_config('request.jwt.claim.sub', 't020_rb', false);
    PERFORM pg_catalog.set_config('my.custom.agent', pg_temp.id('b')::text, false);
END
$spoof$;
SELECT is(pg_catalog.current_setting('agent_state.agent_id'), pg_temp.id('b')::text,
          'the spoofing settings are in effect');
SELECT throws_ok(a.stmt, '42501', NULL, 'with spoofed settings, ' || a.name || ' for B: 42501')
FROM attacks AS a ORDER BY a.name;

-- Changing identity is checked by PostgreSQL itself.
SELECT throws_ok($$SET ROLE t020_rb$$, '42501', NULL, 'SET ROLE to another runtime is refused');
SELECT throws_ok($$SELECT pg_catalog.set_config('role', 't020_rb', false)$$, '42501',
                 NULL, 'set_config(role) to another runtime is refused');
SELECT throws_ok($$SELECT pg_catalog.set_config('role', 't020_rb', true)$$, '42501',
                 NULL, 'set_config(role, is_local) to another runtime is refused');
SELECT throws_ok($$SET ROLE agent_state_operator$$, '42501', NULL, 'SET ROLE to the operator group is refused');
-- (SET SESSION AUTHORIZATION is not tried here: PostgreSQL allows it whenever the
-- authenticated user is a superuser, which the test session is; a real login
-- as t020_ra cannot use it.)
SELECT is(agent_state._caller()::text, 't020_ra', 'the caller is still t020_ra');
SELECT is(agent_state._hosted_agents(), ARRAY[pg_temp.id('a')], 't020_ra hosts exactly agent A');
SELECT ok(NOT agent_state._caller_is_operator(), 't020_ra is not an operator');

-- Internal helpers are not reachable.
SELECT throws_ok($$SELECT agent_state._bind(pg_temp.id('b'))$$, '42501', NULL, '_bind is not executable');
SELECT throws_ok($$SELECT agent_state._activate_persona(pg_temp.id('b'), 2)$$, '42501',
                 NULL, '_activate_persona is not executable');
SELECT throws_ok($$SELECT agent_state._lock_agent(pg_temp.id('b'))$$, '42501', NULL, '_lock_agent is not executable');
SELECT throws_ok($$SELECT agent_state._charge_run(pg_temp.id('b'), gen_random_uuid(), 0, 0, 1)$$, '42501', NULL,
                 '_charge_run is not executable (no charging another agent''s budget)');
SELECT throws_ok($$SELECT * FROM agent_state.agents$$, '42501', NULL, 'tables are not readable without a grant');
SELECT throws_ok($$INSERT INTO agent_state.agent_hosts VALUES (pg_temp.id('b'), 1, 'x', now(), 'x')$$, '42501',
                 NULL, 'hosting cannot be inserted without a grant');

-- Shadow objects in pg_temp and search_path games: the functions qualify everything.
CREATE TEMP TABLE agent_hosts (runtime_agent_id uuid, host oid, host_name name);
INSERT INTO pg_temp.agent_hosts VALUES (pg_temp.id('b'), 't020_ra'::regrole, 't020_ra');
CREATE TEMP TABLE agents (runtime_agent_id uuid);
CREATE FUNCTION pg_temp.pg_has_role(name, oid, text) RETURNS boolean LANGUAGE sql AS $$ SELECT true $$;
CREATE FUNCTION pg_temp.current_setting(text) RETURNS text LANGUAGE sql AS $$ SELECT 't020_rb' $$;
SET search_path = pg_temp, public, agent_state;
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'UX')$$, '42501',
                 NULL, 'shadow tables and functions in pg_temp change nothing');
SELECT throws_ok($$SELECT * FROM agent_state.persona_history(pg_temp.id('b'))$$, '42501',
                 NULL, 'shadow objects: reading B is still refused');
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'UA')$$,
                'the runtime still acts for its own agent A');
RESET search_path;
RESET SESSION AUTHORIZATION;
SELECT is(pg_temp.foundation_rows(), (SELECT n FROM before_rows) + 2,
          'spoofed attempts wrote nothing (only the legitimate actor for A: actor + identity)');
UPDATE before_rows SET n = n + 2;

-- ---------------------------------------------------------------- becoming another group role
-- A runtime that switches to a role it is a legitimately a member of becomes
-- that role: the group itself hosts nothing.
SET SESSION AUTHORIZATION t020_ra;
SET ROLE agent_state_runtime;
SELECT is(agent_state._caller()::text, 'agent_state_runtime', 'after SET ROLE the caller is the group role');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'UA')$$, '42501',
                 NULL, 'the runtime group role hosts nothing, not even A');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'UA')$$, '42501',
                 NULL, 'the runtime group role cannot act for B either');
RESET ROLE;
RESET SESSION AUTHORIZATION;

-- A superuser session that SET ROLEs to a runtime is bound like that runtime.
SET ROLE t020_ra;
SELECT is(agent_state._caller()::text, 't020_ra', 'SET ROLE from a superuser: the caller is the role set');
SELECT throws_ok($$SELECT agent_state.open_conversation(pg_temp.id('b'), 'slack', 'CX')$$, '42501',
                 NULL, 'a superuser session after SET ROLE t020_ra is refused B');
RESET ROLE;
SET LOCAL ROLE t020_ra;
SELECT throws_ok($$SELECT agent_state.open_conversation(pg_temp.id('b'), 'slack', 'CX')$$, '42501',
                 NULL, 'SET LOCAL ROLE binds the same way');
RESET ROLE;

-- ---------------------------------------------------------------- defence in depth
-- Even if a DBA wrongly grants the operator-only functions to a runtime, each one
-- checks the caller again: nothing is possible, not even for the hosted agent A.
GRANT EXECUTE ON FUNCTION agent_state.create_agent(text, text, jsonb),
    agent_state.grant_hosting(uuid, regrole), agent_state.revoke_hosting(uuid, regrole),
    agent_state.revise_persona(uuid, text, boolean), agent_state.activate_persona(uuid, integer)
    TO t020_ra;
SET ROLE t020_ra;
SELECT throws_ok(s, '42501', NULL, d)
FROM (VALUES
    ($$SELECT agent_state.create_agent('t020-granted')$$, 'granted create_agent still refuses a runtime'),
    ($$SELECT agent_state.grant_hosting(pg_temp.id('b'), 't020_ra')$$,
     'granted grant_hosting still refuses a runtime'),
    ($$SELECT agent_state.revoke_hosting(pg_temp.id('a'), 't020_ra')$$,
     'granted revoke_hosting still refuses a runtime, even for its own agent'),
    ($$SELECT agent_state.revise_persona(pg_temp.id('a'), 'mine now')$$,
     'granted revise_persona still refuses a runtime, even for its own agent'),
    ($$SELECT agent_state.activate_persona(pg_temp.id('b'), 2)$$,
     'granted activate_persona still refuses a runtime')
) AS v (s, d);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION agent_state.create_agent(text, text, jsonb),
    agent_state.grant_hosting(uuid, regrole), agent_state.revoke_hosting(uuid, regrole),
    agent_state.revise_persona(uuid, text, boolean), agent_state.activate_persona(uuid, integer)
    FROM t020_ra;

-- ---------------------------------------------------------------- null agent
SET ROLE t020_ra;
SELECT throws_ok($$SELECT agent_state.persona_history(NULL)$$, '22004', NULL, 'null agent: 22004 for a runtime');
SELECT throws_ok($$SELECT agent_state.revise_persona(NULL, 'x')$$, '42501',
                 NULL, 'a runtime cannot execute an operator-only function at all, whatever the arguments');
RESET ROLE;

SELECT is(pg_temp.foundation_rows(), (SELECT n FROM before_rows), 'no attack wrote anything');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id = pg_temp.id('b')),
          1::bigint, 'B is still hosted by exactly one role');
SELECT is((SELECT p.revision FROM agent_state.persona_revisions AS p
           WHERE p.runtime_agent_id = pg_temp.id('b') AND p.is_active),
          1, 'B''s active persona is unchanged');

SELECT * FROM finish();
ROLLBACK;
