-- New snapshots: the sha256 comes from the database (direct DML cannot record a
-- hash that does not match the prompt), the run must be unfinished (55000), and
-- nothing starts out redacted.
CREATE FUNCTION agent_state._snapshot_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    st text;
BEGIN
    -- _run_writable inline: lock the run; the helper raises when it is unknown
    -- or finished.
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.run_id = NEW.run_id
    FOR NO KEY UPDATE;
    IF NOT coalesce(st IN ('open', 'budget_exhausted'), false) THEN
        PERFORM agent_state._run_writable(NEW.runtime_agent_id, NEW.run_id);
    END IF;
    NEW.prompt_sha256 := pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(NEW.prompt, 'UTF8')), 'hex');
    NEW.redacted_at := NULL;
    NEW.redacted_by := NULL;
    RETURN NEW;
END
$$;
