-- The schema that holds every agent_state object. Under CREATE EXTENSION the
-- control file names it and PostgreSQL creates it before this script runs (owned
-- by the installing role); as a plain-SQL install this block creates it.
--
-- A schema of that name that another role owns is refused: its owner could replace
-- the functions the SECURITY DEFINER code calls and act as the installing role.
DO $schema$
DECLARE
    owner oid;
BEGIN
    SELECT n.nspowner INTO owner FROM pg_catalog.pg_namespace AS n WHERE n.nspname = 'agent_state';
    IF NOT FOUND THEN
        CREATE SCHEMA agent_state;
    ELSIF owner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles AS r
                                         WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('schema agent_state exists and is owned by %s, not by %s',
                                        owner::regrole, current_user),
            HINT = 'Install as the schema''s owner, or drop or rename the schema first: '
                || 'its owner could replace what the installed functions call.';
    END IF;
END
$schema$;

COMMENT ON SCHEMA agent_state IS
'agent_state: versioned, perspective-isolated state for AI agents.';

-- Group roles. Roles are cluster-wide, so a second database (or a reinstall) finds
-- them already there: create them only when missing. Comment them when creating
-- them only: from PostgreSQL 16 on, commenting on a role needs its ADMIN option,
-- which a non-superuser installing on managed PostgreSQL does not have for roles
-- made by an earlier install.
--
-- Roles found already there must be what an install of ours leaves: NOLOGIN,
-- without any attribute that lends rights, and administered only by superusers and
-- the installing role (ADMIN OPTION on them, and the grantor of every membership
-- in them). Otherwise a role with CREATEROLE that made them first (and so holds
-- ADMIN OPTION, PostgreSQL 16) could make itself an operator: refused (42501),
-- nothing is created.
DO $roles$
DECLARE
    r record;
    installer constant oid := (SELECT a.oid FROM pg_catalog.pg_roles AS a WHERE a.rolname = current_user);
    culprit name;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'agent_state_operator') THEN
        CREATE ROLE agent_state_operator NOLOGIN;
        COMMENT ON ROLE agent_state_operator IS
        'agent_state operators: create agents, author persona, memories and tool grants.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'agent_state_runtime') THEN
        CREATE ROLE agent_state_runtime NOLOGIN;
        COMMENT ON ROLE agent_state_runtime IS
        'agent_state runtimes: act for the agents they host.';
    END IF;
    FOR r IN
        SELECT a.oid, a.rolname
        FROM pg_catalog.pg_roles AS a
        WHERE a.rolname IN ('agent_state_operator', 'agent_state_runtime')
        ORDER BY a.rolname
    LOOP
        IF EXISTS (
            SELECT FROM pg_catalog.pg_roles AS a
            WHERE a.oid = r.oid
              AND (a.rolcanlogin OR a.rolsuper OR a.rolcreaterole OR a.rolcreatedb
                   OR a.rolreplication OR a.rolbypassrls)
        ) THEN
            RAISE EXCEPTION USING
                ERRCODE = '42501',
                MESSAGE = pg_catalog.format(
                    'role %I exists with LOGIN or another attribute an agent_state group '
                    'role never has', r.rolname),
                HINT = 'Someone may have created it to act as it: have a superuser check and '
                    || 'drop it (or ALTER ROLE ... NOLOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB '
                    || 'NOREPLICATION NOBYPASSRLS), then install again.';
        END IF;
        -- Trusted: the installing role, superusers, and a grantor that no longer
        -- exists (PostgreSQL 15 keeps its OID; it can do nothing).
        SELECT pg_catalog.pg_get_userbyid(CASE WHEN g.bad_admin THEN g.member ELSE g.grantor END)
        INTO culprit
        FROM (
            SELECT m.member, m.grantor,
                   m.admin_option AND m.member OPERATOR(pg_catalog.<>) installer
                   AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS a
                                   WHERE a.oid = m.member AND a.rolsuper) AS bad_admin,
                   m.grantor OPERATOR(pg_catalog.<>) installer
                   AND EXISTS (SELECT FROM pg_catalog.pg_roles AS a
                               WHERE a.oid = m.grantor AND NOT a.rolsuper) AS bad_grantor
            FROM pg_catalog.pg_auth_members AS m
            WHERE m.roleid = r.oid
        ) AS g
        WHERE g.bad_admin OR g.bad_grantor
        ORDER BY g.member, g.grantor
        LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '42501',
                MESSAGE = pg_catalog.format(
                    'role %I is administered by %I, which is neither a superuser nor the '
                    'installing role %I', r.rolname, culprit, current_user),
                DETAIL = 'It holds ADMIN OPTION on the role or granted a membership in it: '
                    || 'it could make itself an agent_state operator.',
                HINT = 'Have a superuser revoke that (REVOKE ADMIN OPTION FOR ... FROM ...; '
                    || 'REVOKE ... FROM ... GRANTED BY ...), or drop the role, then install '
                    || 'again; see docs/security.md, "Pre-created roles".';
        END IF;
    END LOOP;
END
$roles$;

-- Clients reach data only through functions; the schema itself must be visible.
REVOKE ALL ON SCHEMA agent_state FROM PUBLIC;

GRANT USAGE ON SCHEMA agent_state TO agent_state_operator, agent_state_runtime;
