CREATE FUNCTION agent_state.persona_history(agent uuid)
RETURNS TABLE (
    revision integer, body text, created_at timestamptz, created_by text, is_active boolean
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(persona_history.agent);
    RETURN QUERY
    SELECT r.revision, r.body, r.created_at, r.created_by::text, r.is_active
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = persona_history.agent
      AND agent_state._chain_checked('persona_revisions', r)
    ORDER BY r.revision;
END
$$;

COMMENT ON FUNCTION agent_state.persona_history(uuid) IS
'persona_history(agent) -> (revision, body, created_at, created_by, is_active), oldest first.';
