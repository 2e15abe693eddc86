-- Data derived from a memory revision's text (embeddings, LangGraph item values):
-- never attached to a redacted entry (its text is gone), never updated, and
-- deleted only by redact, in the transaction that redacts the entry.
CREATE FUNCTION agent_state._tg_guard_derived_memory()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF agent_state._redacted(NEW.runtime_agent_id, NEW.entry_id) THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = pg_catalog.format('entry: memory entry %s is redacted', NEW.entry_id);
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND agent_state._redaction_allowed(OLD.runtime_agent_id, OLD.entry_id) THEN
        RETURN OLD;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'refused; derived memory data is erased only by redact');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
