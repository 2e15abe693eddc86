-- A reference used in a run (a model call's snapshot, a tool call's model call)
-- names a row of another run of this agent: 23503, one message shape. The
-- caller compares the runs and calls this only when they differ.
CREATE FUNCTION agent_state._wrong_run(kind text, arg text, id uuid, its_run uuid, run uuid)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = '23503',
        MESSAGE = pg_catalog.format('%s: %s %s belongs to run %s, not to run %s', arg, kind, id, its_run, run);
END
$$;
