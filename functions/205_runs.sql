-- Runs: start, finish, continue.

CREATE FUNCTION agent_state.start_run(
    agent uuid,
    conversation uuid DEFAULT NULL,
    trigger_message uuid DEFAULT NULL,
    budget jsonb DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    lim record;
    msg_conv uuid;
    new_run uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    SELECT * INTO lim FROM agent_state._budget_limits(budget);
    IF conversation IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
    ) THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation,
            EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
    END IF;
    IF trigger_message IS NOT NULL THEN
        SELECT m.conversation_id INTO msg_conv
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = trigger_message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'trigger_message', trigger_message,
                EXISTS (SELECT FROM agent_state.messages AS m WHERE m.message_id = trigger_message));
        END IF;
        IF conversation IS NULL THEN
            conversation := msg_conv;
        ELSIF msg_conv <> conversation THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format('trigger_message: message %s is not in conversation %s',
                                            trigger_message, conversation);
        END IF;
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

CREATE FUNCTION agent_state.finish_run(
    agent uuid,
    run uuid,
    outcome text,
    detail jsonb DEFAULT '{}'
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    st text;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need_one_of(outcome, 'outcome',
        ARRAY['succeeded', 'failed', 'cancelled', 'handed_off']);
    PERFORM agent_state._need_json(detail, 'detail', ARRAY['object']);

    UPDATE agent_state.runs AS r
    SET status = outcome, detail = detail
    WHERE r.runtime_agent_id = agent AND r.run_id = run
      AND r.status IN ('open', 'budget_exhausted');
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT r.status INTO st FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run;
    IF NOT FOUND THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '55000',
        MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', run, st);
END
$$;

COMMENT ON FUNCTION agent_state.finish_run(uuid, uuid, text, jsonb) IS
'finish_run(agent, run, outcome, detail => ''{}''): finishes an open or budget_exhausted run. '
'outcome: succeeded, failed, cancelled, handed_off (else 22023); detail: JSON object. '
'A finished run takes no further writes: finishing it again raises 55000. Unknown run: P0002.';

CREATE FUNCTION agent_state.continue_run(
    agent uuid,
    run uuid,
    task_context jsonb,
    budget jsonb DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    lim record;
    old agent_state.runs;
    next_run uuid;
    wall numeric;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need_json(task_context, 'task_context', ARRAY['object', 'array']);
    -- null keeps every limit: the same as an empty object.
    SELECT * INTO lim FROM agent_state._budget_limits(coalesce(budget, '{}'));

    SELECT r.* INTO old
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    SELECT r.run_id INTO next_run
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.continued_from = run;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('run: run %s was already continued by run %s', run, next_run),
            HINT = 'Continue the latest run of the chain.';
    END IF;

    -- A limit given must leave something to spend: the chain's spending carries over.
    wall := pg_catalog.extract('epoch', pg_catalog.clock_timestamp() - old.chain_started_at);
    IF lim.tokens <= old.spent_tokens THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('budget.tokens: limit %s is not above the %s tokens already spent',
                                        lim.tokens, old.spent_tokens);
    END IF;
    IF lim.cost_usd <= old.spent_cost_usd THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('budget.cost_usd: limit %s is not above the %s already spent',
                                        lim.cost_usd, old.spent_cost_usd);
    END IF;
    IF lim.tool_calls <= old.spent_tool_calls THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('budget.tool_calls: limit %s is not above the %s tool calls already made',
                                        lim.tool_calls, old.spent_tool_calls);
    END IF;
    IF lim.wall_time_seconds <= wall THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format(
                'budget.wall_time_seconds: limit %s is not above the %s seconds since the task started',
                lim.wall_time_seconds, pg_catalog.round(wall, 3));
    END IF;

    -- The insert trigger links the chain and finishes an unfinished predecessor as
    -- handed_off; a kept limit that is already spent starts the run exhausted.
    INSERT INTO agent_state.runs AS r (
        runtime_agent_id, conversation_id, trigger_message_id, continued_from, task_context,
        limit_tokens, limit_cost_usd, limit_tool_calls, limit_wall_time_seconds,
        spent_tokens, spent_cost_usd, spent_tool_calls
    )
    VALUES (
        agent, old.conversation_id, old.trigger_message_id, run, task_context,
        coalesce(lim.tokens, old.limit_tokens), coalesce(lim.cost_usd, old.limit_cost_usd),
        coalesce(lim.tool_calls, old.limit_tool_calls),
        coalesce(lim.wall_time_seconds, old.limit_wall_time_seconds),
        old.spent_tokens, old.spent_cost_usd, old.spent_tool_calls
    )
    RETURNING r.run_id INTO next_run;
    RETURN next_run;
END
$$;

COMMENT ON FUNCTION agent_state.continue_run(uuid, uuid, jsonb, jsonb) IS
'continue_run(agent, run, task_context, budget => null) -> uuid: a new run continuing the task '
'(continued_from = run). An unfinished run (open or budget_exhausted) is finished as handed_off; '
'a finished run may be continued too. A run is continued at most once (55000). Spent tokens, '
'cost, tool calls and wall time carry over, never reset. budget: null keeps the limits; '
'keys given replace those limits (raise, or lower while above what is spent: else 22023); '
'keys not given keep theirs. task_context: JSON object or array.';
