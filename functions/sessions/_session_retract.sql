-- Retracts items of a session that are not retracted yet, in item order, and
-- returns them: 'pop' the newest one (the SDK's pop_item), 'clear' every one
-- (clear_session). The whole of session_pop_item and session_clear: the call
-- bound, the session's row locked (_need_session: no double pop), the items
-- taken from _session_visible. Not granted to anyone.
CREATE FUNCTION agent_state._session_retract(agent uuid, conversation uuid, kind text)
RETURNS TABLE (item_no bigint, item jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_session(agent, conversation, true);
    RETURN QUERY
    WITH taken AS (
        SELECT i.item_no, i.item
        FROM agent_state._session_visible(agent, conversation) AS i
        ORDER BY i.item_no DESC
        LIMIT CASE WHEN kind = 'pop' THEN 1 END
    ),
    retracted AS (
        INSERT INTO agent_state.session_retractions (runtime_agent_id, conversation_id, item_no, kind)
        SELECT agent, conversation, t.item_no, kind
        FROM taken AS t
        ORDER BY t.item_no
    )
    SELECT t.item_no, t.item FROM taken AS t ORDER BY t.item_no;
END
$$;
