-- An object of amounts (a run's budget, a model call's usage): a JSON object of
-- at most 1 MB naming only known keys, else 22023 (22004 when null). The
-- parsers (_budget_limits, _usage_amounts) then read each amount with
-- _json_amount.
CREATE FUNCTION agent_state._need_amounts(val jsonb, arg text, known text [])
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._json_within(val, arg, 1000000);
    PERFORM agent_state._need_json(val, arg, ARRAY['object']);
    PERFORM agent_state._need_known_keys(val, arg, known);
END
$$;
