-- The session's conversation must be this agent's: P0002 for an unknown one,
-- 23503 for another agent's (_missing); 22004 for null. With lock, its row is
-- locked for a write (add, pop, clear), so that the writers of one session are
-- serialised: items are numbered in the order they were added, and two pops
-- never retract the same item. Reads (get_items) take no lock.
CREATE FUNCTION agent_state._need_session(agent uuid, conversation uuid, lock boolean)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(conversation, 'conversation');
    IF lock THEN
        PERFORM FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
        FOR NO KEY UPDATE;
    ELSE
        PERFORM FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
    END IF;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation);
    END IF;
END
$$;
