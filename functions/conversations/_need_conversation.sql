-- A conversation argument names a conversation of this agent: P0002 when
-- unknown, 23503 when it is another perspective's (_missing). The caller checks
-- null first where the argument is optional.
CREATE FUNCTION agent_state._need_conversation(agent uuid, conversation uuid, arg text DEFAULT 'conversation')
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(conversation, arg);
    IF NOT EXISTS (
        SELECT FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
    ) THEN
        PERFORM agent_state._missing('conversation', arg, conversation,
            EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
    END IF;
END
$$;
