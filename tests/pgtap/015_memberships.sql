-- Only memberships that lend their rights count (docs/security.md, "Roles"): a
-- membership that carries no privileges (NOINHERIT, or on PostgreSQL 16 INHERIT
-- FALSE, such as the ADMIN-only membership a CREATEROLE role gets on the roles it
-- creates) gives nothing until SET ROLE, and SET ROLE is honoured only while the
-- session user may still become that role.
BEGIN;
SELECT plan(15);

\ir _setup.sql
CREATE FUNCTION pg_temp.pg16() RETURNS boolean LANGUAGE sql STABLE
AS $$ SELECT pg_catalog.current_setting('server_version_num')::int >= 160000 $$;

CREATE ROLE t015_op IN ROLE agent_state_operator;
CREATE ROLE t015_host NOLOGIN IN ROLE agent_state_runtime;  -- hosts agent a
CREATE ROLE t015_w LOGIN IN ROLE agent_state_runtime;
GRANT t015_host TO t015_w;
SET ROLE t015_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t015-a')),
    ('b', agent_state.create_agent('t015-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't015_host') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('b'), 'secret persona of b') \g /dev/null
RESET ROLE;

-- ------------------------------------------------ a revoked SET ROLE membership
-- The session user t015_w says SET ROLE t015_host; a superuser then revokes that
-- membership (here through a SECURITY DEFINER function, as from another session).
CREATE FUNCTION pg_temp.revoke_host() RETURNS void LANGUAGE sql SECURITY DEFINER
AS $$ REVOKE t015_host FROM t015_w $$;
GRANT EXECUTE ON FUNCTION pg_temp.revoke_host() TO PUBLIC;
SET SESSION AUTHORIZATION t015_w;
SET ROLE t015_host;
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')$$,
                'after SET ROLE to the hosting role, the session acts for its agent');
SELECT pg_temp.revoke_host();
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'anything')$$, '42501',
                 NULL, 'once the membership is revoked, the same session''s SET ROLE grants nothing');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2')$$, '42501',
                 NULL, 'nor can it write for the agent');
RESET ROLE;
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U3')$$, '42501',
                 NULL, 'after RESET ROLE the session user has no hosting either');
RESET SESSION AUTHORIZATION;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actors AS x
           WHERE x.runtime_agent_id = pg_temp.id('a')),
          1::bigint, 'the refused calls wrote nothing');

-- ------------------------------------------------ PostgreSQL 16 membership options
-- t015_d can call the API (an INHERIT member of agent_state_runtime); its other
-- memberships are made with options that carry no rights.
CREATE ROLE t015_d LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t015_maker LOGIN CREATEROLE IN ROLE agent_state_runtime;
CREATE ROLE t015_inh_noset LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t015_noinh_set LOGIN IN ROLE agent_state_runtime;
DO $$
BEGIN
    IF pg_temp.pg16() THEN
        EXECUTE 'GRANT agent_state_operator TO t015_d WITH ADMIN OPTION, INHERIT FALSE, SET FALSE';
        -- A CREATEROLE role gets ADMIN, INHERIT FALSE, SET FALSE on what it creates.
        EXECUTE 'SET ROLE t015_maker';
        EXECUTE 'CREATE ROLE t015_tenant NOLOGIN';
        EXECUTE 'RESET ROLE';
        EXECUTE 'GRANT t015_host TO t015_inh_noset WITH INHERIT TRUE, SET FALSE';
        EXECUTE 'GRANT t015_host TO t015_noinh_set WITH INHERIT FALSE, SET TRUE';
    END IF;
END
$$;
SET ROLE t015_op;
SELECT CASE WHEN pg_temp.pg16()
            THEN agent_state.grant_hosting(pg_temp.id('b'), pg_catalog.to_regrole('t015_tenant')) END \g /dev/null
RESET ROLE;
SET ROLE t015_d;
SELECT CASE WHEN pg_temp.pg16()
    THEN throws_ok($$SELECT * FROM agent_state.persona_history(pg_temp.id('b'))$$, '42501', NULL,
                   'ADMIN OPTION with INHERIT FALSE, SET FALSE on the operator role is no operator')
    ELSE skip('membership options need PostgreSQL 16', 1) END;
SELECT CASE WHEN pg_temp.pg16()
    THEN throws_ok($$SELECT agent_state.create_agent('t015-x')$$, '42501', NULL,
                   'nor may it create agents')
    ELSE skip('membership options need PostgreSQL 16', 1) END;
RESET ROLE;
SET ROLE t015_maker;
SELECT CASE WHEN pg_temp.pg16()
    THEN throws_ok($$SELECT agent_state.export_markdown(pg_temp.id('b'))$$, '42501', NULL,
                   'the creator of a hosting role (ADMIN only) cannot read its agent')
    ELSE skip('membership options need PostgreSQL 16', 1) END;
SELECT CASE WHEN pg_temp.pg16()
    THEN throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'M1')$$, '42501',
                   NULL, 'nor write for it')
    ELSE skip('membership options need PostgreSQL 16', 1) END;
RESET ROLE;
SET SESSION AUTHORIZATION t015_w;
SELECT throws_ok($$SET ROLE t015_host$$, '42501', NULL,
                 'a revoked membership cannot be used for SET ROLE again');
RESET SESSION AUTHORIZATION;
SET ROLE t015_inh_noset;
SELECT CASE WHEN pg_temp.pg16()
    THEN lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'I1')$$,
                  'INHERIT TRUE, SET FALSE: the host''s rights apply without SET ROLE')
    ELSE skip('membership options need PostgreSQL 16', 1) END;
RESET ROLE;
SET ROLE t015_noinh_set;
SELECT CASE WHEN pg_temp.pg16()
    THEN throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'N1')$$, '42501',
                   NULL, 'INHERIT FALSE, SET TRUE: no rights before SET ROLE')
    ELSE skip('membership options need PostgreSQL 16', 1) END;
RESET ROLE;
DO $$
BEGIN
    IF pg_temp.pg16() THEN
        EXECUTE 'SET SESSION AUTHORIZATION t015_noinh_set';
        EXECUTE 'SET ROLE t015_host';
        PERFORM agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'N2');
        EXECUTE 'RESET SESSION AUTHORIZATION';
    END IF;
END
$$;
SELECT CASE WHEN pg_temp.pg16()
    THEN is((SELECT x.created_by::text FROM agent_state.actors AS x
             JOIN agent_state.actor_identities AS i USING (runtime_agent_id, actor_id)
             WHERE x.runtime_agent_id = pg_temp.id('a') AND i.external_id = 'N2'),
            't015_host', 'INHERIT FALSE, SET TRUE: after SET ROLE it acts as the host')
    ELSE skip('membership options need PostgreSQL 16', 1) END;

-- ------------------------------------------------ role-level NOINHERIT (any version)
-- A NOINHERIT member of the operator role is no operator before SET ROLE.
CREATE ROLE t015_noinh_op LOGIN NOINHERIT IN ROLE agent_state_operator;
SET SESSION AUTHORIZATION t015_noinh_op;
SELECT throws_ok($$SELECT * FROM agent_state.persona_history(pg_temp.id('b'))$$, '42501', NULL,
                 'a NOINHERIT member of the operator role is no operator before SET ROLE');
SET ROLE agent_state_operator;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.persona_history(pg_temp.id('b'))),
          1::bigint, 'after SET ROLE agent_state_operator it is one');
RESET SESSION AUTHORIZATION;

SELECT * FROM finish();
ROLLBACK;
