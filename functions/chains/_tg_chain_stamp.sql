-- Trigger (BEFORE INSERT zz_chain and BEFORE UPDATE zz_chain_again, after every
-- other BEFORE trigger has settled the row; its arguments are the table's
-- excluded columns, erasable column and rewritable predicate from _chain_tables,
-- written into the triggers by sql/triggers.sql): stamps each record of the chains
-- (_chain_tables) with its place (chain_at the clock, chain_xact the
-- writing transaction) and its digest (_chain_digest).
--
-- An update keeps the stamp, so a record's digest never follows a change made
-- after its transaction, except:
-- * within the transaction that wrote the record (a redaction's hashes, a run
--   finished where it started): no head can include it yet (chain_head leaves
--   out the caller's own transaction), so the digest is computed again;
-- * a rewritable record (_chain_tables), stamped anew;
-- A closing update (a share removed, a run finished) gets its own stamp from
-- _tg_chain_close_stamp.
-- A copy by import_agent keeps the stamp it is given (_chain_keeps_stamps); a
-- fork's copy belongs to another agent, so its stamp is made anew. A restore never reaches this function (the trigger's WHEN
-- clause, sql/triggers.sql): it keeps what it loads, and verify judges it.
CREATE FUNCTION agent_state._tg_chain_stamp()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
DECLARE
    rewrite boolean := false;
    excluded text [] := TG_ARGV[0]::text [];
    erasable text := NULLIF(TG_ARGV[1], '');
    rewritable text := NULLIF(TG_ARGV[2], '');
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.chain_digest IS NOT NULL AND agent_state._chain_keeps_stamps() THEN
            RETURN NEW;
        END IF;
        rewrite := true;
    ELSIF OLD.chain_xact IS NOT DISTINCT FROM pg_catalog.pg_current_xact_id() THEN
        NEW.chain_at := OLD.chain_at;
        NEW.chain_xact := OLD.chain_xact;
        NEW.chain_digest := agent_state._chain_digest(TG_TABLE_NAME, pg_catalog.to_jsonb(NEW), excluded, erasable);
    ELSE
        IF rewritable IS NOT NULL THEN
            EXECUTE pg_catalog.format('SELECT %s FROM (SELECT ($1).*) AS x', rewritable)
            INTO rewrite USING NEW;
        END IF;
        IF NOT rewrite THEN
            NEW.chain_at := OLD.chain_at;
            NEW.chain_xact := OLD.chain_xact;
            NEW.chain_digest := OLD.chain_digest;
        END IF;
    END IF;
    IF rewrite THEN
        NEW.chain_at := pg_catalog.clock_timestamp();
        NEW.chain_xact := pg_catalog.pg_current_xact_id();
        NEW.chain_digest := agent_state._chain_digest(TG_TABLE_NAME, pg_catalog.to_jsonb(NEW), excluded, erasable);
    END IF;
    RETURN NEW;
END
$$;
