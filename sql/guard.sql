-- The event trigger that keeps the schema trusted after the install
-- (functions/core/_guard_schema_ddl.sql), created once. Only a superuser may
-- create an event trigger: CREATE EXTENSION always runs as one; a plain install
-- by another role (managed PostgreSQL) goes without, and docs/security.md says
-- what then holds.
DO $guard$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger AS e WHERE e.evtname = 'agent_state_guard')
       AND (SELECT a.rolsuper FROM pg_catalog.pg_roles AS a WHERE a.rolname = current_user) THEN
        CREATE EVENT TRIGGER agent_state_guard ON ddl_command_end
        WHEN TAG IN ('ALTER SCHEMA', 'GRANT', 'REVOKE', 'ALTER DEFAULT PRIVILEGES')
        EXECUTE FUNCTION agent_state._guard_schema_ddl();
    END IF;
END
$guard$;
