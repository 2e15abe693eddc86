-- An agent's memory entries, newest first by creation (SPEC section 3): live
-- ones, or forgotten and redacted ones too. An operator's listing, not
-- retrieval: it applies no eligibility (recall and context_for do).
CREATE FUNCTION agent_state.list_memories(
    agent uuid,
    include_forgotten boolean DEFAULT false,
    max_results integer DEFAULT 100
)
RETURNS TABLE (
    entry uuid, revision integer, live boolean, body text, subject uuid, visibility text,
    source_type text, created_at timestamptz, revised_at timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(list_memories.agent);
    PERFORM agent_state._need(list_memories.include_forgotten, 'include_forgotten');
    PERFORM agent_state._need_count(list_memories.max_results, 'max_results', 1, 10000);
    RETURN QUERY
    SELECT e.entry_id, e.current_revision, e.live, e.body, e.subject_id, e.visibility,
           e.source_type, e.created_at, e.revised_at
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = list_memories.agent
      AND (e.live OR list_memories.include_forgotten)
    ORDER BY e.created_at DESC, e.entry_id
    LIMIT list_memories.max_results;
END
$$;

COMMENT ON FUNCTION agent_state.list_memories(uuid, boolean, integer) IS
'list_memories(agent, include_forgotten => false, max_results => 100) -> table(entry, '
'revision, live, body, subject, visibility, source_type, created_at, revised_at): the agent''s '
'memory entries (live ones; with include_forgotten, forgotten and redacted ones too), newest '
'first by creation, each in its current state. No eligibility is applied: this is a listing '
'for the agent''s operators and runtimes, not retrieval. max_results from 1 to 10000.';
