-- Every item the session ever held, retracted ones included, with who added it
-- and, for a retracted one, how (pop, clear), when and by whom: the audit view
-- behind the SDK's pop_item and clear_session.
CREATE FUNCTION agent_state.session_item_history(agent uuid, conversation uuid)
RETURNS TABLE (
    item_no bigint, item jsonb, created_at timestamptz, created_by text,
    retracted text, retracted_at timestamptz, retracted_by text
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(session_item_history.agent);
    PERFORM agent_state._need_session(session_item_history.agent, session_item_history.conversation, false);
    RETURN QUERY
    SELECT i.item_no, i.item, i.created_at, i.created_by::text, r.kind, r.created_at, r.created_by::text
    FROM agent_state.session_items AS i
    LEFT JOIN agent_state.session_retractions AS r
      ON r.runtime_agent_id = i.runtime_agent_id AND r.conversation_id = i.conversation_id
     AND r.item_no = i.item_no
    WHERE i.runtime_agent_id = session_item_history.agent
      AND i.conversation_id = session_item_history.conversation
    ORDER BY i.item_no;
END
$$;

COMMENT ON FUNCTION agent_state.session_item_history(uuid, uuid) IS
'session_item_history(agent, conversation) -> table(item_no, item, created_at, created_by, '
'retracted, retracted_at, retracted_by): every item the session held, oldest first, with '
'its retraction (pop or clear, when, by whom) if it was retracted. Unknown conversation: P0002.';
