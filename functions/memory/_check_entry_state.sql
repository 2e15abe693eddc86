-- Does the entry's current state equal its latest revision? Raises 23503 when
-- the current revision is missing and 23514 on any difference: the current
-- revision must be the latest one, and body, subject, visibility, source type,
-- evidence fields and revised_at must be copied from it; live must be
-- (not a forget, not redacted).
CREATE FUNCTION agent_state._check_entry_state(agent uuid, entry uuid)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    ok boolean;
    has_revision boolean;
    cur integer;
BEGIN
    SELECT e.current_revision, r.revision IS NOT NULL,
           e.current_revision = (
               SELECT x.revision FROM agent_state.memory_revisions AS x
               WHERE x.runtime_agent_id = e.runtime_agent_id AND x.entry_id = e.entry_id
               ORDER BY x.revision DESC LIMIT 1)
           AND e.body = r.body
           AND e.subject_id IS NOT DISTINCT FROM r.subject_id
           AND e.visibility = r.visibility
           AND e.source_type = r.source_type
           AND e.evidence_observers IS NOT DISTINCT FROM r.evidence_observers
           AND e.evidence_conversations = r.evidence_conversations
           AND e.revised_at = r.created_at
           AND e.live = (r.operation <> 'forget' AND NOT agent_state._redacted(e.runtime_agent_id, e.entry_id))
    INTO cur, has_revision, ok
    FROM agent_state.memory_entries AS e
    LEFT JOIN agent_state.memory_revisions AS r
      ON r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id
     AND r.revision = e.current_revision
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    IF NOT FOUND THEN
        -- The revision's own foreign key reports a missing entry.
        RETURN;
    END IF;
    IF NOT has_revision THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('memory_entries: entry %s has no revision %s', entry, cur),
            HINT = 'An entry and its revision commit in one transaction.';
    END IF;
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_entries: entry %s does not match its latest revision', entry),
            HINT = 'The current state of an entry is always its latest revision.';
    END IF;
END
$$;
