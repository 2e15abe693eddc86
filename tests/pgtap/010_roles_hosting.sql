-- Roles and hosting: who may create agents and grant hosting, and that hosting
-- (direct, through a group, revoked) decides which agents a runtime acts for.
BEGIN;
SELECT plan(48);

-- Fixture. Roles are transactional, so they vanish with the ROLLBACK.
CREATE ROLE t010_op IN ROLE agent_state_operator;
CREATE ROLE t010_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t010_rb LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t010_group NOLOGIN IN ROLE agent_state_runtime;
CREATE ROLE t010_rg LOGIN IN ROLE t010_group;          -- member of a hosting group
CREATE ROLE t010_rg2 LOGIN IN ROLE t010_rg;            -- member of a member
CREATE ROLE t010_noinh LOGIN NOINHERIT IN ROLE t010_group;
CREATE ROLE t010_outsider LOGIN;                       -- in neither group role
\ir _setup.sql

-- ---------------------------------------------------------------- create_agent
SET ROLE t010_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t010-a', 'Agent A')),
    ('b', agent_state.create_agent('t010-b')),
    ('c', agent_state.create_agent('t010-c'));
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agents AS a WHERE a.handle LIKE 't010-%'),
          3::bigint, 'an operator creates agents');
SELECT is((SELECT a.created_by::text FROM agent_state.agents AS a WHERE a.handle = 't010-a'),
          't010_op', 'agents.created_by is the operator role');
SELECT is((SELECT p.display_name FROM agent_state.profile_revisions AS p
           WHERE p.runtime_agent_id = pg_temp.id('a') AND p.revision = 1),
          'Agent A', 'display_name is stored, as profile revision 1');
SELECT is((SELECT p.settings FROM agent_state.profile_revisions AS p
           WHERE p.runtime_agent_id = pg_temp.id('b') AND p.revision = 1),
          '{}'::jsonb, 'settings default to an empty object');
SET ROLE t010_op;
SELECT throws_ok($$SELECT agent_state.create_agent('t010-a')$$, '23505',
                 NULL, 'a duplicate handle raises 23505');
RESET ROLE;
SET ROLE t010_ra;
SELECT throws_ok($$SELECT agent_state.create_agent('t010-x')$$, '42501',
                 NULL, 'a runtime cannot create agents');
RESET ROLE;
-- Behind EXECUTE, the function checks again: a role granted EXECUTE directly is
-- still refused, by a message that blames the role (not an argument) and a hint
-- with the GRANT that fixes it.
GRANT EXECUTE ON FUNCTION agent_state.create_agent(text, text, jsonb) TO t010_ra;
SET ROLE t010_ra;
SELECT throws_ok($$SELECT agent_state.create_agent('t010-x')$$, '42501',
                 'role t010_ra is not an agent_state operator',
                 'EXECUTE granted directly: still refused, blaming the role');
CREATE FUNCTION pg_temp.hint_of(stmt text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE h text;
BEGIN
    EXECUTE stmt;
    RETURN NULL;
EXCEPTION WHEN insufficient_privilege THEN
    GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
    RETURN h;
END $f$;
SELECT is(pg_temp.hint_of($$SELECT agent_state.create_agent('t010-x')$$),
          'Only members of agent_state_operator may do this (GRANT agent_state_operator TO t010_ra).',
          'the hint gives the GRANT that fixes it');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION agent_state.create_agent(text, text, jsonb) FROM t010_ra;
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agents AS a WHERE a.handle = 't010-x'),
          0::bigint, 'the refused create_agent wrote nothing');

-- ---------------------------------------------------------------- grant_hosting
SET ROLE t010_op;
SELECT lives_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 't010_ra')$$,
                'an operator grants hosting');
SELECT lives_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 't010_ra')$$,
                'granting the same hosting again is a no-op');
SELECT agent_state.grant_hosting(pg_temp.id('b'), 't010_rb') \g /dev/null
SELECT agent_state.grant_hosting(pg_temp.id('c'), 't010_group') \g /dev/null
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id = pg_temp.id('a')),
          1::bigint, 'one hosting row after granting twice');
SELECT is((SELECT h.host_name::text || '/' || h.created_by::text FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id = pg_temp.id('a')),
          't010_ra/t010_op', 'the hosting row names the host and the granting operator');

SET ROLE t010_ra;
SELECT throws_ok($$SELECT agent_state.grant_hosting(pg_temp.id('b'), 't010_ra')$$, '42501',
                 NULL, 'a runtime cannot grant itself hosting of another agent');
SELECT throws_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 't010_rb')$$, '42501',
                 NULL, 'a runtime cannot grant hosting even of an agent it hosts');
SELECT throws_ok($$SELECT agent_state.revoke_hosting(pg_temp.id('b'), 't010_rb')$$, '42501',
                 NULL, 'a runtime cannot revoke hosting');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id IN (pg_temp.id('a'), pg_temp.id('b'))),
          2::bigint, 'refused hosting changes wrote nothing');

-- ---------------------------------------------------------------- acting
SET ROLE t010_ra;
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')$$,
                'a runtime acts for the agent it hosts');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')$$, '42501',
                 NULL, 'a runtime cannot act for an agent hosted by someone else');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('c'), 'slack', 'U1')$$, '42501',
                 NULL, 'a runtime cannot act for an agent hosted by a group it is not in');
RESET ROLE;

SET ROLE t010_rg;
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('c'), 'slack', 'G1')$$,
                'a member of a hosting group acts for the group''s agent');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'G1')$$, '42501',
                 NULL, 'a member of a hosting group acts for nothing else');
RESET ROLE;
SET ROLE t010_rg2;
SELECT lives_ok($$SELECT agent_state.open_conversation(pg_temp.id('c'), 'slack', 'C1')$$,
                'membership through two levels counts');
RESET ROLE;
-- A NOINHERIT member has no privileges of its groups until it says SET ROLE;
-- then the caller is the group role, which hosts the agent.
SET SESSION AUTHORIZATION t010_noinh;
SELECT throws_ok($$SELECT agent_state.persona_history(pg_temp.id('c'))$$, '42501',
                 NULL, 'a NOINHERIT member cannot use the API without SET ROLE');
SET ROLE t010_group;
SELECT lives_ok($$SELECT agent_state.persona_history(pg_temp.id('c'))$$,
                'a NOINHERIT member acts for the group''s agent after SET ROLE to the group');
RESET SESSION AUTHORIZATION;
SET ROLE t010_group;
SELECT lives_ok($$SELECT agent_state.persona_history(pg_temp.id('c'))$$,
                'the hosting group role itself acts for the agent');
RESET ROLE;

-- Taking a member out of the group takes effect on the next statement.
REVOKE t010_group FROM t010_rg;
SET ROLE t010_rg2;
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('c'), 'slack', 'G2')$$, '42501',
                 NULL, 'leaving the hosting group removes the right at once (for members too)');
RESET ROLE;

-- ---------------------------------------------------------------- operators
SET ROLE t010_op;
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'OP')$$,
                'an operator acts for agent A without hosting');
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'OP')$$,
                'an operator acts for agent B without hosting');
SELECT throws_ok($$SELECT agent_state.resolve_actor('00000000-0000-0000-0000-000000000001', 'slack', 'OP')$$,
                 'P0002', NULL, 'an operator naming an unknown agent gets P0002');
SELECT throws_ok($$SELECT agent_state.resolve_actor(NULL, 'slack', 'OP')$$, '22004',
                 NULL, 'a null agent is 22004 for an operator');
RESET ROLE;
SELECT lives_ok($$SELECT agent_state.persona_history(pg_temp.id('b'))$$,
                'a superuser acts as an operator');

-- ---------------------------------------------------------------- unknown agents
SET ROLE t010_ra;
SELECT throws_ok($$SELECT agent_state.resolve_actor('00000000-0000-0000-0000-000000000001', 'slack', 'U1')$$,
                 '42501', NULL, 'a runtime naming an unknown agent gets 42501 (no existence leak)');
SELECT throws_ok($$SELECT agent_state.resolve_actor(NULL, 'slack', 'U1')$$, '22004',
                 NULL, 'a null agent is 22004 for a runtime');
RESET ROLE;

-- Roles outside both group roles cannot call the API even when hosting was granted.
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't010_outsider') \g /dev/null
SET ROLE t010_outsider;
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'X')$$, '42501',
                 NULL, 'a host that is not in agent_state_runtime cannot execute the API');
RESET ROLE;
SELECT agent_state.revoke_hosting(pg_temp.id('a'), 't010_outsider') \g /dev/null

-- ---------------------------------------------------------------- revoke_hosting
SET ROLE t010_op;
SELECT agent_state.revoke_hosting(pg_temp.id('a'), 't010_ra') \g /dev/null
RESET ROLE;
SET ROLE t010_ra;
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')$$, '42501',
                 NULL, 'revoked hosting takes effect on the next statement');
SELECT throws_ok($$SELECT agent_state.persona_history(pg_temp.id('a'))$$, '42501',
                 NULL, 'revoked hosting: reading is refused too');
RESET ROLE;
SET ROLE t010_op;
SELECT lives_ok($$SELECT agent_state.revoke_hosting(pg_temp.id('a'), 't010_ra')$$,
                'revoking a grant that does not exist is a no-op');
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't010_ra') \g /dev/null
RESET ROLE;
SET ROLE t010_ra;
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')$$,
                'granting hosting again restores the right on the next statement');
RESET ROLE;

-- A host role that is dropped leaves an inert row: nobody gains or loses anything.
CREATE ROLE t010_gone LOGIN IN ROLE agent_state_runtime;
SELECT agent_state.grant_hosting(pg_temp.id('b'), 't010_gone') \g /dev/null
DROP ROLE t010_gone;
SET ROLE t010_ra;
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2')$$,
                'a dropped host role does not break binding for others');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U2')$$, '42501',
                 NULL, 'a dropped host role grants nobody anything');
RESET ROLE;
-- (as the superuser, who can read the table and acts as an operator)
SELECT agent_state.revoke_hosting(h.runtime_agent_id, h.host::regrole)
FROM agent_state.agent_hosts AS h
WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS r WHERE r.oid = h.host) \g /dev/null
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts AS h
           WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS r WHERE r.oid = h.host)),
          0::bigint, 'revoke_hosting by oid cleans up the row of a dropped role');

-- ---------------------------------------------------------------- bad hosting input
SET ROLE t010_op;
SELECT throws_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), NULL)$$, '22004',
                 NULL, 'grant_hosting with a null host raises 22004');
SELECT throws_ok($$SELECT agent_state.revoke_hosting(pg_temp.id('a'), NULL)$$, '22004',
                 NULL, 'revoke_hosting with a null host raises 22004');
SELECT throws_ok($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 4000000000::oid::regrole)$$,
                 '22023', NULL, 'grant_hosting to a role that does not exist raises 22023');
SELECT throws_ok($$SELECT agent_state.grant_hosting(NULL, 't010_ra')$$, '22004',
                 NULL, 'grant_hosting with a null agent raises 22004');
SELECT throws_ok($$SELECT agent_state.grant_hosting('00000000-0000-0000-0000-000000000001', 't010_ra')$$,
                 'P0002', NULL, 'grant_hosting for an unknown agent raises P0002');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts AS h
           WHERE h.host = 4000000000::oid OR h.runtime_agent_id = '00000000-0000-0000-0000-000000000001'),
          0::bigint, 'bad hosting input wrote nothing');

SELECT * FROM finish();
ROLLBACK;
