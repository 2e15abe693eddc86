CREATE FUNCTION agent_state.revise_persona(agent uuid, body text, activate boolean DEFAULT true)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    next_rev integer;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(body, 'body');
    PERFORM agent_state._need(activate, 'activate');
    PERFORM agent_state._lock_agent(agent);
    -- The flag and the activation log change in several statements; the invariant
    -- holds after the last one. A caller's SET CONSTRAINTS ALL IMMEDIATE must not
    -- check it in between (it is still checked at commit).
    SET CONSTRAINTS agent_state.persona_revisions_active_check,
        agent_state.persona_activations_active_check DEFERRED;

    SELECT coalesce(pg_catalog.max(r.revision), 0) + 1 INTO next_rev
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = agent;

    -- The agent lock serialises writers, but under REPEATABLE READ the maximum
    -- above comes from an older snapshot: ON CONFLICT then raises 40001 (retry)
    -- instead of a duplicate-key error. The IF covers direct-DML inserters.
    INSERT INTO agent_state.persona_revisions AS r (runtime_agent_id, revision, body)
    VALUES (agent, next_rev, body)
    ON CONFLICT ON CONSTRAINT persona_revisions_pkey DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('revision: persona revision %s was written concurrently', next_rev),
            HINT = 'Retry the transaction.';
    END IF;
    -- The first revision is always activated: an agent never has persona text
    -- without an active revision.
    IF activate OR next_rev = 1 THEN
        PERFORM agent_state._activate_persona(agent, next_rev);
    END IF;
    RETURN next_rev;
END
$$;

COMMENT ON FUNCTION agent_state.revise_persona(uuid, text, boolean) IS
'revise_persona(agent, body, activate => true) -> int (operator): appends revision n+1. '
'The first revision is always activated.';
