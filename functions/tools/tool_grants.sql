CREATE FUNCTION agent_state.tool_grants(agent uuid, as_of timestamptz DEFAULT NULL)
RETURNS TABLE (tool text, revision integer, enabled boolean, config jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(tool_grants.agent);
    RETURN QUERY
    SELECT g.tool_name, g.revision, g.enabled, g.config
    FROM agent_state._grants_at(tool_grants.agent, tool_grants.as_of) AS g
    ORDER BY g.tool_name COLLATE "C";
END
$$;

COMMENT ON FUNCTION agent_state.tool_grants(uuid, timestamptz) IS
'tool_grants(agent, as_of => null) -> table(tool, revision, enabled, config): the grant '
'revision of each tool current now, or at the moment as_of (a later moment than now: now), '
'disabled ones included; tools by name.';
