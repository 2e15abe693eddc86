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
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    amounts record;
    snap_run uuid;
    call_id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need(snapshot, 'snapshot');
    PERFORM agent_state._need_text(provider, 'provider', 200);
    PERFORM agent_state._need_text(model, 'model', 200);
    PERFORM agent_state._need(request, 'request');
    SELECT * INTO amounts FROM agent_state._usage_amounts(usage);
    PERFORM agent_state._need_one_of(status, 'status', ARRAY['ok', 'error', 'timeout']);

    PERFORM agent_state._need_run(agent, run);
    SELECT s.run_id INTO snap_run
    FROM agent_state.prompt_snapshots AS s
    WHERE s.runtime_agent_id = agent AND s.snapshot_id = snapshot;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('snapshot', 'snapshot', snapshot,
            EXISTS (SELECT FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = snapshot));
    END IF;
    IF snap_run <> run THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('snapshot: snapshot %s belongs to run %s, not to run %s',
                                        snapshot, snap_run, run);
    END IF;

    -- The insert trigger charges the usage to the run in this transaction (53400
    -- when the run was already exhausted, 55000 when finished).
    INSERT INTO agent_state.model_calls AS c (
        runtime_agent_id, run_id, snapshot_id, provider, model, request, response,
        tokens, cost_usd, status
    )
    VALUES (agent, run, snapshot, provider, model, request, response,
            amounts.tokens, amounts.cost_usd, status)
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
