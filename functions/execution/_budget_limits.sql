-- Parses a budget (start_run, continue_run) into its limits; NULL = no limit.
--
-- budget: a JSON object with any of
--   tokens             positive integer, at most 10^15
--   cost_usd           positive number, at most 10^12
--   tool_calls         positive integer, at most 10^9
--   wall_time_seconds  positive number, at most 10^10 (wall time since the start of
--                      the first run of the chain)
-- A missing key is no limit. Anything else raises 22023 naming the key.
CREATE FUNCTION agent_state._budget_limits(
    budget jsonb,
    OUT tokens numeric, OUT cost_usd numeric, OUT tool_calls bigint, OUT wall_time_seconds numeric
)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need_amounts(budget, 'budget', ARRAY['tokens', 'cost_usd', 'tool_calls', 'wall_time_seconds']);
    tokens := agent_state._json_amount(budget, 'budget', 'tokens', true, true, agent_state._max_tokens());
    cost_usd := agent_state._json_amount(budget, 'budget', 'cost_usd', true, false, agent_state._max_cost_usd());
    tool_calls := agent_state._json_amount(budget, 'budget', 'tool_calls', true, true, 1e9);
    wall_time_seconds := agent_state._json_amount(budget, 'budget', 'wall_time_seconds', true, false, 1e10);
END
$$;
