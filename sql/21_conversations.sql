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

CREATE TRIGGER conversations_append_only
BEFORE UPDATE OR DELETE ON agent_state.conversations
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();
