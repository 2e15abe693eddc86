-- Agents the caller hosts (directly or through a role it is a member of).
CREATE FUNCTION agent_state._hosted_agents()
RETURNS uuid []
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.array_agg(DISTINCT h.runtime_agent_id), '{}')
    FROM agent_state.agent_hosts AS h
    WHERE agent_state._holds_hosting(agent_state._caller(), h.host, h.host_name)
$$;
