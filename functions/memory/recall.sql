CREATE FUNCTION agent_state.recall(
    agent uuid,
    query text,
    conversation uuid DEFAULT NULL,
    current_subject uuid DEFAULT NULL,
    max_results integer DEFAULT 10,
    as_of timestamptz DEFAULT NULL,
    match text DEFAULT 'all',
    query_embedding real [] DEFAULT NULL,
    embedding_model text DEFAULT NULL
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    known boolean := false;
    target_audience uuid [];
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_count(max_results, 'max_results');
    PERFORM agent_state._need_as_of(as_of);
    IF pg_catalog.length(query) > 10000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'query: longer than 10000 characters';
    END IF;
    IF current_subject IS NOT NULL THEN
        PERFORM agent_state._need_ref(agent, 'actor', current_subject, 'current_subject');
    END IF;
    -- The target audience: that of the conversation's latest message (latest
    -- observed_at, then latest recorded), among those recorded by as_of.
    SELECT t.known, t.audience INTO known, target_audience
    FROM agent_state._conversation_target(agent, conversation, as_of) AS t;
    RETURN QUERY
    SELECT r.entry, r.revision, r.body, r.subject, r.score, r.text_rank, r.subject_match, r.age
    FROM agent_state._rank_memory(agent, query, match, conversation, known, target_audience,
                                  current_subject, max_results, as_of, false,
                                  query_embedding, embedding_model) AS r
    WHERE agent_state._chain_served_memory(agent, r.entry, r.revision, r.body, r.subject);
END
$$;

COMMENT ON FUNCTION agent_state.recall(uuid, text, uuid, uuid, integer, timestamptz, text, real [], text) IS
'recall(agent, query, conversation => null, current_subject => null, max_results => 10, '
'as_of => null, match => ''all'', query_embedding => null, embedding_model => null) -> (entry, '
'revision, body, subject, score, text_rank, subject_match, age): full-text search (match '
'''all'': websearch_to_tsquery syntax, ts_rank; ''any'': any word of the query, text_rank the '
'share of the query''s idf weight it covers, rare words weighing more; english) over the '
'revisions eligible for the '
'conversation (its latest message''s audience; none: only operator notes and all-public '
'evidence), or as they were at as_of. score = text_rank * (1 + subject_boost if subject = '
'current_subject) * 0.5 ^ (age / recency_half_life); null or blank query: text_rank 1. Order: '
'score desc, newest, entry id. max_results: null 22004, < 1 22023, capped at 1000. query over '
'10,000 characters, infinite as_of: 22023. Unknown conversation or current_subject: P0002 (23503 if another '
'perspective''s). With query_embedding (and embedding_model; pgvector needed, 0A000): the '
'lexical matches plus the eligible revisions nearest to it by cosine distance (at least 50, or '
'5 x max_results), fused as w/(60 + lexical rank) + 1/(60 + vector rank) (lexical rank: 1 + '
'the candidates with a text_rank over 1.2 times its own; w 2 when a candidate holds every query '
'word, else 1), times the subject boost and recency decay (score); eligibility applies before '
'the neighbours are taken.';
