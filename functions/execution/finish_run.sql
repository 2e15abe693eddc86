CREATE FUNCTION agent_state.finish_run(
    agent uuid,
    run uuid,
    outcome text,
    detail jsonb DEFAULT '{}'
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(detail, 'detail');
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need_one_of(outcome, 'outcome',
        ARRAY['succeeded', 'failed', 'cancelled', 'handed_off']);
    PERFORM agent_state._need_json(detail, 'detail', ARRAY['object']);

    UPDATE agent_state.runs AS r
    SET status = outcome, detail = detail
    WHERE r.runtime_agent_id = agent AND r.run_id = run
      AND r.status IN ('open', 'budget_exhausted');
    IF FOUND THEN
        RETURN;
    END IF;
    -- Not finished here: unknown (P0002), or already finished (55000).
    PERFORM agent_state._need_ref(agent, 'run', run, 'run');
    PERFORM agent_state._run_writable(agent, run);
    RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'finish_run: an unfinished run was not finished';
END
$$;

COMMENT ON FUNCTION agent_state.finish_run(uuid, uuid, text, jsonb) IS
'finish_run(agent, run, outcome, detail => ''{}''): finishes an open or budget_exhausted run. '
'outcome: succeeded, failed, cancelled, handed_off (else 22023); detail: JSON object. '
'A finished run takes no further writes: finishing it again raises 55000. Unknown run: P0002.';
