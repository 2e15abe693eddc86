-- Any case: the current state (with or without a query) or the past. The
-- branch is chosen by one-time filters on the parameters.
CREATE FUNCTION agent_state._eligible_memory(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    as_of timestamptz,
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
    -- Now, with a query: the per-agent full-text index. Not flattened into the
    -- caller, so the text rank is computed once per row (the callers use
    -- text_rank twice: in the score and as a column).
    (SELECT s.entry_id, s.revision, s.body, s.subject_id, s.revised_at, s.text_rank
     FROM agent_state._eligible_memory_search(
         _eligible_memory.agent, _eligible_memory.query, _eligible_memory.target_conversation,
         _eligible_memory.target_known, _eligible_memory.target_audience,
         _eligible_memory.lexemes, _eligible_memory.weights
     ) AS s
     WHERE _eligible_memory.as_of IS NULL AND _eligible_memory.query IS NOT NULL
     OFFSET 0)
    UNION ALL
    -- Now, without a query: every live entry.
    SELECT l.entry_id, l.revision, l.body, l.subject_id, l.revised_at, l.text_rank
    FROM agent_state._eligible_memory_live(
        _eligible_memory.agent, _eligible_memory.target_conversation,
        _eligible_memory.target_known, _eligible_memory.target_audience
    ) AS l
    WHERE _eligible_memory.as_of IS NULL AND _eligible_memory.query IS NULL
    UNION ALL
    -- The past: the latest revision of each entry created by as_of.
    SELECT r.entry_id, r.revision, r.body, r.subject_id, r.created_at, t.text_rank
    FROM (
        SELECT DISTINCT ON (x.entry_id)
               x.entry_id, x.revision, x.operation, x.body, x.subject_id, x.created_at,
               x.visibility, x.evidence_observers, x.evidence_conversations
        FROM agent_state.memory_revisions AS x
        WHERE _eligible_memory.as_of IS NOT NULL
          AND x.runtime_agent_id = _eligible_memory.agent
          AND x.created_at <= _eligible_memory.as_of
        ORDER BY x.entry_id, x.revision DESC
    ) AS r
    CROSS JOIN LATERAL agent_state._memory_admits(
        _eligible_memory.agent, r.entry_id, r.revision, r.visibility,
        r.evidence_observers, r.evidence_conversations,
        _eligible_memory.target_conversation, _eligible_memory.target_known,
        _eligible_memory.target_audience, _eligible_memory.as_of
    ) AS ok
    CROSS JOIN LATERAL agent_state._text_rank(
        pg_catalog.to_tsvector('english'::regconfig, r.body), _eligible_memory.query,
        _eligible_memory.lexemes, _eligible_memory.weights
    ) AS t
    WHERE ok.admitted
      AND r.operation <> 'forget'
      AND (_eligible_memory.query IS NULL
           OR pg_catalog.to_tsvector('english'::regconfig, r.body)
              OPERATOR(pg_catalog.@@) _eligible_memory.query)
      AND NOT EXISTS (
          SELECT FROM agent_state.memory_redactions AS d
          WHERE d.runtime_agent_id = _eligible_memory.agent AND d.entry_id = r.entry_id
      )
$$;
