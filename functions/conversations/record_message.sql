CREATE FUNCTION agent_state.record_message(
    agent uuid,
    conversation uuid,
    author uuid,
    body text,
    audience uuid [] DEFAULT NULL,
    external_ref text DEFAULT NULL,
    observed_at timestamptz DEFAULT now()
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    conv_kind text;
    members uuid [];
    missing uuid;
    msg uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(conversation, 'conversation');
    PERFORM agent_state._need(author, 'author');
    PERFORM agent_state._need_text(body, 'body');
    PERFORM agent_state._need(observed_at, 'observed_at');
    IF NOT pg_catalog.isfinite(observed_at) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'observed_at: must be a finite time';
    END IF;
    IF external_ref IS NOT NULL THEN
        PERFORM agent_state._need_external_key(external_ref, 'external_ref');
    END IF;

    SELECT c.kind INTO conv_kind
    FROM agent_state.conversations AS c
    WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation);
    END IF;
    PERFORM agent_state._need_ref(agent, 'actor', author, 'author');

    IF audience IS NULL THEN
        IF conv_kind <> 'public' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'audience: required outside a public conversation';
        END IF;
    ELSE
        IF pg_catalog.array_ndims(audience) > 1 THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = 'audience: must be a one-dimensional array';
        END IF;
        IF pg_catalog.array_position(audience, NULL) IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'audience: must not contain null';
        END IF;
        -- Stored sorted and without duplicates; the author always observes.
        SELECT pg_catalog.array_agg(DISTINCT m ORDER BY m) INTO members
        FROM pg_catalog.unnest(audience || author) AS m;
        SELECT m INTO missing
        FROM pg_catalog.unnest(members) AS m
        WHERE NOT EXISTS (
            SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = m
        )
        LIMIT 1;
        IF FOUND THEN
            PERFORM agent_state._missing('actor', 'audience', missing);
        END IF;
    END IF;

    INSERT INTO agent_state.messages AS m
        (runtime_agent_id, conversation_id, author_id, body, audience, external_ref, observed_at)
    VALUES (agent, conversation, author, body, members, external_ref, observed_at)
    ON CONFLICT ON CONSTRAINT messages_external_key DO NOTHING
    RETURNING m.message_id INTO msg;
    IF msg IS NULL THEN
        -- At-least-once delivery: the same external message was recorded before.
        SELECT m.message_id INTO msg
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.conversation_id = conversation
          AND m.external_ref = external_ref;
    END IF;
    RETURN msg;
END
$$;

COMMENT ON FUNCTION agent_state.record_message(uuid, uuid, uuid, text, uuid [], text, timestamptz) IS
'record_message(agent, conversation, author, body, audience => null, external_ref => null, '
'observed_at => now()) -> uuid: a durable message event. audience: the actors who could '
'observe it (the author is always added); required (22004) except in a public conversation, '
'where null means public. Recording the same external_ref in the conversation again returns '
'the existing id. body up to 100000 characters; observed_at must be finite (22023).';
