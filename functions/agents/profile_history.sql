CREATE FUNCTION agent_state.profile_history(agent uuid)
RETURNS TABLE (
    revision integer,
    display_name text,
    settings jsonb,
    created_at timestamptz,
    created_by text
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(agent);
    RETURN QUERY
    SELECT p.revision, p.display_name, p.settings, p.created_at, p.created_by::text
    FROM agent_state.profile_revisions AS p
    WHERE p.runtime_agent_id = agent
    ORDER BY p.revision;
END
$$;

COMMENT ON FUNCTION agent_state.profile_history(uuid) IS
'profile_history(agent) -> table(revision, display_name, settings, created_at, created_by): '
'every profile revision, oldest first; the newest is current.';
