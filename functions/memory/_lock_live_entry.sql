-- The entry a write changes, locked (concurrent writes of one entry serialise on
-- its row; the revision check comes after the lock, so no update is lost):
-- unknown P0002, another perspective's 23503, forgotten or redacted 55000, not
-- at expected_revision (when given) 40001. One place for amend and forget.
-- (OUT columns, not the row type: functions load before the tables.)
CREATE FUNCTION agent_state._lock_live_entry(
    agent uuid, entry uuid, expected_revision integer,
    OUT current_revision integer, OUT live boolean, OUT body text, OUT subject_id uuid, OUT visibility text,
    OUT evidence_observers uuid [], OUT evidence_conversations uuid []
)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    SELECT e.current_revision, e.live, e.body, e.subject_id, e.visibility, e.evidence_observers,
           e.evidence_conversations
    INTO current_revision, live, body, subject_id, visibility, evidence_observers, evidence_conversations
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry);
    END IF;
    IF NOT live THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('entry: memory entry %s is forgotten or redacted', entry);
    END IF;
    IF current_revision <> expected_revision THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('expected_revision: entry %s is at revision %s, not %s',
                                        entry, current_revision, expected_revision),
            HINT = 'Read the entry again and retry.';
    END IF;
END
$$;
