-- The current grant of tool for agent, for use right now: its revision. Raises
-- 42501 naming tool when the tool is unknown, was never granted to this agent, or
-- its current (highest) grant revision is disabled. The caller must have bound the
-- call to agent (_bind) first; this helper reads only that agent's grants.
CREATE FUNCTION agent_state._tool_grant_for_use(agent uuid, tool text)
RETURNS integer
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    rev integer;
    is_enabled boolean;
BEGIN
    SELECT g.revision, g.enabled INTO rev, is_enabled
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = agent AND g.tool_name = tool
    ORDER BY g.revision DESC
    LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('tool: %s is not granted to agent %s',
                                        agent_state._quote_prefix(tool), agent),
            HINT = 'An operator grants tools with agent_state.grant_tool.';
    END IF;
    IF NOT is_enabled THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('tool: %s is disabled for agent %s (grant revision %s)',
                                        agent_state._quote_prefix(tool), agent, rev),
            HINT = 'An operator grants tools with agent_state.grant_tool.';
    END IF;
    RETURN rev;
END
$$;
