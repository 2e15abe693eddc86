-- New snapshots: the sha256 comes from the database (direct DML cannot record a
-- hash that does not match the prompt), the run must be unfinished (55000), and
-- nothing starts out redacted.
CREATE FUNCTION agent_state._tg_snapshot_before_insert()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Lock the run; refused when it is unknown or finished.
    PERFORM agent_state._run_writable(NEW.runtime_agent_id, NEW.run_id);
    NEW.prompt_sha256 := pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(NEW.prompt, 'UTF8')), 'hex');
    NEW.redacted_at := NULL;
    NEW.redacted_by := NULL;
    RETURN NEW;
END
$$;
