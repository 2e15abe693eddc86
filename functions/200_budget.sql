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

-- One numeric member of a budget or usage object: a JSON number within
-- (0 or more than 0, per strict) .. max, integral when whole is set; 22023 naming
-- arg.key otherwise.
CREATE FUNCTION agent_state._json_amount(
    obj jsonb, arg text, key text, strict boolean, whole boolean, max_value numeric
)
RETURNS numeric
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v numeric;
BEGIN
    IF NOT obj ? key THEN
        RETURN NULL;
    END IF;
    IF pg_catalog.jsonb_typeof(obj -> key) = 'number' THEN
        v := (obj ->> key)::numeric;
        IF (v > 0 OR (NOT strict AND v = 0)) AND v <= max_value AND (NOT whole OR v = pg_catalog.trunc(v)) THEN
            RETURN v;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '22023',
        MESSAGE = pg_catalog.format('%s.%s: must be a %s%s of at most %s, not %s', arg, key,
                                    CASE WHEN strict THEN 'positive ' ELSE 'non-negative ' END,
                                    CASE WHEN whole THEN 'integer' ELSE 'number' END,
                                    max_value, obj -> key);
END
$$;

-- Parses a budget (see above) into its limits; NULL = no limit.
CREATE FUNCTION agent_state._budget_limits(
    budget jsonb,
    OUT tokens numeric, OUT cost_usd numeric, OUT tool_calls bigint, OUT wall_time_seconds numeric
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    unknown text;
BEGIN
    PERFORM agent_state._need_json(budget, 'budget', ARRAY['object']);
    SELECT k INTO unknown
    FROM pg_catalog.jsonb_object_keys(budget - ARRAY['tokens', 'cost_usd', 'tool_calls', 'wall_time_seconds']) AS k
    ORDER BY k
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format(
                'budget.%s: unknown budget key; known keys are tokens, cost_usd, tool_calls, wall_time_seconds',
                unknown);
    END IF;
    tokens := agent_state._json_amount(budget, 'budget', 'tokens', true, true, 1e15);
    cost_usd := agent_state._json_amount(budget, 'budget', 'cost_usd', true, false, 1e12);
    tool_calls := agent_state._json_amount(budget, 'budget', 'tool_calls', true, true, 1e9);
    wall_time_seconds := agent_state._json_amount(budget, 'budget', 'wall_time_seconds', true, false, 1e10);
END
$$;

-- Parses a usage object (see above); missing keys are 0.
CREATE FUNCTION agent_state._usage_amounts(usage jsonb, OUT tokens numeric, OUT cost_usd numeric)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    unknown text;
BEGIN
    PERFORM agent_state._need_json(usage, 'usage', ARRAY['object']);
    IF (usage - ARRAY['tokens', 'cost_usd']) = '{}'::jsonb THEN
        tokens := coalesce(agent_state._json_amount(usage, 'usage', 'tokens', false, true, 1e15), 0);
        cost_usd := coalesce(agent_state._json_amount(usage, 'usage', 'cost_usd', false, false, 1e12), 0);
        RETURN;
    END IF;
    SELECT k INTO unknown
    FROM pg_catalog.jsonb_object_keys(usage) AS k
    WHERE k <> ALL (ARRAY['tokens', 'cost_usd'])
    ORDER BY k
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('usage.%s: unknown usage key; known keys are tokens, cost_usd', unknown);
    END IF;
    tokens := coalesce(agent_state._json_amount(usage, 'usage', 'tokens', false, true, 1e15), 0);
    cost_usd := coalesce(agent_state._json_amount(usage, 'usage', 'cost_usd', false, false, 1e12), 0);
END
$$;

-- The run must exist in this perspective: P0002, or 23503 when it is another
-- perspective's run.
CREATE FUNCTION agent_state._need_run(agent uuid, run uuid, arg text DEFAULT 'run')
RETURNS void
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    IF run IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._missing('run', arg, run,
            EXISTS (SELECT FROM agent_state.runs AS r WHERE r.run_id = run));
    END IF;
END
$$;

-- Budget of a run as JSON: limits (NULL = none), spent, remaining (limit - spent,
-- NULL without a limit). Wall time counts from the start of the chain's first run
-- until now, or until the run finished.
CREATE FUNCTION agent_state._run_budget(r agent_state.runs)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    wall numeric := pg_catalog.round(
        pg_catalog.extract('epoch', coalesce(r.finished_at, pg_catalog.clock_timestamp()) - r.chain_started_at), 3);
BEGIN
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
