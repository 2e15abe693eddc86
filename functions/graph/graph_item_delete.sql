CREATE FUNCTION agent_state.graph_item_delete(agent uuid, namespace text [], key text)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    cur_entry uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_graph_namespace(namespace);
    PERFORM agent_state._need_text_bytes(key, 'key', 1000);
    SELECT i.entry_id INTO cur_entry
    FROM agent_state.graph_items AS i
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id AND e.live
    WHERE i.runtime_agent_id = agent AND i.namespace = namespace AND i.key = key
    FOR NO KEY UPDATE OF i;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM agent_state.forget(agent, cur_entry, NULL, 'deleted through the LangGraph store');
    RETURN true;
END
$$;

COMMENT ON FUNCTION agent_state.graph_item_delete(uuid, text [], text) IS
'graph_item_delete(agent, namespace, key) -> boolean (for the LangGraph store): forgets the '
'item''s entry (its history stays); false when there is no live item.';
