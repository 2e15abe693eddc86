CREATE FUNCTION agent_state.continue_run(
    agent uuid,
    run uuid,
    task_context jsonb,
    budget jsonb DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    lim record;
    old agent_state.runs;
    next_run uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(task_context, 'task_context');
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need_json(task_context, 'task_context', ARRAY['object', 'array']);
    -- null keeps every limit: the same as an empty object.
    SELECT * INTO lim FROM agent_state._budget_limits(coalesce(budget, '{}'));

    SELECT r.* INTO old
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._need_ref(agent, 'run', run, 'run');
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
    PERFORM agent_state._need_limits_above(lim.tokens, lim.cost_usd, lim.tool_calls, lim.wall_time_seconds,
                                           old.spent_tokens, old.spent_cost_usd, old.spent_tool_calls,
                                           old.chain_started_at);

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
