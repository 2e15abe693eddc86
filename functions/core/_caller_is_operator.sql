CREATE FUNCTION agent_state._caller_is_operator()
RETURNS boolean
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN pg_catalog.pg_has_role(agent_state._caller(), 'agent_state_operator', 'MEMBER');
END
$$;
