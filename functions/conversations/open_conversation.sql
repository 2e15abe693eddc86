-- The agent's conversation for a connector's external reference, created on
-- first use.
CREATE FUNCTION agent_state.open_conversation(
    agent uuid,
    connector text,
    external_ref text,
    kind text DEFAULT 'group'
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    conv uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_connector_key(connector, external_ref, 'external_ref');
    PERFORM agent_state._need_one_of(kind, 'kind', ARRAY['direct', 'group', 'public']);

    -- A lookup of a conversation that exists writes nothing (so it works on a
    -- standby and in a read-only transaction); a new one is inserted. When a
    -- concurrent insert of the same one wins (DO NOTHING), the lookup runs again
    -- and finds it (conversations are never deleted; under REPEATABLE READ the
    -- insert raises 40001 instead).
    LOOP
        SELECT c.conversation_id INTO conv
        FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.connector = connector AND c.external_ref = external_ref;
        EXIT WHEN FOUND;
        INSERT INTO agent_state.conversations AS c (runtime_agent_id, connector, external_ref, kind)
        VALUES (agent, connector, external_ref, kind)
        ON CONFLICT ON CONSTRAINT conversations_external_key DO NOTHING
        RETURNING c.conversation_id INTO conv;
        EXIT WHEN conv IS NOT NULL;
    END LOOP;
    RETURN conv;
END
$$;

COMMENT ON FUNCTION agent_state.open_conversation(uuid, text, text, text) IS
'open_conversation(agent, connector, external_ref, kind => ''group'') -> uuid. '
'kind: direct, group, public. Idempotent on (agent, connector, external_ref): '
'opening again returns the same conversation and never changes its kind.';
