-- Is the extension's own code copying rows that were stamped when first written
-- (fork_agent, import_agent)? Such rows keep their stamps, numbers and derived
-- columns: the stamp, numbering and deriving insert triggers skip a row when this
-- holds and its created_at is from before the current statement began (checked
-- first, in the trigger's WHEN clause: ordinary rows carry the default,
-- clock_timestamp(), which never is). The insert guards of tables without
-- stamps (evidence before its revision, a snapshot's sources) skip on this
-- alone: the extension's own writes keep those rules by construction, and a
-- copy writes rows in foreign-key order.
-- Both parts are needed: fork_agent sets agent_state.copying for its own run
-- only (set_config around its copy statement), but a client can set it too, so
-- the row must also be written by the extension's code (_own_write), which
-- never writes created_at except in a copy; and the owner's own direct DML,
-- which counts as the extension's, is stamped unless it sets the flag as well
-- (the owner can switch triggers off anyway).
--
-- SECURITY INVOKER on purpose (it reads the writer's current_user), so it is
-- granted to the group roles like the other WHEN helpers (sql/privileges.sql).
CREATE FUNCTION agent_state._copying()
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN pg_catalog.current_setting('agent_state.copying', true) IS NOT DISTINCT FROM 'on'
        AND agent_state._own_write();
END
$$;
