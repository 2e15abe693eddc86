-- Model calls: each references the snapshot it was given and charges its usage.
CREATE FUNCTION agent_state.record_model_call(
    agent uuid,
    run uuid,
    snapshot uuid,
    provider text,
    model text,
    request jsonb,
    response jsonb DEFAULT NULL,
    usage jsonb DEFAULT '{}',
    status text DEFAULT 'ok'
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    tokens numeric;
    cost_usd numeric;
    snap_run uuid;
    call_id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(request, 'request');
    PERFORM agent_state._json_within(response, 'response');
    PERFORM agent_state._json_within(usage, 'usage', 1000000);
    -- Hot path: the usual well-formed arguments are checked inline, in one
    -- expression. Anything else takes the helpers in argument order, which raise
    -- the error of the first bad argument (or parse an unusual valid usage).
    IF agent_state._usage_plain(usage) THEN
        tokens := coalesce((usage ->> 'tokens')::numeric, 0);
        cost_usd := coalesce((usage ->> 'cost_usd')::numeric, 0);
    END IF;
    IF NOT coalesce(
        run IS NOT NULL AND snapshot IS NOT NULL AND request IS NOT NULL
        AND agent_state._text_fits(provider, 200) AND agent_state._text_fits(model, 200)
        AND agent_state._usage_fits(tokens, cost_usd)
        AND status = ANY (agent_state._model_call_statuses()), false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need(snapshot, 'snapshot');
        PERFORM agent_state._need_text(provider, 'provider', 200);
        PERFORM agent_state._need_text(model, 'model', 200);
        PERFORM agent_state._need(request, 'request');
        SELECT a.tokens, a.cost_usd INTO tokens, cost_usd FROM agent_state._usage_amounts(usage) AS a;
        PERFORM agent_state._need_one_of(status, 'status', agent_state._model_call_statuses());
    END IF;

    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_ref(agent, 'run', run, 'run');
    END IF;
    SELECT s.run_id INTO snap_run
    FROM agent_state.prompt_snapshots AS s
    WHERE s.runtime_agent_id = agent AND s.snapshot_id = snapshot;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('snapshot', 'snapshot', snapshot);
    END IF;
    IF snap_run <> run THEN
        PERFORM agent_state._wrong_run('snapshot', 'snapshot', snapshot, snap_run, run);
    END IF;

    -- What the insert trigger does for other writers (it skips the extension's
    -- own): charge the usage to the run in this transaction (53400 when the run
    -- was already exhausted, 55000 when finished).
    PERFORM agent_state._charge_run(agent, run, tokens, cost_usd, 0);
    INSERT INTO agent_state.model_calls AS c (
        runtime_agent_id, run_id, snapshot_id, provider, model, request, response,
        tokens, cost_usd, status
    )
    VALUES (agent, run, snapshot, provider, model, request, response,
            tokens, cost_usd, status)
    RETURNING c.model_call_id INTO call_id;
    RETURN call_id;
END
$$;

COMMENT ON FUNCTION agent_state.record_model_call(uuid, uuid, uuid, text, text, jsonb, jsonb, jsonb, text) IS
'record_model_call(agent, run, snapshot, provider, model, request, response => null, '
'usage => ''{}'', status => ''ok'') -> uuid. snapshot must be a snapshot of the same run '
'(23503). status: ok, error, timeout. usage: {"tokens": integer, "cost_usd": number}, '
'non-negative, missing keys 0, other keys 22023; charged to the run in the same transaction. '
'Run already budget_exhausted: 53400; finished: 55000; nothing written. The call whose '
'charge makes spending reach a limit is recorded and the run becomes budget_exhausted.';
