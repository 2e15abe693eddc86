-- Parses a model call's usage (record_model_call's, which record_turn's
-- composed path calls) into its amounts.
--
-- usage: a JSON object with any of tokens (integer) and cost_usd (number), each
-- non-negative (tokens at most 10^15, cost_usd at most 10^12); a missing key is 0.
-- An unknown key or a bad amount raises 22023 naming it.
CREATE FUNCTION agent_state._usage_amounts(usage jsonb, OUT tokens numeric, OUT cost_usd numeric)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need_amounts(usage, 'usage', ARRAY['tokens', 'cost_usd']);
    tokens := coalesce(agent_state._json_amount(usage, 'usage', 'tokens', false, true, agent_state._max_tokens()), 0);
    cost_usd := coalesce(agent_state._json_amount(usage, 'usage', 'cost_usd', false, false, agent_state._max_cost_usd()), 0);
END
$$;
