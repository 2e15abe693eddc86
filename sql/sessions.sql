-- Sessions of an agent runtime's SDK (the OpenAI Agents SDK's Session, through
-- agent_state.integrations.openai_agents): the items of one conversation, kept
-- append-only with their full JSON, numbered in the order they were added.
-- Removing items (the SDK's pop_item and clear_session) writes a retraction,
-- which hides the item from session_get_items and keeps it, with who removed
-- it and when, in session_item_history.
CREATE TABLE agent_state.session_items (
    runtime_agent_id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    item_no bigint NOT NULL,
    item jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT session_items_pkey PRIMARY KEY (runtime_agent_id, conversation_id, item_no),
    CONSTRAINT session_items_conversation_fkey FOREIGN KEY (runtime_agent_id, conversation_id)
    REFERENCES agent_state.conversations (runtime_agent_id, conversation_id),
    CONSTRAINT session_items_item_no_check CHECK (item_no >= 1)
);

COMMENT ON TABLE agent_state.session_items IS
'Append-only items of an SDK session (one conversation of an agent), numbered per conversation.';

CREATE TABLE agent_state.session_retractions (
    runtime_agent_id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    item_no bigint NOT NULL,
    kind text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT session_retractions_pkey PRIMARY KEY (runtime_agent_id, conversation_id, item_no),
    CONSTRAINT session_retractions_item_fkey FOREIGN KEY (runtime_agent_id, conversation_id, item_no)
    REFERENCES agent_state.session_items (runtime_agent_id, conversation_id, item_no),
    CONSTRAINT session_retractions_kind_check CHECK (kind IN ('pop', 'clear'))
);

COMMENT ON TABLE agent_state.session_retractions IS
'Append-only retractions of session items (pop, clear): the item is hidden from the session, '
'kept in its history.';
