-- Trigger (BEFORE INSERT zz_chain_close and BEFORE UPDATE zz_chain_close_again,
-- after the record's own stamp; its argument is the closing columns from
-- _chain_tables) on the tables whose records have a closing update (a share's
-- removal, a run's outcome): stamps it once in chain_close_* (_chain_close_digest),
-- when the first closing column is set. Later updates keep that stamp, except in
-- the transaction that made it (see _tg_chain_stamp); a copy (fork_agent) of a
-- closed record is stamped as it is written.
CREATE FUNCTION agent_state._tg_chain_close_stamp()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
DECLARE
    closing text [] := TG_ARGV[0]::text [];
BEGIN
    IF TG_OP = 'INSERT' AND NEW.chain_close_digest IS NOT NULL AND agent_state._chain_keeps_stamps() THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.chain_close_digest IS NOT NULL
        AND OLD.chain_close_xact IS DISTINCT FROM pg_catalog.pg_current_xact_id() THEN
        NEW.chain_close_at := OLD.chain_close_at;
        NEW.chain_close_xact := OLD.chain_close_xact;
        NEW.chain_close_digest := OLD.chain_close_digest;
    ELSIF pg_catalog.to_jsonb(NEW) OPERATOR(pg_catalog.->>) closing[1] IS NOT NULL THEN
        NEW.chain_close_at := coalesce(
            CASE WHEN TG_OP = 'UPDATE' THEN OLD.chain_close_at END, pg_catalog.clock_timestamp());
        NEW.chain_close_xact := pg_catalog.pg_current_xact_id();
        NEW.chain_close_digest := agent_state._chain_close_digest(TG_TABLE_NAME, pg_catalog.to_jsonb(NEW), closing);
    ELSE
        NEW.chain_close_at := NULL;
        NEW.chain_close_xact := NULL;
        NEW.chain_close_digest := NULL;
    END IF;
    RETURN NEW;
END
$$;
