-- Conversations, per perspective, keyed externally by (connector, external_ref).
CREATE TABLE agent_state.conversations (
    runtime_agent_id uuid NOT NULL,
    conversation_id uuid NOT NULL DEFAULT gen_random_uuid(),
    connector text NOT NULL,
    external_ref text NOT NULL,
    kind text NOT NULL DEFAULT 'group',
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT conversations_pkey PRIMARY KEY (runtime_agent_id, conversation_id),
    CONSTRAINT conversations_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT conversations_external_key UNIQUE (runtime_agent_id, connector, external_ref),
    CONSTRAINT conversations_kind_check CHECK (kind IN ('direct', 'group', 'public')),
    CONSTRAINT conversations_connector_check CHECK (btrim(connector) <> ''),
    CONSTRAINT conversations_external_ref_check CHECK (external_ref <> '')
);

COMMENT ON TABLE agent_state.conversations IS
'Conversations (direct, group, public) as one perspective knows them.';

-- Message events. The audience (who could observe the message) is stored with the
-- event and never changes; NULL means public and is allowed only in a public
-- conversation. Messages observed at the same moment are ordered by when they were
-- recorded (created_at, then id); no global sequence numbers them, which would let
-- one perspective count another's messages.
CREATE TABLE agent_state.messages (
    runtime_agent_id uuid NOT NULL,
    message_id uuid NOT NULL DEFAULT gen_random_uuid(),
    conversation_id uuid NOT NULL,
    author_id uuid NOT NULL,
    body text NOT NULL,
    audience uuid [],
    external_ref text,
    observed_at timestamptz NOT NULL,
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
ON agent_state.messages (runtime_agent_id, conversation_id, observed_at DESC, created_at DESC, message_id DESC);

COMMENT ON TABLE agent_state.messages IS
'Durable message events with the audience that could observe them (NULL = public).';
