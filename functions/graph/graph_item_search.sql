-- LangGraph store reads: get (one key) and search (a namespace prefix, with an
-- optional query and a filter on the value), over live items. With a conversation,
-- only items that may enter its context (recall's eligibility rules); without one,
-- every item of the agent. Never writes.
CREATE FUNCTION agent_state.graph_item_search(
    agent uuid,
    namespace_prefix text [],
    query text DEFAULT NULL,
    filter jsonb DEFAULT NULL,
    max_results integer DEFAULT 10,
    skip integer DEFAULT 0,
    conversation uuid DEFAULT NULL,
    item_key text DEFAULT NULL
)
RETURNS TABLE (
    namespace text [], key text, value jsonb, created_at timestamptz, updated_at timestamptz,
    score double precision
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
-- The digests are computed over to_jsonb of the rows, whose timestamps read the
-- same in every session only in UTC (_chain_intact).
SET "TimeZone" = 'UTC'
AS $$
#variable_conflict use_variable
DECLARE
    t record;
    q tsquery;
BEGIN
    PERFORM agent_state._bind(agent);
    IF filter IS NOT NULL THEN
        PERFORM agent_state._json_within(filter, 'filter', 1000000);
    END IF;
    -- A prefix or key beyond the limits of a stored item matches none: refused
    -- before it is read (22023).
    PERFORM agent_state._need_graph_labels(namespace_prefix, 'namespace_prefix');
    IF pg_catalog.octet_length(item_key) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'item_key: longer than 1000 bytes';
    END IF;
    IF namespace_prefix IS NULL THEN
        namespace_prefix := '{}';
    END IF;
    PERFORM agent_state._need_count(max_results, 'max_results', 0);
    PERFORM agent_state._need_count(skip, 'skip', 0);
    IF pg_catalog.length(query) > 10000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'query: longer than 10000 characters';
    END IF;
    IF query IS NOT NULL THEN
        q := agent_state._match_query(query, 'any');
    END IF;
    t := agent_state._conversation_target(agent, conversation, NULL);
    -- A get (item_key): one item read by the primary key of graph_items, a
    -- statement of its own whose generic plan PL/pgSQL caches (as a case of the
    -- search below, a get was planned anew on every call). The same rules as the search: live,
    -- the newest value, eligibility, query and filter, skip and max_results, and
    -- the refusal on read.
    IF item_key IS NOT NULL THEN
        RETURN QUERY
        SELECT g.namespace, g.key, g.value, g.created_at, g.updated_at, g.score
        FROM (
            SELECT i.namespace, i.key, v.value,
                   (SELECT r.created_at FROM agent_state.memory_revisions AS r
                    WHERE r.runtime_agent_id = i.runtime_agent_id AND r.entry_id = m.entry_id
                      AND r.revision = 1),
                   m.revised_at,
                   CASE WHEN q IS NULL THEN NULL ELSE pg_catalog.ts_rank(m.tsv, q)::double precision END,
                   m.entry_id, m.current_revision, m.body, m.subject_id, v.rec
            FROM agent_state.graph_items AS i
            JOIN agent_state.memory_entries AS m
              ON m.runtime_agent_id = i.runtime_agent_id AND m.entry_id = i.entry_id AND m.live
            CROSS JOIN LATERAL (
                SELECT w.value, w AS rec FROM agent_state.graph_item_values AS w
                WHERE w.runtime_agent_id = m.runtime_agent_id AND w.entry_id = m.entry_id
                  AND w.revision <= m.current_revision
                ORDER BY w.revision DESC
                LIMIT 1
            ) AS v
            CROSS JOIN LATERAL agent_state._memory_admits(
                agent, m.entry_id, m.current_revision, m.visibility, m.evidence_observers,
                m.evidence_conversations, conversation, t.known, t.audience, NULL
            ) AS ok
            WHERE i.runtime_agent_id = agent AND i.namespace = namespace_prefix AND i.key = item_key
              AND (filter IS NULL OR v.value @> filter)
              AND (q IS NULL OR m.tsv @@ q)
              AND (conversation IS NULL OR ok.admitted)
              -- At most one item: skip and max_results as tests, not as a LIMIT
              -- (with a LIMIT, a custom plan looked cheaper: planned every call).
              AND skip = 0 AND max_results > 0
            OFFSET 0 -- keeps the checks below out of the scans
        ) AS g (namespace, key, value, created_at, updated_at, score, entry_id, revision, body, subject, rec)
        -- Refusal on read (SPEC section 14): the item's value and its memory revision.
        WHERE (agent_state._chain_intact('graph_item_values', pg_catalog.to_jsonb(g.rec), (g.rec).chain_digest)
               OR agent_state._chain_checked('graph_item_values', g.rec))
          AND agent_state._chain_served_memory(agent, g.entry_id, g.revision, g.body, g.subject);
        RETURN;
    END IF;
    -- Driven by the items under the prefix, each item's entry and value read by
    -- primary key (OFFSET 0 keeps these lookups per item: planned as joins
    -- before the first ANALYZE, they scanned every entry of the agent for each
    -- item). Eligibility is tested on each item's entry (rules 2 and 3, as recall
    -- applies them).
    -- The item's timestamps are those of its entry's revisions: created_at of the
    -- first (a put after a delete makes a new entry, so a new item), updated_at of
    -- the current (revised_at). A new item has created_at = updated_at. (Not
    -- graph_items.created_at: that row is written after the entry, and it outlives
    -- a delete, keeping the deleted item's time.)
    RETURN QUERY
    SELECT s.namespace, s.key, s.value, s.created_at, s.updated_at, s.score
    FROM (
    SELECT i.namespace, i.key, e.value,
           (SELECT r.created_at FROM agent_state.memory_revisions AS r
            WHERE r.runtime_agent_id = i.runtime_agent_id AND r.entry_id = e.entry_id
              AND r.revision = 1),
           e.revised_at,
           CASE WHEN q IS NULL THEN NULL ELSE pg_catalog.ts_rank(e.tsv, q)::double precision END,
           e.entry_id, e.current_revision, e.body, e.subject_id, e.rec
    FROM agent_state.graph_items AS i
    CROSS JOIN LATERAL (
        SELECT m.entry_id, m.revised_at, m.tsv, v.value, m.current_revision, m.body, m.subject_id, v.rec
        FROM agent_state.memory_entries AS m
        -- The value of the newest revision that has one: an entry amended
        -- through amend() (not the store) keeps its item and its last value.
        CROSS JOIN LATERAL (
            SELECT w.value, w AS rec FROM agent_state.graph_item_values AS w
            WHERE w.runtime_agent_id = m.runtime_agent_id AND w.entry_id = m.entry_id
              AND w.revision <= m.current_revision
            ORDER BY w.revision DESC
            LIMIT 1
        ) AS v
        CROSS JOIN LATERAL agent_state._memory_admits(
            agent, m.entry_id, m.current_revision, m.visibility, m.evidence_observers,
            m.evidence_conversations, conversation, t.known, t.audience, NULL
        ) AS ok
        WHERE m.runtime_agent_id = i.runtime_agent_id AND m.entry_id = i.entry_id AND m.live
          AND (filter IS NULL OR v.value @> filter)
          AND (q IS NULL OR m.tsv @@ q)
          AND (conversation IS NULL OR ok.admitted)
        OFFSET 0
    ) AS e
    WHERE i.runtime_agent_id = agent
      AND i.namespace[1:pg_catalog.cardinality(namespace_prefix)] = namespace_prefix
    ORDER BY 6 DESC NULLS LAST, e.revised_at DESC, i.namespace, i.key
    LIMIT max_results OFFSET skip
    ) AS s (namespace, key, value, created_at, updated_at, score, entry_id, revision, body, subject, rec)
    -- Refusal on read (SPEC section 14): the item's value and its memory revision.
    WHERE (agent_state._chain_intact('graph_item_values', pg_catalog.to_jsonb(s.rec), (s.rec).chain_digest)
           OR agent_state._chain_checked('graph_item_values', s.rec))
      AND agent_state._chain_served_memory(agent, s.entry_id, s.revision, s.body, s.subject)
    ORDER BY s.score DESC NULLS LAST, s.updated_at DESC, s.namespace, s.key;
END
$$;

COMMENT ON FUNCTION agent_state.graph_item_search(uuid, text [], text, jsonb, integer, integer, uuid, text) IS
'graph_item_search(agent, namespace_prefix, query => null, filter => null, max_results => 10, '
'skip => 0, conversation => null, item_key => null) -> (namespace, key, value, created_at, '
'updated_at, score) (for the LangGraph store): live items under the prefix (with item_key, '
'the one item of that key in exactly the namespace namespace_prefix; get is this), '
'value containing filter, matching any word of query (score: its rank), newest first otherwise; '
'created_at is when the item (its entry) was created, updated_at its last revision. '
'With a conversation, only items eligible for its context. Reads only.';
