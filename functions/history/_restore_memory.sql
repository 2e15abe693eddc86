-- One memory revision written by restore_agent: operation amend (the body and
-- subject of then), restore (a forgotten entry live again) or forget (an entry
-- not live then). Like forget and amend, it keeps every evidence message of the
-- revision before it (it has no source message of its own); _append_revision
-- writes it. The caller has locked the entry and chosen a visibility no wider
-- than the current one.
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
    RETURN agent_state._append_revision(
        agent, entry, cur.current_revision, operation, body, subject, visibility, 'operator', NULL, NULL,
        cur.evidence_observers, cur.evidence_conversations, reason);
END
$$;
