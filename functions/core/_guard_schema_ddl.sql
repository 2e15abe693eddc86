-- The event trigger agent_state_guard (sql/guard.sql): after a command that could
-- let the installed functions resolve code they were not installed with, the
-- schema that holds them must still be the one named agent_state, owned by their
-- owner, with no right but USAGE for anyone else and no default privileges.
-- Otherwise the command is refused (42501) and undone:
-- * ALTER SCHEMA agent_state RENAME (a new schema of that name, made by anyone
--   with CREATE on the database, would receive every call by name) or OWNER TO;
-- * GRANT CREATE (or a grant option) on it;
-- * ALTER DEFAULT PRIVILEGES IN SCHEMA agent_state.
-- The schema is found through the event trigger's own function (by OID, which
-- no rename changes), not by name. Reads only the catalog: it runs as the role
-- issuing the command, which is not ours.
CREATE FUNCTION agent_state._guard_schema_ddl()
RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    home record;
    problem text;
BEGIN
    SELECT n.oid, n.nspname, n.nspowner, n.nspacl, p.proowner
    INTO home
    FROM pg_catalog.pg_event_trigger AS e
    JOIN pg_catalog.pg_proc AS p ON p.oid = e.evtfoid
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
    WHERE e.evtname = 'agent_state_guard';
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF home.nspname OPERATOR(pg_catalog.<>) 'agent_state' THEN
        problem := pg_catalog.format('the schema of agent_state may not be renamed (to %I)',
                                     pg_catalog.left(home.nspname, 64));
    ELSIF home.nspowner OPERATOR(pg_catalog.<>) home.proowner THEN
        problem := pg_catalog.format('schema agent_state must stay owned by %s, the owner of '
                                     'its functions', home.proowner::regrole);
    ELSIF EXISTS (
        SELECT FROM pg_catalog.aclexplode(home.nspacl) AS a
        WHERE a.grantee OPERATOR(pg_catalog.<>) home.nspowner
          AND (a.privilege_type OPERATOR(pg_catalog.<>) 'USAGE' OR a.is_grantable)
    ) THEN
        problem := 'no role but its owner may hold a right on schema agent_state other than '
            || 'USAGE';
    ELSIF EXISTS (SELECT FROM pg_catalog.pg_default_acl AS d WHERE d.defaclnamespace = home.oid)
    THEN
        problem := 'schema agent_state may not have default privileges';
    END IF;
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = problem,
            DETAIL = 'The installed functions call their helpers by name in schema agent_state: '
                || 'whoever could add objects there could run code as their owner.',
            HINT = 'See docs/security.md, "The schema".';
    END IF;
END
$$;
