-- The writer of a later revision of an entry that sets its text (amend, and
-- _restore_memory for restore_agent), as _insert_memory is of the first: the
-- carried-over evidence rows, the revision and the entry's new state in one
-- statement, evidence rows first (a revision's evidence is fixed once its row
-- exists). The new revision keeps the evidence of the one before it (prev): its
-- rows and its source message become rows, except source_message, which the new
-- revision's own source_message_id column carries. The entry is live unless the
-- operation is a forget. (forget writes its own statement: it keeps the entry's
-- text, which an UPDATE of body would parse again.) The caller has locked the
-- entry at prev, checked the new state and set client_min_messages (as for
-- _insert_memory); returns the new revision's number.
CREATE FUNCTION agent_state._append_revision(
    agent uuid, entry uuid, prev integer, operation text,
    body text, subject uuid, visibility text, source_type text,
    source_actor uuid, source_message uuid, observers uuid [], convs uuid [], reason text
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    WITH ev AS (
        INSERT INTO agent_state.memory_evidence AS w (runtime_agent_id, entry_id, revision, message_id)
        SELECT agent, entry, prev + 1, p.message_id
        FROM agent_state._revision_evidence(agent, entry, prev) AS p (message_id)
        WHERE p.message_id IS DISTINCT FROM source_message
        RETURNING w.message_id
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility, source_type,
             source_actor_id, source_message_id, evidence_observers, evidence_conversations, reason)
        SELECT agent, entry, prev + 1, operation, body, subject, visibility, source_type,
               source_actor, source_message, observers, convs, reason
        FROM (SELECT pg_catalog.count(*) FROM ev) AS after_evidence
        RETURNING r.created_at
    )
    UPDATE agent_state.memory_entries AS e
    SET current_revision = prev + 1,
        live = (operation <> 'forget'),
        body = _append_revision.body,
        subject_id = subject,
        visibility = _append_revision.visibility,
        source_type = _append_revision.source_type,
        evidence_observers = observers,
        evidence_conversations = convs,
        revised_at = rev.created_at
    FROM rev
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    RETURN prev + 1;
END
$$;
