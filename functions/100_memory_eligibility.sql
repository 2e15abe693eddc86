-- Memory eligibility (SPEC section 6, "Eligibility"), written once: rules 2 and 3
-- are _memory_admits, and every way of reading memory for context goes through
-- it: _eligible_memory (any case), _eligible_memory_search (the current state,
-- with a query) and _eligible_memory_live (the current state, every entry). recall
-- and context_for read memory only through these, so they cannot disagree about
-- what may enter context.
--
-- _eligible_memory(agent, query, target_conversation, target_known, target_audience,
--   as_of) -> (entry_id, revision, body, subject_id, revised_at, text_rank)
--
--   query               a tsquery, or NULL for every eligible revision (text_rank 1)
--   target_conversation the conversation the reply goes to (NULL: none)
--   target_known        the target has a message that names its audience
--   target_audience     that audience; NULL = public
--   as_of               NULL: the current state; otherwise the state at that moment
--
-- A revision is eligible when
--   1. it is its entry's current revision and the entry is live (with as_of: it was
--      the latest revision created at or before as_of, that revision is not a
--      forget, and the entry has not been redacted since: erased text never
--      surfaces, not even for the past), and
--   2. the target audience could observe every evidence message: the revision's
--      evidence_observers is NULL (operator notes, imports, all-public evidence), or
--      the target has a non-public audience contained in evidence_observers; a
--      public audience, no target and a target without messages admit only NULL.
--      Visibility conversation additionally requires that all evidence came from
--      the target conversation (narrowing visibility never widens eligibility),
--   3. or an unrevoked grant exists for exactly that revision and the target
--      conversation (with as_of: created by then and not yet revoked then), and the
--      target has messages (with no messages only notes and public evidence are
--      eligible).
--
-- All of them are inlinable SQL functions (no SET clause, not SECURITY DEFINER,
-- not granted to anyone, every name qualified): they run inside the SECURITY
-- DEFINER callers and the planner expands them into their queries, so the
-- search is a bitmap scan of memory_entries_search_idx on (ARRAY[agent], tsv)
-- and the admission test is a filter on each row, not a call.

-- Rules 2 and 3 for one revision: one row, admitted = whether the target may
-- see it (callers keep the rows WHERE admitted). A one-row subquery without a
-- WHERE clause, so the planner replaces it by its expression and no join is
-- left. With a literal NULL as_of (the current state) the grant test is for
-- unrevoked grants only.
CREATE FUNCTION agent_state._memory_admits(
    agent uuid,
    entry_id uuid,
    revision integer,
    visibility text,
    evidence_observers uuid [],
    evidence_conversations uuid [],
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    as_of timestamptz
)
RETURNS TABLE (admitted boolean)
LANGUAGE sql
STABLE
AS $$
    SELECT (
        -- Rule 2: every member of the target audience could observe all evidence.
        (_memory_admits.evidence_observers IS NULL
         OR (_memory_admits.target_known
             AND _memory_admits.target_audience IS NOT NULL
             AND _memory_admits.target_audience OPERATOR(pg_catalog.<@) _memory_admits.evidence_observers))
        AND (_memory_admits.visibility = 'perspective'
             OR (_memory_admits.target_known
                 AND _memory_admits.evidence_conversations = ARRAY[_memory_admits.target_conversation]))
    ) OR (
        -- Rule 3: a grant for exactly this revision and the target conversation.
        _memory_admits.target_known
        AND EXISTS (
            SELECT FROM agent_state.memory_shares AS s
            WHERE s.runtime_agent_id = _memory_admits.agent
              AND s.entry_id = _memory_admits.entry_id
              AND s.revision = _memory_admits.revision
              AND s.conversation_id = _memory_admits.target_conversation
              AND ((_memory_admits.as_of IS NULL AND s.revoked_at IS NULL)
                   OR (_memory_admits.as_of IS NOT NULL
                       AND s.created_at <= _memory_admits.as_of
                       AND (s.revoked_at IS NULL OR s.revoked_at > _memory_admits.as_of)))
        )
    ) AS admitted
$$;

-- The current state, with a query: live entries of the agent matching it, with
-- their ts_rank, through the per-agent full-text index.
CREATE FUNCTION agent_state._eligible_memory_search(
    agent uuid,
    query tsquery,
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
LANGUAGE sql
STABLE
AS $$
    SELECT e.entry_id, e.current_revision, e.body, e.subject_id, e.revised_at,
           pg_catalog.ts_rank(e.tsv, _eligible_memory_search.query)::double precision
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
LANGUAGE sql
STABLE
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

-- Any case: the current state (with or without a query) or the past. The
-- branch is chosen by one-time filters on the parameters.
CREATE FUNCTION agent_state._eligible_memory(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    as_of timestamptz
)
RETURNS TABLE (
    entry_id uuid,
    revision integer,
    body text,
    subject_id uuid,
    revised_at timestamptz,
    text_rank double precision
)
LANGUAGE sql
STABLE
AS $$
    -- Now, with a query: the per-agent full-text index.
    SELECT s.entry_id, s.revision, s.body, s.subject_id, s.revised_at, s.text_rank
    FROM agent_state._eligible_memory_search(
        _eligible_memory.agent, _eligible_memory.query, _eligible_memory.target_conversation,
        _eligible_memory.target_known, _eligible_memory.target_audience
    ) AS s
    WHERE _eligible_memory.as_of IS NULL AND _eligible_memory.query IS NOT NULL
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
    SELECT r.entry_id, r.revision, r.body, r.subject_id, r.created_at,
           CASE WHEN _eligible_memory.query IS NULL THEN 1::double precision
               ELSE pg_catalog.ts_rank(pg_catalog.to_tsvector('english'::regconfig, r.body),
                                       _eligible_memory.query)::double precision
           END
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
