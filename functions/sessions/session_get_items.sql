-- The session's items that were not retracted (the SDK's get_items), oldest
-- first; with max_results, only the newest max_results of them.
CREATE FUNCTION agent_state.session_get_items(
    agent uuid,
    conversation uuid,
    max_results integer DEFAULT NULL
)
RETURNS TABLE (item_no bigint, item jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(session_get_items.agent);
    IF session_get_items.max_results IS NOT NULL THEN
        PERFORM agent_state._need_count(session_get_items.max_results, 'max_results', 0);
    END IF;
    PERFORM agent_state._need_session(session_get_items.agent, session_get_items.conversation, false);
    RETURN QUERY
    SELECT v.item_no, v.item
    FROM (
        SELECT i.item_no, i.item
        FROM agent_state._session_visible(session_get_items.agent, session_get_items.conversation) AS i
        ORDER BY i.item_no DESC
        LIMIT session_get_items.max_results
    ) AS v
    -- Refusal on read (SPEC section 14).
    WHERE agent_state._chain_checked('session_items', (
        SELECT s FROM agent_state.session_items AS s
        WHERE s.runtime_agent_id = session_get_items.agent AND s.conversation_id = session_get_items.conversation
          AND s.item_no = v.item_no))
    ORDER BY v.item_no;
END
$$;

COMMENT ON FUNCTION agent_state.session_get_items(uuid, uuid, integer) IS
'session_get_items(agent, conversation, max_results => null) -> table(item_no, item): the '
'session''s items not retracted, oldest first; with max_results (0 or more), the newest '
'max_results of them. Never writes. Unknown conversation: P0002.';
