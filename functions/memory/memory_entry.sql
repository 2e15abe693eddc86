-- One entry's state, by id: now or as of a moment. With a conversation, only when
-- the entry may enter that conversation's context (the eligibility rules of
-- recall); without one, the agent's own view of its memory.
CREATE FUNCTION agent_state.memory_entry(
    agent uuid,
    entry uuid,
    as_of timestamptz DEFAULT NULL,
    conversation uuid DEFAULT NULL
)
RETURNS TABLE (
    revision integer, body text, subject uuid, visibility text, source_type text, live boolean,
    created_at timestamptz, revised_at timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    t record;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need_as_of(as_of);
    PERFORM agent_state._need_ref(agent, 'memory entry', entry, 'entry');
    IF conversation IS NOT NULL THEN
        t := agent_state._conversation_target(agent, conversation, as_of);
        RETURN QUERY
        SELECT h.revision, h.body, h.subject_id, r.visibility, r.source_type, true,
               e.created_at, h.revised_at
        FROM agent_state._eligible_memory(agent, NULL, conversation, t.known, t.audience, as_of) AS h
        JOIN agent_state.memory_revisions AS r
          ON r.runtime_agent_id = agent AND r.entry_id = h.entry_id AND r.revision = h.revision
        JOIN agent_state.memory_entries AS e
          ON e.runtime_agent_id = agent AND e.entry_id = h.entry_id
        WHERE h.entry_id = entry
          AND agent_state._chain_served_memory(agent, h.entry_id, h.revision, h.body, h.subject_id);
        RETURN;
    END IF;
    RETURN QUERY
    SELECT r.revision, r.body, r.subject_id, r.visibility, r.source_type,
           r.operation <> 'forget' AND (as_of IS NOT NULL OR e.live) AND NOT EXISTS (
               SELECT FROM agent_state.memory_redactions AS d
               WHERE d.runtime_agent_id = agent AND d.entry_id = entry),
           e.created_at, r.created_at
    FROM agent_state.memory_entries AS e
    JOIN LATERAL (
        SELECT x.* FROM agent_state.memory_revisions AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry
          AND (as_of IS NULL OR x.created_at <= as_of)
        ORDER BY x.revision DESC
        LIMIT 1
    ) AS r ON true
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry
      AND agent_state._chain_served_memory(agent, entry, r.revision, r.body, r.subject_id);
END
$$;

COMMENT ON FUNCTION agent_state.memory_entry(uuid, uuid, timestamptz, uuid) IS
'memory_entry(agent, entry, as_of => null, conversation => null) -> (revision, body, subject, '
'visibility, source_type, live, created_at, revised_at): one entry''s current state (or its '
'latest revision at as_of), read by id in one lookup. With a conversation: a row only when the '
'entry may enter that conversation''s context (recall''s eligibility rules). Unknown entry: '
'P0002 (23503 if another perspective''s); infinite as_of: 22023.';
