-- Does role act through this hosting row (a membership that lends its rights,
-- USAGE, as for operators: see _caller_is_operator)? A row names its role twice: by OID
-- (regrole, which pg_dump writes and a restore reads back by name, failing when
-- the role does not exist) and by the name it had when granted. PostgreSQL does
-- not stop DROP ROLE at a regrole column, and a later role may get the same OID:
-- such a row names a role of another name and grants nothing. (A renamed role
-- loses its hosting the same way, until an operator grants it again.)
--
-- LANGUAGE sql without a SET clause so that it inlines into _bind and
-- _hosted_agents, which pin the search_path; not granted to anyone.
CREATE FUNCTION agent_state._holds_hosting(role name, host regrole, host_name name)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT pg_catalog.pg_has_role(role, host, 'USAGE')
        AND pg_catalog.pg_get_userbyid(host) OPERATOR(pg_catalog.=) host_name
$$;
