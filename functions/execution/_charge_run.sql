-- Charges a run; the run must be open. Errors: 53400 exhausted, 55000 finished.
CREATE FUNCTION agent_state._charge_run(
    agent uuid, run uuid, tokens numeric, cost_usd numeric, tool_calls integer
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    UPDATE agent_state.runs AS r
    SET spent_tokens = r.spent_tokens + tokens,
        spent_cost_usd = r.spent_cost_usd + cost_usd,
        spent_tool_calls = r.spent_tool_calls + tool_calls
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    IF FOUND THEN
        RETURN;
    END IF;
    -- Not charged: an unknown or finished run raises there; what is left of an
    -- unfinished run that no open-run UPDATE found is an exhausted one.
    PERFORM agent_state._run_writable(agent, run);
    RAISE EXCEPTION USING
        ERRCODE = '53400',
        MESSAGE = pg_catalog.format('run: run %s has exhausted its budget', run),
        HINT = 'Finish the run, or continue it with continue_run and a higher budget.';
END
$$;
