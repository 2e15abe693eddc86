-- Serialises per-agent counters (persona and grant revision numbers).
CREATE FUNCTION agent_state._lock_agent(agent uuid)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent FOR NO KEY UPDATE
$$;
