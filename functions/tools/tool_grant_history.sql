CREATE FUNCTION agent_state.tool_grant_history(agent uuid, tool text)
RETURNS TABLE (
    revision integer, enabled boolean, config jsonb, created_at timestamptz, created_by text
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(tool_grant_history.agent);
    PERFORM agent_state._need(tool_grant_history.tool, 'tool');
    IF NOT EXISTS (SELECT FROM agent_state.tools AS t WHERE t.tool_name = tool_grant_history.tool) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('tool: unknown tool %s',
                                        agent_state._quote_prefix(tool_grant_history.tool));
    END IF;
    RETURN QUERY
    SELECT g.revision, g.enabled, g.config, g.created_at, g.created_by::text
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = tool_grant_history.agent AND g.tool_name = tool_grant_history.tool
    ORDER BY g.revision;
END
$$;

COMMENT ON FUNCTION agent_state.tool_grant_history(uuid, text) IS
'tool_grant_history(agent, tool) -> (revision, enabled, config, created_at, created_by), '
'oldest first. Unregistered tool: P0002; registered but never granted to agent: no rows.';
