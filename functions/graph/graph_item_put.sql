-- LangGraph store put: the item's entry is remembered (from a message: its
-- provenance), amended when the key is live, or re-created after a delete; the
-- value is kept for the new revision. Without a message, an operator's put records
-- an operator-authored entry with visibility conversation and no evidence, which no
-- conversation's recall or context returns (reachable through the store only); a
-- runtime's put needs the message it comes from (22004): no evidence is invented.
CREATE FUNCTION agent_state.graph_item_put(
    agent uuid,
    namespace text [],
    key text,
    value jsonb,
    body text,
    message uuid DEFAULT NULL
)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    cur_entry uuid;
    cur_rev integer;
    is_live boolean;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(value, 'value');
    PERFORM agent_state._need_graph_namespace(namespace);
    PERFORM agent_state._need_text_bytes(key, 'key', 1000);
    PERFORM agent_state._need_json(value, 'value', ARRAY['object']);
    SELECT i.entry_id, e.current_revision, e.live INTO cur_entry, cur_rev, is_live
    FROM agent_state.graph_items AS i
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id
    WHERE i.runtime_agent_id = agent AND i.namespace = namespace AND i.key = key
    FOR NO KEY UPDATE OF i;
    IF FOUND AND is_live THEN
        entry := cur_entry;
        revision := agent_state.amend(agent, cur_entry, body, cur_rev, message);
    ELSE
        IF message IS NOT NULL THEN
            SELECT r.entry, r.revision INTO entry, revision
            FROM agent_state.remember(agent, body, message) AS r;
        ELSIF agent_state._caller_is_operator() THEN
            PERFORM agent_state._need_text(body, 'body');
            SELECT r.entry, r.revision INTO entry, revision
            FROM agent_state._insert_memory(agent, body, NULL, 'conversation', 'operator', NULL, NULL, NULL) AS r;
        ELSE
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'message: a runtime''s store writes need the message they come from',
                HINT = 'Bind the store to a conversation and message (store.bind); agent memory '
                    || 'always has evidence.';
        END IF;
        IF cur_entry IS NULL THEN
            INSERT INTO agent_state.graph_items (runtime_agent_id, namespace, key, entry_id)
            VALUES (agent, namespace, key, entry);
        ELSE
            UPDATE agent_state.graph_items AS i SET entry_id = entry
            WHERE i.runtime_agent_id = agent AND i.namespace = namespace AND i.key = key;
        END IF;
    END IF;
    INSERT INTO agent_state.graph_item_values (runtime_agent_id, entry_id, revision, value)
    VALUES (agent, entry, revision, value);
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION agent_state.graph_item_put(uuid, text [], text, jsonb, text, uuid) IS
'graph_item_put(agent, namespace, key, value, body, message => null) -> (entry, revision) (for '
'the LangGraph store): the item is a memory entry (body: its searchable text) with the value '
'kept per revision; a live key is amended, a deleted one re-created. With message: remembered '
'from it (its author and audience are the provenance). Without: an operator records an item '
'no conversation''s recall returns; a runtime gets 22004 (no evidence is invented).';
