-- Appends items to a session (the SDK's add_items): each element of the JSON
-- array, in order, numbered after the session's last item. Returns how many.
CREATE FUNCTION agent_state.session_add_items(agent uuid, conversation uuid, items jsonb)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    added integer;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(items, 'items', 10000000);
    PERFORM agent_state._need_json(items, 'items', ARRAY['array']);
    PERFORM agent_state._need_session(agent, conversation, true);
    INSERT INTO agent_state.session_items (runtime_agent_id, conversation_id, item_no, item)
    SELECT agent, conversation, last.n + e.ordinality, e.value
    FROM pg_catalog.jsonb_array_elements(items) WITH ORDINALITY AS e,
         (SELECT coalesce(pg_catalog.max(i.item_no), 0) AS n
          FROM agent_state.session_items AS i
          WHERE i.runtime_agent_id = agent AND i.conversation_id = conversation) AS last
    ORDER BY e.ordinality;
    GET DIAGNOSTICS added = ROW_COUNT;
    RETURN added;
END
$$;

COMMENT ON FUNCTION agent_state.session_add_items(uuid, uuid, jsonb) IS
'session_add_items(agent, conversation, items) -> integer: appends each element of the JSON '
'array items (any JSON value: messages, tool calls, tool outputs, reasoning items), in order, '
'to the session held by that conversation; returns how many. Items are never changed. items '
'null: 22004; not an array, or over 10 MB: 22023; unknown conversation: P0002.';
