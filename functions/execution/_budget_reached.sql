-- The budget rule (SPEC section 7), written once: spending at or past any limit
-- (wall time counts from the chain's start) exhausts the run. Used by the run
-- triggers when a run is written. Two places restate it on purpose, for speed:
-- the WHEN clause of runs_before_update (sql/triggers.sql), the test that lets
-- a plain charge skip the trigger, and record_turn's direct path, which asks
-- the stricter question "can no part but the last reach a limit". The budget
-- edges of tests/pgtap/200_runs.sql and 240_one_call.sql run through all three.
-- (Scalars, not the runs row type: functions load before the tables. PL/pgSQL:
-- compiled once per session, where a SQL function with a SET clause is planned
-- on every call.)
CREATE FUNCTION agent_state._budget_reached(
    spent_tokens numeric, spent_cost_usd numeric, spent_tool_calls bigint,
    limit_tokens numeric, limit_cost_usd numeric, limit_tool_calls bigint,
    limit_wall_time_seconds numeric, chain_started_at timestamptz
)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN coalesce(
        spent_tokens >= limit_tokens
        OR spent_cost_usd >= limit_cost_usd
        OR spent_tool_calls >= limit_tool_calls
        OR (limit_wall_time_seconds IS NOT NULL
            AND pg_catalog.extract('epoch', pg_catalog.clock_timestamp() - chain_started_at)
            >= limit_wall_time_seconds),
        false);
END
$$;
