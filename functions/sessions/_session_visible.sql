-- The items of a session that were not retracted: the one definition of what
-- get_items shows, pop_item takes from and clear_session retracts. LANGUAGE sql
-- without a SET clause, so that it inlines into its callers (which pin the
-- search_path); not granted to anyone.
CREATE FUNCTION agent_state._session_visible(agent uuid, conversation uuid)
RETURNS TABLE (item_no bigint, item jsonb)
LANGUAGE sql STABLE
AS $$
    SELECT i.item_no, i.item
    FROM agent_state.session_items AS i
    WHERE i.runtime_agent_id = agent AND i.conversation_id = conversation
      AND NOT EXISTS (
          SELECT FROM agent_state.session_retractions AS r
          WHERE r.runtime_agent_id = i.runtime_agent_id AND r.conversation_id = i.conversation_id
            AND r.item_no = i.item_no)
$$;
