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
