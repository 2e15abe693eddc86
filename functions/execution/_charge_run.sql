-- Charges a run; the run must be open. Errors: 53400 exhausted, 55000 finished.
CREATE FUNCTION agent_state._charge_run(
    agent uuid, run uuid, tokens numeric, cost_usd numeric, tool_calls integer
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
    UPDATE agent_state.runs AS r
    SET spent_tokens = r.spent_tokens + tokens,
        spent_cost_usd = r.spent_cost_usd + cost_usd,
        spent_tool_calls = r.spent_tool_calls + tool_calls
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('run: unknown run %s in this perspective', run);
    ELSIF st = 'budget_exhausted' THEN
        RAISE EXCEPTION USING
            ERRCODE = '53400',
            MESSAGE = pg_catalog.format('run: run %s has exhausted its budget', run),
            HINT = 'Finish the run, or continue it with continue_run and a higher budget.';
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '55000',
        MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', run, st);
END
$$;
