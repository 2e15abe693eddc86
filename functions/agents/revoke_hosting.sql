CREATE FUNCTION agent_state.revoke_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(host, 'host');
    DELETE FROM agent_state.agent_hosts AS h
    WHERE h.runtime_agent_id = agent AND h.host = host;
END
$$;

COMMENT ON FUNCTION agent_state.revoke_hosting(uuid, regrole) IS
'revoke_hosting(agent, host) (operator): host may no longer act for agent, from the '
'next statement on. Revoking a grant that does not exist is a no-op. A role name that does not '
'exist fails as PostgreSQL reads it as a regrole, before the call (42704).';
