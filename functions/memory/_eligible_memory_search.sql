-- The current state, with a query: live entries of the agent matching it, with
-- their text rank (ts_rank; with lexemes and weights, match 'any': the weights of
-- the query lexemes present, see _lexeme_weights), through the per-agent
-- full-text index.
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
    SELECT e.entry_id, e.current_revision, e.body, e.subject_id, e.revised_at,
           CASE WHEN _eligible_memory_search.lexemes IS NULL
               THEN pg_catalog.ts_rank(e.tsv, _eligible_memory_search.query)::double precision
               -- match 'any': the weights of the query lexemes present (_lexeme_weights).
               ELSE (SELECT coalesce(pg_catalog.sum(u.w), 0::double precision)
                     FROM ROWS FROM (pg_catalog.unnest(_eligible_memory_search.lexemes),
                                     pg_catalog.unnest(_eligible_memory_search.weights)) AS u (q, w)
                     WHERE e.tsv OPERATOR(pg_catalog.@@) u.q)
           END
    FROM agent_state.memory_entries AS e
    CROSS JOIN LATERAL agent_state._memory_admits(
        _eligible_memory_search.agent, e.entry_id, e.current_revision, e.visibility,
        e.evidence_observers, e.evidence_conversations,
        _eligible_memory_search.target_conversation, _eligible_memory_search.target_known,
        _eligible_memory_search.target_audience, NULL
    ) AS ok
    WHERE ok.admitted
      AND ARRAY[e.runtime_agent_id] OPERATOR(pg_catalog.@>) ARRAY[_eligible_memory_search.agent]
      AND e.live
      AND e.tsv OPERATOR(pg_catalog.@@) _eligible_memory_search.query
    -- Not flattened into the caller, so ts_rank runs once per row (the callers
    -- use text_rank twice: in the score and as a column).
    OFFSET 0
$$;
