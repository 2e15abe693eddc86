-- Every write to a run (snapshot, model call, tool call, checkpoint) locks the run
-- row first, so writes to one run are serialised and a run finished concurrently
-- is seen finished. A finished run takes no more writes (55000). Returns the
-- run's status (open or budget_exhausted).
CREATE FUNCTION agent_state._run_writable(agent uuid, run uuid)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    st text;
BEGIN
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._not_in_perspective('run', 'run', run);
    END IF;
    IF st NOT IN ('open', 'budget_exhausted') THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', run, st);
    END IF;
    RETURN st;
END
$$;
