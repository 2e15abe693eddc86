-- The actor this perspective knows under a connector identity, created with
-- its identity link the first time the identity is seen. Concurrent
-- resolutions of one new identity end with one actor: they take the advisory
-- lock link_identity takes too.
CREATE FUNCTION agent_state.resolve_actor(
    agent uuid,
    connector text,
    external_id text,
    display_name text DEFAULT NULL,
    kind text DEFAULT 'human'
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    found_id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_connector_key(connector, external_id, 'external_id');
    IF display_name IS NOT NULL THEN
        PERFORM agent_state._need_text(display_name, 'display_name', 1000);
    END IF;
    PERFORM agent_state._need_one_of(kind, 'kind', ARRAY['human', 'agent', 'bot', 'system']);

    found_id := agent_state._identity_actor(agent, connector, external_id);
    IF found_id IS NOT NULL THEN
        RETURN found_id;
    END IF;

    -- Two sessions resolving the same new identity must end with one actor.
    PERFORM agent_state._lock_identity(agent, connector, external_id);
    found_id := agent_state._identity_actor(agent, connector, external_id);
    IF found_id IS NOT NULL THEN
        RETURN found_id;
    END IF;

    INSERT INTO agent_state.actors AS a (runtime_agent_id, kind, display_name)
    VALUES (agent, kind, display_name)
    RETURNING a.actor_id INTO found_id;
    -- link_identity takes the same lock, so under READ COMMITTED nothing can have
    -- claimed the identity since the check above. Under REPEATABLE READ a claim
    -- committed after our snapshot makes ON CONFLICT raise 40001 itself; a claim by
    -- direct DML lands here, and raising rolls back the actor just inserted.
    INSERT INTO agent_state.actor_identities AS i (runtime_agent_id, connector, external_id, actor_id)
    VALUES (agent, connector, external_id, found_id)
    ON CONFLICT ON CONSTRAINT actor_identities_pkey DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('external_id: %s identity %s was claimed concurrently',
                                        agent_state._quote_prefix(connector),
                                        agent_state._quote_prefix(external_id)),
            HINT = 'Retry the transaction.';
    END IF;
    RETURN found_id;
END
$$;

COMMENT ON FUNCTION agent_state.resolve_actor(uuid, text, text, text, text) IS
'resolve_actor(agent, connector, external_id, display_name => null, kind => ''human'') -> uuid: '
'the actor this perspective knows under that identity, created if new. '
'kind: human, agent, bot, system. connector 1-200 characters and at most 400 bytes, '
'external_id 1-1000 characters and at most 2000 bytes, display_name 1-1000 characters (22023).';
