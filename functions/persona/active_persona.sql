CREATE FUNCTION agent_state.active_persona(agent uuid, as_of timestamptz DEFAULT NULL)
RETURNS TABLE (revision integer, body text, activated_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(active_persona.agent);
    RETURN QUERY
    SELECT a.revision, r.body, a.activated_at
    FROM agent_state._persona_at(active_persona.agent, active_persona.as_of) AS a
    JOIN agent_state.persona_revisions AS r
      ON r.runtime_agent_id = active_persona.agent AND r.revision = a.revision
    WHERE agent_state._chain_checked('persona_revisions', r)
      AND agent_state._chain_checked('persona_activations', (
          SELECT x FROM agent_state.persona_activations AS x
          WHERE x.runtime_agent_id = active_persona.agent AND x.revision = a.revision
            AND x.created_at = a.activated_at
          ORDER BY x.activation_id DESC
          LIMIT 1));
END
$$;

COMMENT ON FUNCTION agent_state.active_persona(uuid, timestamptz) IS
'active_persona(agent, as_of => null) -> (revision, body, activated_at): the active '
'revision now, or at the moment as_of (''infinity'': now; ''-infinity'': before any). No row '
'when none was active then.';
