-- Makes revision the agent's active one: clears the flag of the revision
-- active before, sets it on this one and logs the activation. Shared by
-- activate_persona, revise_persona and restore_agent, which bind the call,
-- lock the agent and defer the persona checks (_check_persona) to commit.
CREATE FUNCTION agent_state._activate_persona(agent uuid, revision integer)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    UPDATE agent_state.persona_revisions AS r SET is_active = false
    WHERE r.runtime_agent_id = agent AND r.is_active AND r.revision <> revision;
    UPDATE agent_state.persona_revisions AS r SET is_active = true
    WHERE r.runtime_agent_id = agent AND r.revision = revision;
    INSERT INTO agent_state.persona_activations (runtime_agent_id, revision)
    VALUES (agent, revision);
END
$$;
