-- The run must exist in this perspective: P0002, or 23503 when it is another
-- perspective's run.
CREATE FUNCTION agent_state._need_run(agent uuid, run uuid, arg text DEFAULT 'run')
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(run, arg);
    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._missing('run', arg, run,
            EXISTS (SELECT FROM agent_state.runs AS r WHERE r.run_id = run));
    END IF;
END
$$;
