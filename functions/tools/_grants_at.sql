-- The grant revision of each tool current at a moment (null: now): the newest
-- revision written by then. LANGUAGE sql without a SET clause so that it inlines
-- into its callers, which pin the search_path; not granted to anyone.
CREATE FUNCTION agent_state._grants_at(agent uuid, as_of timestamptz)
RETURNS TABLE (
    tool_name text, revision integer, enabled boolean, config jsonb, tool_version text
)
LANGUAGE sql STABLE
AS $$
    SELECT DISTINCT ON (g.tool_name) g.tool_name, g.revision, g.enabled, g.config, g.tool_version
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = agent
      AND (as_of IS NULL OR g.created_at OPERATOR(pg_catalog.<=) as_of)
    ORDER BY g.tool_name, g.revision DESC
$$;
