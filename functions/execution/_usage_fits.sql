-- Are a model call's amounts what _usage_amounts accepts: tokens a whole number
-- from 0 to _max_tokens(), cost_usd from 0 to _max_cost_usd()? (NULL for a null
-- amount: callers coalesce.) The inlinable twin for the fast paths of
-- record_model_call and record_turn; anything else goes through _usage_amounts,
-- which raises the exact error.
CREATE FUNCTION agent_state._usage_fits(tokens numeric, cost_usd numeric)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT tokens OPERATOR(pg_catalog.>=) 0 AND tokens OPERATOR(pg_catalog.<=) agent_state._max_tokens()
        AND tokens OPERATOR(pg_catalog.=) pg_catalog.trunc(tokens)
        AND cost_usd OPERATOR(pg_catalog.>=) 0 AND cost_usd OPERATOR(pg_catalog.<=) agent_state._max_cost_usd()
$$;
