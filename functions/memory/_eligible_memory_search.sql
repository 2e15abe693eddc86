-- The current state, with a query: the live entries of the agent that match it
-- and that the target may see (_memory_admits), with their text rank
-- (_text_rank), through the per-agent full-text index: the agent and the query
-- are the keys of memory_entries_search_idx on (ARRAY[agent], tsv).
--
-- Flattened into its callers (no OFFSET 0 here), so that a caller's condition
-- on the week of revised_at reaches the index as its third key
-- (_top_memory_search reads a big agent's matches week by week). A caller that
-- uses text_rank twice keeps this query apart (OFFSET 0, as _eligible_memory
-- does), so that the rank is computed once per row.
CREATE FUNCTION agent_state._eligible_memory_search(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    lexemes tsquery [] DEFAULT NULL,
    weights double precision [] DEFAULT NULL
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
    SELECT e.entry_id, e.current_revision, e.body, e.subject_id, e.revised_at, r.text_rank
    FROM agent_state.memory_entries AS e
    CROSS JOIN LATERAL agent_state._memory_admits(
        _eligible_memory_search.agent, e.entry_id, e.current_revision, e.visibility,
        e.evidence_observers, e.evidence_conversations,
        _eligible_memory_search.target_conversation, _eligible_memory_search.target_known,
        _eligible_memory_search.target_audience, NULL
    ) AS ok
    CROSS JOIN LATERAL agent_state._text_rank(
        e.tsv, _eligible_memory_search.query,
        _eligible_memory_search.lexemes, _eligible_memory_search.weights
    ) AS r
    WHERE ok.admitted
      AND ARRAY[e.runtime_agent_id] OPERATOR(pg_catalog.@>) ARRAY[_eligible_memory_search.agent]
      AND e.live
      AND e.tsv OPERATOR(pg_catalog.@@) _eligible_memory_search.query
$$;
