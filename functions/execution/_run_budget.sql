-- Budget of a run as JSON: limits (NULL = none), spent, remaining (limit - spent,
-- NULL without a limit). Wall time counts from the start of the chain's first run
-- until now, or until the run finished. The run is read here (one primary-key
-- lookup) rather than passed as a row, so this file loads before the table.
CREATE FUNCTION agent_state._run_budget(agent uuid, run uuid)
RETURNS jsonb
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    wall numeric;
BEGIN
    SELECT * INTO r FROM agent_state.runs AS x
    WHERE x.runtime_agent_id = agent AND x.run_id = run;
    wall := pg_catalog.round(
        pg_catalog.extract('epoch', coalesce(r.finished_at, pg_catalog.clock_timestamp()) - r.chain_started_at), 3);
    RETURN pg_catalog.jsonb_build_object(
        'limits', pg_catalog.jsonb_build_object(
            'tokens', r.limit_tokens, 'cost_usd', r.limit_cost_usd,
            'tool_calls', r.limit_tool_calls, 'wall_time_seconds', r.limit_wall_time_seconds),
        'spent', pg_catalog.jsonb_build_object(
            'tokens', r.spent_tokens, 'cost_usd', r.spent_cost_usd,
            'tool_calls', r.spent_tool_calls, 'wall_time_seconds', wall),
        'remaining', pg_catalog.jsonb_build_object(
            'tokens', r.limit_tokens - r.spent_tokens,
            'cost_usd', r.limit_cost_usd - r.spent_cost_usd,
            'tool_calls', r.limit_tool_calls - r.spent_tool_calls,
            'wall_time_seconds', r.limit_wall_time_seconds - wall));
END
$$;
