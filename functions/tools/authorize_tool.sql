CREATE FUNCTION agent_state.authorize_tool(agent uuid, tool text)
RETURNS TABLE (revision integer, config jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    rev integer;
BEGIN
    PERFORM agent_state._bind(authorize_tool.agent);
    PERFORM agent_state._need(authorize_tool.tool, 'tool');
    rev := agent_state._tool_grant_for_use(authorize_tool.agent, authorize_tool.tool);
    RETURN QUERY
    SELECT g.revision, g.config
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = authorize_tool.agent AND g.tool_name = authorize_tool.tool
      AND g.revision = rev;
END
$$;

COMMENT ON FUNCTION agent_state.authorize_tool(uuid, text) IS
'authorize_tool(agent, tool) -> (revision, config): the current grant, checked before use. '
'Tool unknown, not granted to agent, or its current grant disabled: 42501.';
