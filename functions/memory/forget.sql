CREATE FUNCTION agent_state.forget(
    agent uuid,
    entry uuid,
    expected_revision integer DEFAULT NULL,
    reason text DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    caller_kind text;
    cur record;
    new_rev integer;
BEGIN
    caller_kind := agent_state._bind(agent);
    PERFORM agent_state._need(entry, 'entry');
    IF reason IS NOT NULL THEN
        PERFORM agent_state._need_text(reason, 'reason', 10000);
    END IF;

    SELECT * INTO cur FROM agent_state._lock_live_entry(agent, entry, expected_revision);
    new_rev := cur.current_revision + 1;

    -- The forget revision keeps the previous revision's evidence (its rows and
    -- its source message) as rows: it has no source message of its own. Written
    -- here, not by _append_revision: the entry keeps its text, and an UPDATE that
    -- sets body (even to itself) parses it again for tsv (about 25 ms per
    -- 100,000 characters).
    WITH ev AS (
        INSERT INTO agent_state.memory_evidence AS w (runtime_agent_id, entry_id, revision, message_id)
        SELECT agent, entry, new_rev, p.message_id
        FROM agent_state._revision_evidence(agent, entry, cur.current_revision) AS p (message_id)
        RETURNING w.message_id
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, evidence_observers, evidence_conversations, reason)
        SELECT agent, entry, new_rev, 'forget', cur.body, cur.subject_id, cur.visibility,
               CASE caller_kind WHEN 'operator' THEN 'operator' ELSE 'agent' END,
               cur.evidence_observers, cur.evidence_conversations, reason
        FROM (SELECT pg_catalog.count(*) FROM ev) AS after_evidence
        RETURNING r.created_at
    )
    UPDATE agent_state.memory_entries AS e
    SET current_revision = new_rev,
        live = false,
        source_type = CASE caller_kind WHEN 'operator' THEN 'operator' ELSE 'agent' END,
        revised_at = rev.created_at
    FROM rev
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    RETURN new_rev;
END
$$;

COMMENT ON FUNCTION agent_state.forget(uuid, uuid, integer, text) IS
'forget(agent, entry, expected_revision => null, reason => null) -> int: retires the entry '
'(soft delete) by appending a forget revision (body, subject, visibility and evidence carried '
'over, reason kept) and returns its number. Already forgotten or redacted: 55000. '
'expected_revision given and not current: 40001, nothing written. Unknown entry: P0002 '
'(23503 if another perspective''s).';
