CREATE FUNCTION agent_state.activate_persona(agent uuid, revision integer)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(revision, 'revision');
    PERFORM agent_state._lock_agent(agent);
    IF NOT EXISTS (
        SELECT FROM agent_state.persona_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.revision = revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('revision: agent %s has no persona revision %s', agent, revision);
    END IF;
    -- Activating the active revision changes nothing and logs nothing.
    IF EXISTS (
        SELECT FROM agent_state.persona_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.revision = revision AND r.is_active
    ) THEN
        RETURN;
    END IF;
    -- As in revise_persona: checked after the last statement, at commit.
    SET CONSTRAINTS agent_state.persona_revisions_active_check,
        agent_state.persona_activations_active_check DEFERRED;
    PERFORM agent_state._activate_persona(agent, revision);
END
$$;

COMMENT ON FUNCTION agent_state.activate_persona(uuid, integer) IS
'activate_persona(agent, revision) (operator): makes an existing revision the active one '
'(reverting = activating an earlier revision; nothing is copied). Logged with who and when.';
