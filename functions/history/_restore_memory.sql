-- One memory revision written by restore_agent: operation amend (the body and
-- subject of then), restore (a forgotten entry live again) or forget (an entry
-- not live then). Like forget and amend, it keeps every evidence message of the
-- revision before it (carried over as rows: it has no source message of its
-- own) and writes the entry's state in the same statement; the caller has
-- locked the entry and chosen a visibility no wider than the current one.
CREATE FUNCTION agent_state._restore_memory(
    agent uuid,
    entry uuid,
    operation text,
    body text,
    subject uuid,
    visibility text,
    reason text
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    cur record;
BEGIN
    SELECT e.current_revision, e.evidence_observers, e.evidence_conversations
    INTO cur
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    WITH ev AS (
        INSERT INTO agent_state.memory_evidence AS w (runtime_agent_id, entry_id, revision, message_id)
        SELECT agent, entry, cur.current_revision + 1, p.message_id
        FROM agent_state._revision_evidence(agent, entry, cur.current_revision) AS p (message_id)
        RETURNING w.message_id
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, evidence_observers, evidence_conversations, reason)
        SELECT agent, entry, cur.current_revision + 1, operation, body, subject, visibility,
               'operator', cur.evidence_observers, cur.evidence_conversations, reason
        FROM (SELECT pg_catalog.count(*) FROM ev) AS after_evidence
        RETURNING r.created_at
    )
    UPDATE agent_state.memory_entries AS e
    SET current_revision = cur.current_revision + 1,
        live = (operation <> 'forget'),
        body = _restore_memory.body,
        subject_id = subject,
        visibility = _restore_memory.visibility,
        source_type = 'operator',
        revised_at = rev.created_at
    FROM rev
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    RETURN cur.current_revision + 1;
END
$$;
