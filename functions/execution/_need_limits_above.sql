-- A limit given to a continuation (continue_run) must leave something to
-- spend: the chain's spending carries over, and wall time counts from the
-- chain's start. A limit at or below what is spent raises 22023 naming the
-- first such key, in budget order; a limit not given (NULL) is kept and not
-- checked. One row per budget key, one message shape.
CREATE FUNCTION agent_state._need_limits_above(
    limit_tokens numeric, limit_cost_usd numeric, limit_tool_calls bigint, limit_wall_time_seconds numeric,
    spent_tokens numeric, spent_cost_usd numeric, spent_tool_calls bigint, chain_started_at timestamptz
)
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    wall numeric := pg_catalog.extract('epoch', pg_catalog.clock_timestamp() - chain_started_at);
BEGIN
    PERFORM agent_state._raise('22023', pg_catalog.format('budget.%s: limit %s is not above the %s %s',
                                                          b.key, b.lim, b.shown, b.what))
    FROM (
        SELECT v.key, v.lim, v.shown, v.what
        FROM (VALUES
            (1, 'tokens', limit_tokens, spent_tokens, spent_tokens, 'tokens already spent'),
            (2, 'cost_usd', limit_cost_usd, spent_cost_usd, spent_cost_usd, 'already spent'),
            (3, 'tool_calls', limit_tool_calls, spent_tool_calls, spent_tool_calls, 'tool calls already made'),
            (4, 'wall_time_seconds', limit_wall_time_seconds, wall, pg_catalog.round(wall, 3),
             'seconds since the task started')
        ) AS v (ord, key, lim, spent, shown, what)
        WHERE v.lim <= v.spent
        ORDER BY v.ord
        LIMIT 1
    ) AS b;
END
$$;
