-- The evidence of one revision: its source message (the source_message_id
-- column) and its memory_evidence rows. The functions store a revision's own
-- source message only in that column; rows hold what an amend or a forget
-- carries over from the revision before it (an amendment keeps all earlier
-- evidence). A 0.1.0 install also has a row for the source message: the UNION
-- makes that the same set.
--
-- Inlinable SQL (no SET clause), so reached only from the owner's functions,
-- which pin search_path; every name is schema-qualified.
CREATE FUNCTION agent_state._revision_evidence(agent uuid, entry uuid, rev integer)
RETURNS SETOF uuid
LANGUAGE sql STABLE
AS $$
    SELECT v.message_id
    FROM agent_state.memory_evidence AS v
    WHERE v.runtime_agent_id = _revision_evidence.agent AND v.entry_id = _revision_evidence.entry
      AND v.revision = _revision_evidence.rev
    UNION
    SELECT r.source_message_id
    FROM agent_state.memory_revisions AS r
    WHERE r.runtime_agent_id = _revision_evidence.agent AND r.entry_id = _revision_evidence.entry
      AND r.revision = _revision_evidence.rev AND r.source_message_id IS NOT NULL
$$;
