-- Retracts the session's newest item that is not retracted (the SDK's
-- pop_item) and returns it; null when there is none.
CREATE FUNCTION agent_state.session_pop_item(agent uuid, conversation uuid)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    newest record;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_session(agent, conversation, true);
    SELECT i.item_no, i.item INTO newest
    FROM agent_state._session_visible(agent, conversation) AS i
    ORDER BY i.item_no DESC
    LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO agent_state.session_retractions (runtime_agent_id, conversation_id, item_no, kind)
    VALUES (agent, conversation, newest.item_no, 'pop');
    RETURN newest.item;
END
$$;

COMMENT ON FUNCTION agent_state.session_pop_item(uuid, uuid) IS
'session_pop_item(agent, conversation) -> jsonb: retracts the newest item of the session '
'that is not retracted yet and returns it (null when none is left). The item stays in '
'session_item_history with who retracted it and when. Unknown conversation: P0002.';
