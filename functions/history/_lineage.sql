-- The agents that share an agent's lineage: the agent itself, its origin and
-- theirs, its forks and theirs, and every fork of any of them (the connected
-- set of agent_forks). redact follows an entry into each of them; verify checks
-- that none keeps text a redaction removed. Not granted to anyone.
CREATE FUNCTION agent_state._lineage(agent uuid)
RETURNS SETOF uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    WITH RECURSIVE lineage (id) AS (
        SELECT agent
        UNION
        SELECT CASE WHEN f.runtime_agent_id = l.id THEN f.origin_agent_id ELSE f.runtime_agent_id END
        FROM lineage AS l
        JOIN agent_state.agent_forks AS f ON f.runtime_agent_id = l.id OR f.origin_agent_id = l.id
    )
    SELECT l.id FROM lineage AS l
$$;
