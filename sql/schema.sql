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
DO $roles$
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
END
$roles$;

-- Clients reach data only through functions; the schema itself must be visible.
REVOKE ALL ON SCHEMA agent_state FROM PUBLIC;

GRANT USAGE ON SCHEMA agent_state TO agent_state_operator, agent_state_runtime;
