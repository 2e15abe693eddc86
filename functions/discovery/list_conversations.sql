-- An agent's conversations, newest first by creation (SPEC section 3).
CREATE FUNCTION agent_state.list_conversations(agent uuid, max_results integer DEFAULT 100)
RETURNS TABLE (
    conversation uuid, connector text, external_ref text, kind text, created_at timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(list_conversations.agent);
    PERFORM agent_state._need_count(list_conversations.max_results, 'max_results', 1, 10000);
    RETURN QUERY
    SELECT c.conversation_id, c.connector, c.external_ref, c.kind, c.created_at
    FROM agent_state.conversations AS c
    WHERE c.runtime_agent_id = list_conversations.agent
    ORDER BY c.created_at DESC, c.conversation_id
    LIMIT list_conversations.max_results;
END
$$;

COMMENT ON FUNCTION agent_state.list_conversations(uuid, integer) IS
'list_conversations(agent, max_results => 100) -> table(conversation, connector, external_ref, '
'kind, created_at): the agent''s conversations, newest first by creation. max_results from 1 '
'to 10000.';
