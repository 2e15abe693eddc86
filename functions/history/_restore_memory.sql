-- One memory revision written by restore_agent: operation amend (the body and
-- subject of then), restore (a forgotten entry live again) or forget (an entry
-- not live then). Like forget and amend, it keeps every evidence message of the
-- revision before it (it has no source message of its own); _append_revision
-- writes it, from the entry's current revision. The caller has locked the entry
-- and chosen a visibility no wider than the current one.
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
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
    SELECT agent_state._append_revision(
        e.runtime_agent_id, e.entry_id, e.current_revision, _restore_memory.operation, _restore_memory.body,
        _restore_memory.subject, _restore_memory.visibility, 'operator', NULL, NULL,
        e.evidence_observers, e.evidence_conversations, _restore_memory.reason)
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = _restore_memory.agent AND e.entry_id = _restore_memory.entry
$$;
