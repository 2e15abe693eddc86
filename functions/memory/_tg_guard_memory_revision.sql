-- Revisions: the one permitted UPDATE is the redaction rewrite of the body.
CREATE FUNCTION agent_state._tg_guard_memory_revision()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- An update that changes nothing, or the redaction rewrite.
    IF TG_OP = 'UPDATE' AND agent_state._changes_only(NEW, OLD, ARRAY['body'])
        AND (NEW.body = OLD.body
             OR NEW.body = '[redacted]' AND agent_state._redaction_allowed(OLD.runtime_agent_id, OLD.entry_id)) THEN
        RETURN NEW;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'is append-only; history is never rewritten',
                                      'Write a new revision instead; erasure goes through agent_state.redact.');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
