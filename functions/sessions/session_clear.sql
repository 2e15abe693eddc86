-- Retracts every item of the session not retracted yet (the SDK's
-- clear_session); returns how many (_session_retract).
CREATE FUNCTION agent_state.session_clear(agent uuid, conversation uuid)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.count(*)::integer FROM agent_state._session_retract(agent, conversation, 'clear') AS r
$$;

COMMENT ON FUNCTION agent_state.session_clear(uuid, uuid) IS
'session_clear(agent, conversation) -> integer: retracts every item of the session not '
'retracted yet and returns how many; the items stay in session_item_history. Unknown '
'conversation: P0002.';
