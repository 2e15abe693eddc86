-- Is the caller an operator? Only a membership that lends its rights counts
-- (USAGE: the role's privileges are available without SET ROLE, through INHERIT
-- memberships), as it does for every privilege in PostgreSQL; a NOINHERIT member,
-- or (PostgreSQL 16) a membership granted with INHERIT FALSE, such as the ADMIN
-- membership a CREATEROLE role gets on the roles it creates, carries no rights
-- until SET ROLE.
CREATE FUNCTION agent_state._caller_is_operator()
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN pg_catalog.pg_has_role(agent_state._caller(), 'agent_state_operator', 'USAGE');
END
$$;
