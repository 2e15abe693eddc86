-- At commit of a redaction: every revision of the entry carries the marker, and
-- the entry is retired with the marker as its body.
CREATE FUNCTION agent_state._check_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.entry_id = NEW.entry_id
          AND r.body <> '[redacted]'
    ) OR EXISTS (
        SELECT FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = NEW.runtime_agent_id AND e.entry_id = NEW.entry_id
          AND (e.live OR e.body <> '[redacted]')
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_redactions: entry %s still holds text that its redaction removed', NEW.entry_id);
    END IF;
    RETURN NULL;
END
$$;
