CREATE FUNCTION agent_state.active_persona(agent uuid, as_of timestamptz DEFAULT NULL)
RETURNS TABLE (revision integer, body text, activated_at timestamptz)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(active_persona.agent);
    RETURN QUERY
    SELECT a.revision, r.body, a.created_at
    FROM agent_state.persona_activations AS a
    JOIN agent_state.persona_revisions AS r
      ON r.runtime_agent_id = a.runtime_agent_id AND r.revision = a.revision
    WHERE a.runtime_agent_id = active_persona.agent
      AND (active_persona.as_of IS NULL OR a.created_at <= active_persona.as_of)
    ORDER BY a.created_at DESC, a.activation_id DESC
    LIMIT 1;
END
$$;

COMMENT ON FUNCTION agent_state.active_persona(uuid, timestamptz) IS
'active_persona(agent, as_of => null) -> (revision, body, activated_at): the active '
'revision now, or at the moment as_of (''infinity'': now; ''-infinity'': before any). No row '
'when none was active then.';
