-- Budget and usage arguments, and shared checks of the execution functions.
--
-- budget: a JSON object with any of
--   tokens             positive integer, at most 10^15
--   cost_usd           positive number, at most 10^12
--   tool_calls         positive integer, at most 10^9
--   wall_time_seconds  positive number, at most 10^10 (wall time since the start of
--                      the first run of the chain)
-- A missing key is no limit. Anything else raises 22023 naming the key.
--
-- usage: a JSON object with any of tokens (integer) and cost_usd (number), each
-- non-negative (tokens at most 10^15, cost_usd at most 10^12); a missing key is 0.

-- Required JSON argument of one of the given types: 22004 null, 22023 otherwise.
CREATE FUNCTION agent_state._need_json(val jsonb, arg text, types text [])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF NOT pg_catalog.jsonb_typeof(val) = ANY (types) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: must be a JSON %s, not %s', arg,
                                        pg_catalog.array_to_string(types, ' or '),
                                        pg_catalog.jsonb_typeof(val));
    END IF;
END
$$;
