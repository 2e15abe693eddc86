-- The largest cost in USD a budget limit or a model call's usage may name (SPEC
-- section 7): the one place this limit is written. Inlined (a constant SQL
-- function with no SET clause) into _usage_fits, _budget_limits and
-- _usage_amounts.
CREATE FUNCTION agent_state._max_cost_usd()
RETURNS numeric
LANGUAGE sql IMMUTABLE
AS $$
    SELECT 1e12::pg_catalog.numeric
$$;
