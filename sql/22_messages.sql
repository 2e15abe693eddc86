-- Message events. The audience (who could observe the message) is stored with the
-- event and never changes; NULL means public and is allowed only in a public
-- conversation. seq orders messages recorded with the same observed_at.
CREATE TABLE agent_state.messages (
    runtime_agent_id uuid NOT NULL,
    message_id uuid NOT NULL DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL,
    author_id uuid NOT NULL,
    body text NOT NULL,
    audience uuid [],
    external_ref text,
    observed_at timestamptz NOT NULL,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT messages_pkey PRIMARY KEY (runtime_agent_id, message_id),
    CONSTRAINT messages_conversation_fkey FOREIGN KEY (runtime_agent_id, conversation_id)
    REFERENCES agent_state.conversations (runtime_agent_id, conversation_id),
    CONSTRAINT messages_author_fkey FOREIGN KEY (runtime_agent_id, author_id)
    REFERENCES agent_state.actors (runtime_agent_id, actor_id),
    CONSTRAINT messages_external_key UNIQUE (runtime_agent_id, conversation_id, external_ref),
    CONSTRAINT messages_audience_has_author CHECK (audience IS NULL OR author_id = ANY (audience)),
    CONSTRAINT messages_audience_no_nulls CHECK (array_position(audience, NULL) IS NULL),
    CONSTRAINT messages_external_ref_check CHECK (external_ref <> '')
);

-- The latest message of a conversation names the audience of the next reply.
CREATE INDEX messages_latest_idx
ON agent_state.messages (runtime_agent_id, conversation_id, observed_at DESC, seq DESC);

COMMENT ON TABLE agent_state.messages IS
'Durable message events with the audience that could observe them (NULL = public).';

-- A composite foreign key cannot reach into an array, so a constraint trigger does
-- the same job for audience members: each must be an actor of this perspective,
-- and only a public conversation may have a public (NULL) audience.
CREATE FUNCTION agent_state._check_message_audience()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    missing uuid;
BEGIN
    IF NEW.audience IS NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.conversations AS c
            WHERE c.runtime_agent_id = NEW.runtime_agent_id
              AND c.conversation_id = NEW.conversation_id
              AND c.kind = 'public'
        ) THEN
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'audience: required outside a public conversation';
        END IF;
        RETURN NULL;
    END IF;
    SELECT a INTO missing
    FROM pg_catalog.unnest(NEW.audience) AS a
    WHERE NOT EXISTS (
        SELECT FROM agent_state.actors AS x
        WHERE x.runtime_agent_id = NEW.runtime_agent_id AND x.actor_id = a
    )
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('audience: %s is not an actor of this perspective', missing);
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER messages_audience_check
AFTER INSERT ON agent_state.messages
FOR EACH ROW EXECUTE FUNCTION agent_state._check_message_audience();

CREATE TRIGGER messages_append_only
BEFORE UPDATE OR DELETE ON agent_state.messages
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();
