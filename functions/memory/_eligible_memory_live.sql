-- The current state, every live entry of the agent (text_rank 1).
CREATE FUNCTION agent_state._eligible_memory_live(
    agent uuid,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid []
)
RETURNS TABLE (
    entry_id uuid,
    revision integer,
    body text,
    subject_id uuid,
    revised_at timestamptz,
    text_rank double precision
)
LANGUAGE sql STABLE
AS $$
    SELECT e.entry_id, e.current_revision, e.body, e.subject_id, e.revised_at, 1::double precision
    FROM agent_state.memory_entries AS e
    CROSS JOIN LATERAL agent_state._memory_admits(
        _eligible_memory_live.agent, e.entry_id, e.current_revision, e.visibility,
        e.evidence_observers, e.evidence_conversations,
        _eligible_memory_live.target_conversation, _eligible_memory_live.target_known,
        _eligible_memory_live.target_audience, NULL
    ) AS ok
    WHERE ok.admitted
      AND e.runtime_agent_id = _eligible_memory_live.agent
      AND e.live
$$;
