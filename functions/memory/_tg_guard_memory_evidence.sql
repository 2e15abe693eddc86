-- Evidence is written before its revision row (in the same statement).
CREATE FUNCTION agent_state._tg_guard_memory_evidence()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.entry_id = NEW.entry_id
          AND r.revision = NEW.revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format(
                'memory_evidence: revision %s of entry %s is already written; its evidence is fixed',
                NEW.revision, NEW.entry_id);
    END IF;
    RETURN NEW;
END
$$;
