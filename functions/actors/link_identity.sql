CREATE FUNCTION agent_state.link_identity(
    agent uuid,
    actor uuid,
    connector text,
    external_id text
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    linked uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(actor, 'actor');
    PERFORM agent_state._need_connector_key(connector, external_id, 'external_id');
    PERFORM agent_state._need_ref(agent, 'actor', actor, 'actor');

    -- Same lock as resolve_actor: a concurrent resolution of this identity waits
    -- for the link and then returns the linked actor instead of failing.
    PERFORM agent_state._lock_identity(agent, connector, external_id);
    INSERT INTO agent_state.actor_identities AS i (runtime_agent_id, connector, external_id, actor_id)
    VALUES (agent, connector, external_id, actor)
    ON CONFLICT ON CONSTRAINT actor_identities_pkey DO NOTHING;
    IF FOUND THEN
        RETURN;
    END IF;
    linked := agent_state._identity_actor(agent, connector, external_id);
    IF linked IS DISTINCT FROM actor THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505',
            MESSAGE = pg_catalog.format(
                'external_id: %s identity %s is already linked to another actor (%s)',
                agent_state._quote_prefix(connector), agent_state._quote_prefix(external_id), linked);
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.link_identity(uuid, uuid, text, text) IS
'link_identity(agent, actor, connector, external_id): another connector identity for the '
'same actor, inside this perspective only. Already linked to another actor: 23505; '
'linking again to the same actor is a no-op.';
