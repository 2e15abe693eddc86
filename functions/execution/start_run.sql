-- A new open run of the agent with the budget's limits (_budget_limits), for
-- a conversation and the message that triggered it when given; the insert
-- trigger (_tg_run_before_insert) starts its chain.
CREATE FUNCTION agent_state.start_run(
    agent uuid,
    conversation uuid DEFAULT NULL,
    trigger_message uuid DEFAULT NULL,
    budget jsonb DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    lim record;
    msg_conv uuid;
    new_run uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    SELECT * INTO lim FROM agent_state._budget_limits(budget);
    IF conversation IS NOT NULL THEN
        PERFORM agent_state._need_ref(agent, 'conversation', conversation, 'conversation');
    END IF;
    IF trigger_message IS NOT NULL THEN
        SELECT m.conversation_id INTO msg_conv
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = trigger_message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'trigger_message', trigger_message);
        END IF;
        IF conversation IS NULL THEN
            conversation := msg_conv;
        END IF;
        -- A message of another conversation: the insert trigger refuses it (22023).
    END IF;

    INSERT INTO agent_state.runs AS r (
        runtime_agent_id, conversation_id, trigger_message_id,
        limit_tokens, limit_cost_usd, limit_tool_calls, limit_wall_time_seconds
    )
    VALUES (agent, conversation, trigger_message,
            lim.tokens, lim.cost_usd, lim.tool_calls, lim.wall_time_seconds)
    RETURNING r.run_id INTO new_run;
    RETURN new_run;
END
$$;

COMMENT ON FUNCTION agent_state.start_run(uuid, uuid, uuid, jsonb) IS
'start_run(agent, conversation => null, trigger_message => null, budget => ''{}'') -> uuid: '
'a new open run. conversation and trigger_message must be this agent''s (P0002; 23503 when '
'another agent''s); trigger_message must be in conversation (22023; conversation defaults to '
'the trigger message''s). budget: JSON object of limits, keys tokens (integer), cost_usd, '
'tool_calls (integer), wall_time_seconds, each positive; missing = no limit; else 22023 naming the key.';
