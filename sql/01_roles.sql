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
