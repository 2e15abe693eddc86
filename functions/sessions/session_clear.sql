-- Retracts every item of the session not retracted yet (the SDK's
-- clear_session); returns how many.
CREATE FUNCTION agent_state.session_clear(agent uuid, conversation uuid)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    cleared integer;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_session(agent, conversation, true);
    INSERT INTO agent_state.session_retractions (runtime_agent_id, conversation_id, item_no, kind)
    SELECT agent, conversation, i.item_no, 'clear'
    FROM agent_state._session_visible(agent, conversation) AS i
    ORDER BY i.item_no;
    GET DIAGNOSTICS cleared = ROW_COUNT;
    RETURN cleared;
END
$$;

COMMENT ON FUNCTION agent_state.session_clear(uuid, uuid) IS
'session_clear(agent, conversation) -> integer: retracts every item of the session not '
'retracted yet and returns how many; the items stay in session_item_history. Unknown '
'conversation: P0002.';
