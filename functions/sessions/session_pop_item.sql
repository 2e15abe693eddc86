-- Retracts the session's newest item that is not retracted (the SDK's
-- pop_item) and returns it; null when there is none (_session_retract).
CREATE FUNCTION agent_state.session_pop_item(agent uuid, conversation uuid)
RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.item FROM agent_state._session_retract(agent, conversation, 'pop') AS r
$$;

COMMENT ON FUNCTION agent_state.session_pop_item(uuid, uuid) IS
'session_pop_item(agent, conversation) -> jsonb: retracts the newest item of the session '
'that is not retracted yet and returns it (null when none is left). The item stays in '
'session_item_history with who retracted it and when. Unknown conversation: P0002.';
