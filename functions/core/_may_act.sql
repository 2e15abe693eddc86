-- May the caller act for this agent right now?
CREATE FUNCTION agent_state._may_act(agent uuid)
RETURNS boolean
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT agent_state._caller_is_operator()
        OR EXISTS (
            SELECT FROM agent_state.agent_hosts AS h
            WHERE h.runtime_agent_id = agent
              AND agent_state._holds_hosting(agent_state._caller(), h.host, h.host_name)
        )
$$;
