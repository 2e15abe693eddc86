-- Locks a session's conversation for a write (add, pop, clear), so that the
-- writers of one session are serialised: items are numbered in the order they
-- were added, and two pops never retract the same item. P0002 for a
-- conversation this agent does not have (23503 when another agent's: _missing).
CREATE FUNCTION agent_state._lock_session(agent uuid, conversation uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(conversation, 'conversation');
    PERFORM FROM agent_state.conversations AS c
    WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation,
            EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
    END IF;
END
$$;
