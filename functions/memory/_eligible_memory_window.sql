-- The current state, with a query, in some of the agent's weeks: live entries of
-- the agent revised in those weeks (windows: weeks as _memory_week counts them)
-- matching the query, with their text rank (as _eligible_memory_search), through the third column of
-- memory_entries_search_idx. The same rows as _eligible_memory_search, only
-- restricted to those weeks.
CREATE FUNCTION agent_state._eligible_memory_window(
    agent uuid,
    windows bigint [],
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
           CASE WHEN _eligible_memory_window.lexemes IS NULL
               THEN pg_catalog.ts_rank(e.tsv, _eligible_memory_window.query)::double precision
               -- match 'any': the weights of the query lexemes present (_lexeme_weights).
               ELSE (SELECT coalesce(pg_catalog.sum(u.w), 0::double precision)
                     FROM ROWS FROM (pg_catalog.unnest(_eligible_memory_window.lexemes),
                                     pg_catalog.unnest(_eligible_memory_window.weights)) AS u (q, w)
                     WHERE e.tsv OPERATOR(pg_catalog.@@) u.q)
           END
    FROM agent_state.memory_entries AS e
    CROSS JOIN LATERAL agent_state._memory_admits(
        _eligible_memory_window.agent, e.entry_id, e.current_revision, e.visibility,
        e.evidence_observers, e.evidence_conversations,
        _eligible_memory_window.target_conversation, _eligible_memory_window.target_known,
        _eligible_memory_window.target_audience, NULL
    ) AS ok
    WHERE ok.admitted
      -- The three keys of memory_entries_search_idx: the agent, the weeks and
      -- the query (a week key holds every agent's entries of that week).
      AND ARRAY[e.runtime_agent_id] OPERATOR(pg_catalog.@>) ARRAY[_eligible_memory_window.agent]
      -- The week written out as the index writes it (see sql/memory.sql).
      AND ARRAY[pg_catalog.floor(
              EXTRACT(EPOCH FROM e.revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800
          )::bigint] OPERATOR(pg_catalog.&&) _eligible_memory_window.windows
      AND e.runtime_agent_id OPERATOR(pg_catalog.=) _eligible_memory_window.agent
      AND e.live
      AND e.tsv OPERATOR(pg_catalog.@@) _eligible_memory_window.query
    -- Not flattened into the caller, so ts_rank runs once per row.
    OFFSET 0
$$;
