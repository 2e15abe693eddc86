-- Audit columns come from the database, never from the writer: direct DML cannot
-- backdate a row or claim another role wrote it. clock_timestamp() keeps events of
-- one transaction in order, so "as of" questions have exact answers.
CREATE FUNCTION agent_state._tg_stamp_created()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.created_at := pg_catalog.clock_timestamp();
    NEW.created_by := agent_state._caller();
    RETURN NEW;
END
$$;
