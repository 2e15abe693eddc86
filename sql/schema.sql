-- The schema that holds every agent_state object. Under CREATE EXTENSION the
-- control file names it and PostgreSQL creates it before this script runs; as a
-- plain-SQL install this block creates it.
DO $schema$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = 'agent_state') THEN
        CREATE SCHEMA agent_state;
    END IF;
END
$schema$;

COMMENT ON SCHEMA agent_state IS
'agent_state: versioned, perspective-isolated state for AI agents.';

-- Group roles. Roles are cluster-wide, so a second database (or a reinstall) finds
-- them already there: create them only when missing.
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'agent_state_operator') THEN
        CREATE ROLE agent_state_operator NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'agent_state_runtime') THEN
        CREATE ROLE agent_state_runtime NOLOGIN;
    END IF;
END
$roles$;

COMMENT ON ROLE agent_state_operator IS
'agent_state operators: create agents, author persona, memories and tool grants.';

COMMENT ON ROLE agent_state_runtime IS
'agent_state runtimes: act for the agents they host.';

-- Clients reach data only through functions; the schema itself must be visible.
REVOKE ALL ON SCHEMA agent_state FROM PUBLIC;

GRANT USAGE ON SCHEMA agent_state TO agent_state_operator, agent_state_runtime;
