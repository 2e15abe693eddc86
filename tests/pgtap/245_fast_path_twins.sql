-- The fast paths (record_model_call, record_tool_call, record_tool_result,
-- record_turn) decide in one expression whether the arguments are the usual
-- well-formed ones; each test in it is an inlinable twin of a check that raises,
-- written once: _text_fits (_need_text), _usage_fits (_usage_amounts, with the
-- limits _max_tokens and _max_cost_usd), _model_call_statuses and
-- _tool_result_statuses (the tables' CHECKs), _json_fits (_json_within) and
-- _usage_plain. This file proves that the twins agree with what they stand for,
-- and that the planner inlines them (a twin that stopped inlining would cost a
-- function call per argument on the hot path).
BEGIN;
SELECT plan(22);
\ir _setup.sql

CREATE FUNCTION pg_temp.raises(stmt text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN false;
EXCEPTION WHEN OTHERS THEN
    RETURN true;
END
$$;

-- ---------------------------------------------------------------- they agree
CREATE TEMP TABLE texts (val text);
INSERT INTO texts VALUES ('gpt'), (' x '), (''), (' '), (E'\t\r\n'), (repeat('a', 200)), (repeat('a', 201)),
                         (repeat('é', 200)), (repeat('é', 201)), (E'a\u00a0'), (NULL);
SELECT is((SELECT pg_catalog.count(*)::integer FROM pg_temp.texts AS t
           WHERE coalesce(agent_state._text_fits(t.val, 200), false)
              = pg_temp.raises(pg_catalog.format('SELECT agent_state._need_text(%L, %L, 200)', t.val, 'v'))),
          0, '_text_fits(v, 200) holds exactly when _need_text(v, ''v'', 200) does not raise');

CREATE TEMP TABLE amounts (tokens numeric, cost_usd numeric);
INSERT INTO amounts VALUES (0, 0), (1, 0.5), (1e15, 1e12), (1e15 + 1, 0), (0, 1e12 + 0.01), (-1, 0), (0, -0.01),
                           (1.5, 0), (NULL, 0), (0, NULL);
SELECT is((SELECT pg_catalog.count(*)::integer FROM pg_temp.amounts AS a
           WHERE coalesce(agent_state._usage_fits(a.tokens, a.cost_usd), false)
              = pg_temp.raises(pg_catalog.format(
                    'SELECT agent_state._usage_amounts(%L::jsonb)',
                    pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('tokens', a.tokens,
                                                                               'cost_usd', a.cost_usd))))
             AND a.tokens IS NOT NULL AND a.cost_usd IS NOT NULL),
          0, '_usage_fits holds exactly when _usage_amounts accepts the same usage');
SELECT is(pg_temp.raises(pg_catalog.format('SELECT agent_state._budget_limits(%L)',
                                           pg_catalog.jsonb_build_object('tokens', agent_state._max_tokens() + 1))),
          true, 'a budget above _max_tokens() is refused');
SELECT is(pg_temp.raises(pg_catalog.format('SELECT agent_state._budget_limits(%L)',
                                           pg_catalog.jsonb_build_object('tokens', agent_state._max_tokens(),
                                                                         'cost_usd', agent_state._max_cost_usd()))),
          false, 'and one at _max_tokens() and _max_cost_usd() is not');
SELECT is(pg_temp.raises(pg_catalog.format('SELECT agent_state._budget_limits(%L)',
                                           pg_catalog.jsonb_build_object('cost_usd', agent_state._max_cost_usd() + 1))),
          true, 'a budget above _max_cost_usd() is refused');

SELECT is((SELECT pg_catalog.pg_get_constraintdef(c.oid) FROM pg_catalog.pg_constraint AS c
           WHERE c.conname = 'model_calls_status_check'),
          pg_catalog.format('CHECK ((status = ANY (ARRAY[%s])))',
                            (SELECT pg_catalog.string_agg(pg_catalog.format('%L::text', s), ', ')
                             FROM pg_catalog.unnest(agent_state._model_call_statuses()) AS s)),
          'model_calls'' CHECK names exactly _model_call_statuses()');
SELECT is((SELECT pg_catalog.pg_get_constraintdef(c.oid) FROM pg_catalog.pg_constraint AS c
           WHERE c.conname = 'tool_results_status_check'),
          pg_catalog.format('CHECK ((status = ANY (ARRAY[%s])))',
                            (SELECT pg_catalog.string_agg(pg_catalog.format('%L::text', s), ', ')
                             FROM pg_catalog.unnest(agent_state._tool_result_statuses()) AS s)),
          'tool_results'' CHECK names exactly _tool_result_statuses()');
SELECT is(pg_temp.raises($$SELECT agent_state._need_one_of('timeout', 'status', agent_state._model_call_statuses())$$),
          false, 'a model call may time out');
SELECT is(pg_temp.raises($$SELECT agent_state._need_one_of('timeout', 'status', agent_state._tool_result_statuses())$$),
          true, 'a tool result may not (its statuses are its own)');

-- ---------------------------------------------------------------- they inline
CREATE TEMP TABLE args (t text, n numeric, j jsonb);
CREATE FUNCTION pg_temp.plan_of(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    line text;
    plan text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) SELECT ' || expr || ' FROM pg_temp.args AS a' LOOP
        plan := plan || line || E'\n';
    END LOOP;
    RETURN plan;
END
$$;
SELECT unalike(pg_temp.plan_of(x.expr), '%' || x.fn || '%', x.fn || ' is inlined')
FROM (VALUES ('_text_fits', 'agent_state._text_fits(a.t, 200)'),
             ('_usage_fits', 'agent_state._usage_fits(a.n, a.n)'),
             ('_json_fits', 'agent_state._json_fits(a.j)'),
             ('_usage_plain', 'agent_state._usage_plain(a.j)')) AS x (fn, expr);
-- The constants fold whatever their language; what keeps them inlinable (and
-- folded at plan time, not called) is being SQL with no SET clause.
SELECT ok(p.prolang = (SELECT l.oid FROM pg_catalog.pg_language AS l WHERE l.lanname = 'sql') AND p.proconfig IS NULL AND p.provolatile = 'i',
          p.proname || ' is an immutable SQL function with no SET clause (inlined)')
FROM pg_catalog.pg_proc AS p
WHERE p.pronamespace = 'agent_state'::regnamespace
  AND p.proname IN ('_max_tokens', '_max_cost_usd', '_model_call_statuses', '_tool_result_statuses')
ORDER BY p.proname;
SELECT alike(pg_temp.plan_of('agent_state._text_fits(a.t, 200)'), '%btrim(t,%',
            'the inlined test reads the argument itself');

-- The fast paths use the twins, not copies of their literals.
SELECT ok(pg_catalog.pg_get_functiondef(p.oid) NOT LIKE '%1e15%'
          AND pg_catalog.pg_get_functiondef(p.oid) NOT LIKE '%1e12%'
          AND pg_catalog.pg_get_functiondef(p.oid) NOT LIKE '%''timeout''%'
          AND pg_catalog.pg_get_functiondef(p.oid) NOT LIKE '%''unconfirmed''%',
          p.proname || ' writes no limit or status list of its own')
FROM pg_catalog.pg_proc AS p
WHERE p.pronamespace = 'agent_state'::regnamespace
  AND p.proname IN ('record_model_call', 'record_tool_call', 'record_tool_result', 'record_turn')
ORDER BY p.proname;

SELECT * FROM finish();
ROLLBACK;
