-- Memory eligibility (SPEC section 6, "Eligibility"), written once: rules 2 and 3
-- are _memory_admits, and every way of reading memory for context goes through
-- it: _eligible_memory (any case), _eligible_memory_search (the current state,
-- with a query), _eligible_memory_live (the current state, every entry) and the
-- HNSW index path of _rank_memory (the current state, by embedding). recall
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
LANGUAGE sql STABLE
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
