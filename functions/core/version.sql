CREATE FUNCTION agent_state.version()
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.1.0'::text $$;

COMMENT ON FUNCTION agent_state.version() IS
'version() -> text: the installed agent_state version.';
