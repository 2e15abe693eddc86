-- The version comes from agent_state.control: make writes it in place of the
-- placeholder when it builds the install and upgrade scripts.
CREATE FUNCTION agent_state.version()
RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$ SELECT '@EXTVERSION@'::text $$;

COMMENT ON FUNCTION agent_state.version() IS
'version() -> text: the installed agent_state version.';
