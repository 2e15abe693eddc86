-- Revisions: the one permitted UPDATE is the redaction rewrite of the body.
CREATE FUNCTION agent_state._tg_guard_memory_revision()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF pg_catalog.to_jsonb(NEW) = pg_catalog.to_jsonb(OLD) THEN
            RETURN NEW;
        END IF;
        IF NEW.body = '[redacted]'
            AND (pg_catalog.to_jsonb(NEW) - 'body') = (pg_catalog.to_jsonb(OLD) - 'body')
            AND agent_state._redaction_allowed(OLD.runtime_agent_id, OLD.entry_id) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s is append-only; history is never rewritten',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP)),
        HINT = 'Write a new revision instead; erasure goes through agent_state.redact.';
END
$$;
