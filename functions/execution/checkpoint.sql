-- Checkpoints: the append-only execution frontier of a run.
CREATE FUNCTION agent_state.checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    n integer;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(frontier, 'frontier');
    IF NOT coalesce(run IS NOT NULL AND pg_catalog.jsonb_typeof(frontier) IN ('object', 'array'), false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need_json(frontier, 'frontier', ARRAY['object', 'array']);
    END IF;
    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_ref(agent, 'run', run, 'run');
    END IF;
    -- What the insert trigger does for other writers (it skips the extension's
    -- own): lock the run, refuse a finished one (55000), take the next number
    -- (gap-free: the lock queues concurrent checkpoints of the run).
    PERFORM agent_state._run_writable(agent, run);
    n := agent_state._append_checkpoint(agent, run, frontier);
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.checkpoint(uuid, uuid, jsonb) IS
'checkpoint(agent, run, frontier) -> int: appends the execution frontier (a JSON object or '
'array, else 22023) numbered 1, 2, ... per run without gaps, also under concurrency. Allowed '
'on open and budget_exhausted runs; finished: 55000.';
