-- Memory eligibility (SPEC section 6, "Eligibility"), written once: recall and
-- context_for both read memory only through _eligible_memory, so they cannot
-- disagree about what may enter context.
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
-- An inlinable SQL function (no SET clause, not SECURITY DEFINER, not granted to
-- anyone, every name qualified): it runs inside the SECURITY DEFINER callers and
-- the planner expands it into their queries, so the live branch with a query is a
-- bitmap scan of memory_entries_search_idx on (ARRAY[agent], tsv).
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
    SELECT c.entry_id, c.revision, c.body, c.subject_id, c.revised_at, c.text_rank
    FROM (
        -- Now, with a query: the per-agent full-text index.
        SELECT e.entry_id, e.current_revision AS revision, e.body, e.subject_id, e.revised_at,
               pg_catalog.ts_rank(e.tsv, _eligible_memory.query)::double precision AS text_rank,
               e.visibility, e.evidence_observers, e.evidence_conversations
        FROM agent_state.memory_entries AS e
        WHERE _eligible_memory.as_of IS NULL AND _eligible_memory.query IS NOT NULL
          AND ARRAY[e.runtime_agent_id] OPERATOR(pg_catalog.@>) ARRAY[_eligible_memory.agent]
          AND e.live
          AND e.tsv OPERATOR(pg_catalog.@@) _eligible_memory.query
        UNION ALL
        -- Now, without a query: every live entry.
        SELECT e.entry_id, e.current_revision, e.body, e.subject_id, e.revised_at,
               1::double precision,
               e.visibility, e.evidence_observers, e.evidence_conversations
        FROM agent_state.memory_entries AS e
        WHERE _eligible_memory.as_of IS NULL AND _eligible_memory.query IS NULL
          AND e.runtime_agent_id = _eligible_memory.agent
          AND e.live
        UNION ALL
        -- The past: the latest revision of each entry created by as_of.
        SELECT r.entry_id, r.revision, r.body, r.subject_id, r.created_at,
               CASE WHEN _eligible_memory.query IS NULL THEN 1::double precision
                   ELSE pg_catalog.ts_rank(pg_catalog.to_tsvector('english'::regconfig, r.body),
                                           _eligible_memory.query)::double precision
               END,
               r.visibility, r.evidence_observers, r.evidence_conversations
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
        WHERE r.operation <> 'forget'
          AND (_eligible_memory.query IS NULL
               OR pg_catalog.to_tsvector('english'::regconfig, r.body)
                  OPERATOR(pg_catalog.@@) _eligible_memory.query)
          AND NOT EXISTS (
              SELECT FROM agent_state.memory_redactions AS d
              WHERE d.runtime_agent_id = _eligible_memory.agent AND d.entry_id = r.entry_id
          )
    ) AS c
    WHERE (
        -- Rule 2: every member of the target audience could observe all evidence.
        (c.evidence_observers IS NULL
         OR (_eligible_memory.target_known
             AND _eligible_memory.target_audience IS NOT NULL
             AND _eligible_memory.target_audience OPERATOR(pg_catalog.<@) c.evidence_observers))
        AND (c.visibility = 'perspective'
             OR (_eligible_memory.target_known
                 AND c.evidence_conversations = ARRAY[_eligible_memory.target_conversation]))
    ) OR (
        -- Rule 3: a grant for exactly this revision and the target conversation.
        _eligible_memory.target_known
        AND EXISTS (
            SELECT FROM agent_state.memory_shares AS s
            WHERE s.runtime_agent_id = _eligible_memory.agent
              AND s.entry_id = c.entry_id
              AND s.revision = c.revision
              AND s.conversation_id = _eligible_memory.target_conversation
              AND ((_eligible_memory.as_of IS NULL AND s.revoked_at IS NULL)
                   OR (_eligible_memory.as_of IS NOT NULL
                       AND s.created_at <= _eligible_memory.as_of
                       AND (s.revoked_at IS NULL OR s.revoked_at > _eligible_memory.as_of)))
        )
    )
$$;
