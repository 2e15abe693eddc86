-- Retrieval: recall (a search) and context_for (automatic prompt context). Both
-- read memory only through the eligibility functions of
-- functions/100_memory_eligibility.sql (all of them apply _memory_admits)
-- and rank with one formula, in _rank_memory:
--
--   score = text_rank * (1 + subject_boost when subject = current_subject)
--           * 0.5 ^ (age / recency_half_life)
--
-- text_rank: ts_rank of the query against the revision's text (1 for every
-- eligible revision when there is no query); age: now() (or as_of) minus the time
-- the revision was written, never negative. subject_boost (default 1.0, a number
-- from 0 to 1,000,000) and recency_half_life (default '30 days', a positive
-- interval) come from the agent's settings; a bad setting raises 22023. The decay
-- exponent is capped at 830 half-lives so that scores stay representable; beyond
-- that, older revisions tie on decay and order by newest. Order: score desc, then
-- newest revision, then entry id. At most 1,000 rows per call (larger max_results
-- are capped).

-- The score of one eligible revision, float8 throughout. An inlinable SQL
-- expression (no SET clause, not SECURITY DEFINER, not granted): the planner
-- expands it into the ranking queries, so there is no call per row.
CREATE FUNCTION agent_state._memory_score(
    text_rank double precision,
    subject_id uuid,
    revised_at timestamptz,
    current_subject uuid,
    boost double precision,
    ref_time timestamptz,
    half_life_s double precision
)
RETURNS double precision
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT text_rank
           * CASE WHEN subject_id = current_subject THEN 1 + boost ELSE 1 END
           * pg_catalog.power(0.5::double precision,
                              LEAST(GREATEST(pg_catalog.date_part('epoch', ref_time - revised_at),
                                             0::double precision) / half_life_s,
                                    830::double precision))
$$;

-- Ranked eligible memory for one target. With fill, the rows relevant to the
-- query come first and the newest other eligible entries fill up to max_results
-- (text_rank 0, score 0).
--
-- Generic plans, always: the expanded eligibility query costs more to plan than
-- to run, and its branches are chosen at run time (one-time filters on the
-- parameters); the live branch with a query keeps its bitmap scan of
-- memory_entries_search_idx on (ARRAY[agent], tsv) with the agent and the query
-- as parameters.
CREATE FUNCTION agent_state._rank_memory(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    current_subject uuid,
    max_results integer,
    as_of timestamptz,
    fill boolean
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_variable
DECLARE
    settings jsonb;
    boost double precision := 1.0;
    half_life interval := '30 days'::interval;
    half_life_s double precision;
    ref_time timestamptz := coalesce(as_of, pg_catalog.now());
    n integer := LEAST(max_results, 1000);
BEGIN
    SELECT a.settings INTO settings FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent;
    IF settings ? 'subject_boost' THEN
        IF pg_catalog.jsonb_typeof(settings -> 'subject_boost') <> 'number'
            OR (settings ->> 'subject_boost')::numeric NOT BETWEEN 0 AND 1000000 THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'settings: subject_boost must be a number from 0 to 1000000';
        END IF;
        boost := (settings ->> 'subject_boost')::double precision;
    END IF;
    IF settings ? 'recency_half_life' THEN
        BEGIN
            half_life := (settings ->> 'recency_half_life')::interval;
        EXCEPTION WHEN data_exception OR syntax_error_or_access_rule_violation THEN
            half_life := NULL;
        END;
        IF half_life IS NULL OR half_life <= interval '0' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'settings: recency_half_life must be a positive interval';
        END IF;
    END IF;
    half_life_s := pg_catalog.date_part('epoch', half_life);
    IF NOT half_life_s > 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'settings: recency_half_life must be a positive interval';
    END IF;

    -- One statement per case, each reading only the source it needs (the
    -- search, every live entry, or the past), so that each cached generic plan
    -- holds one scan. The age interval is computed only for the rows returned.
    IF as_of IS NOT NULL THEN
        -- The past (recall only, never filled).
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score
            FROM agent_state._eligible_memory(agent, query, target_conversation, target_known,
                                              target_audience, as_of) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSIF query IS NULL AND (current_subject IS NULL OR boost = 0) THEN
        -- No query and no subject factor: the score only decays with age, so
        -- the newest eligible entries are the best ones (same order), read in
        -- memory_entries_recent_idx order without ranking every entry.
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id,
               agent_state._memory_score(t.text_rank, t.subject_id, t.revised_at, current_subject,
                                         boost, ref_time, half_life_s),
               t.text_rank, coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS h
            ORDER BY h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.revised_at DESC, t.entry_id;
    ELSIF query IS NULL THEN
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSIF NOT fill THEN
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score
            FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                     target_known, target_audience) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSE
        -- context_for: the matches first, then the newest other eligible entries.
        RETURN QUERY
        WITH top AS (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score,
                   1 AS grp
            FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                     target_known, target_audience) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ),
        filler AS (
            SELECT f.entry_id, f.revision, f.body, f.subject_id, f.revised_at,
                   0::double precision AS text_rank, 0::double precision AS score, 2 AS grp
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS f
            WHERE NOT EXISTS (SELECT FROM top AS t WHERE t.entry_id = f.entry_id)
            ORDER BY f.revised_at DESC, f.entry_id
            LIMIT GREATEST(n - (SELECT pg_catalog.count(*) FROM top), 0)
        )
        SELECT u.entry_id, u.revision, u.body, u.subject_id, u.score, u.text_rank,
               coalesce(u.subject_id = current_subject, false),
               GREATEST(ref_time - u.revised_at, interval '0')
        FROM (
            SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank, t.revised_at, t.grp
            FROM top AS t
            UNION ALL
            SELECT f.entry_id, f.revision, f.body, f.subject_id, f.score, f.text_rank, f.revised_at, f.grp
            FROM filler AS f
        ) AS u
        ORDER BY u.grp, u.score DESC, u.revised_at DESC, u.entry_id;
    END IF;
END
$$;

CREATE FUNCTION agent_state.recall(
    agent uuid,
    query text,
    conversation uuid DEFAULT NULL,
    current_subject uuid DEFAULT NULL,
    max_results integer DEFAULT 10,
    as_of timestamptz DEFAULT NULL
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    q tsquery;
    known boolean := false;
    target_audience uuid [];
BEGIN
    PERFORM agent_state._bind(agent);
    IF max_results IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'max_results: must not be null';
    END IF;
    IF max_results < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must be at least 1';
    END IF;
    IF pg_catalog.length(query) > 10000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'query: longer than 10000 characters';
    END IF;
    IF current_subject IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.actors AS a
        WHERE a.runtime_agent_id = agent AND a.actor_id = current_subject
    ) THEN
        PERFORM agent_state._missing('actor', 'current_subject', current_subject,
            EXISTS (SELECT FROM agent_state.actors AS a WHERE a.actor_id = current_subject));
    END IF;
    -- The target audience: that of the conversation's latest message (latest
    -- observed_at, then latest recorded), among those recorded by as_of.
    -- (One statement: the conversation, and its latest message if any.)
    IF conversation IS NOT NULL THEN
        SELECT coalesce(m.known, false), m.audience INTO known, target_audience
        FROM agent_state.conversations AS c
        LEFT JOIN LATERAL (
            SELECT true AS known, x.audience
            FROM agent_state.messages AS x
            WHERE x.runtime_agent_id = agent AND x.conversation_id = conversation
              AND (as_of IS NULL OR x.created_at <= as_of)
            ORDER BY x.observed_at DESC, x.seq DESC
            LIMIT 1
        ) AS m ON true
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('conversation', 'conversation', conversation,
                EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
        END IF;
    END IF;
    -- websearch_to_tsquery accepts any text; a query without lexemes (null,
    -- blank, stop words only, punctuation) ranks by subject and recency alone.
    IF pg_catalog.btrim(query, E' \t\r\n') <> '' THEN
        q := pg_catalog.websearch_to_tsquery('english'::regconfig, query);
        IF pg_catalog.numnode(q) = 0 THEN
            q := NULL;
        END IF;
    END IF;
    RETURN QUERY
    SELECT r.entry, r.revision, r.body, r.subject, r.score, r.text_rank, r.subject_match, r.age
    FROM agent_state._rank_memory(agent, q, conversation, known, target_audience,
                                  current_subject, max_results, as_of, false) AS r;
END
$$;

COMMENT ON FUNCTION agent_state.recall(uuid, text, uuid, uuid, integer, timestamptz) IS
'recall(agent, query, conversation => null, current_subject => null, max_results => 10, '
'as_of => null) -> (entry, revision, body, subject, score, text_rank, subject_match, age): '
'full-text search (websearch_to_tsquery syntax, english) over the revisions eligible for the '
'conversation (its latest message''s audience; none: only operator notes and all-public '
'evidence), or as they were at as_of. score = text_rank * (1 + subject_boost if subject = '
'current_subject) * 0.5 ^ (age / recency_half_life); null or blank query: text_rank 1. Order: '
'score desc, newest, entry id. max_results: null 22004, < 1 22023, capped at 1000. query over '
'10,000 characters: 22023. Unknown conversation or current_subject: P0002 (23503 if another '
'perspective''s).';

CREATE FUNCTION agent_state.context_for(
    agent uuid,
    conversation uuid,
    message uuid DEFAULT NULL,
    max_results integer DEFAULT 20
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    msg_conversation uuid;
    msg_body text;
    msg_author uuid;
    msg_audience uuid [];
    known boolean := false;
    q tsquery;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(conversation, 'conversation');
    IF max_results IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'max_results: must not be null';
    END IF;
    IF max_results < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must be at least 1';
    END IF;
    IF message IS NOT NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.conversations AS c
            WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
        ) THEN
            PERFORM agent_state._missing('conversation', 'conversation', conversation,
                EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
        END IF;
        SELECT m.conversation_id, m.body, m.author_id, m.audience
        INTO msg_conversation, msg_body, msg_author, msg_audience
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'message', message,
                EXISTS (SELECT FROM agent_state.messages AS m WHERE m.message_id = message));
        END IF;
        IF msg_conversation <> conversation THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002',
                MESSAGE = pg_catalog.format('message: %s is not a message of conversation %s',
                                            message, conversation);
        END IF;
        known := true;
    ELSE
        -- One statement: the conversation, and its latest message if any.
        SELECT coalesce(m.known, false), m.body, m.author_id, m.audience
        INTO known, msg_body, msg_author, msg_audience
        FROM agent_state.conversations AS c
        LEFT JOIN LATERAL (
            SELECT true AS known, x.body, x.author_id, x.audience
            FROM agent_state.messages AS x
            WHERE x.runtime_agent_id = agent AND x.conversation_id = conversation
            ORDER BY x.observed_at DESC, x.seq DESC
            LIMIT 1
        ) AS m ON true
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('conversation', 'conversation', conversation,
                EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
        END IF;
    END IF;
    -- Relevance to a message: any of its words (the OR of its lexemes, from its
    -- first 10,000 characters), ranked like recall.
    IF known THEN
        SELECT pg_catalog.string_agg(
                   '''' || pg_catalog.replace(pg_catalog.replace(l.lexeme, '\', '\\'), '''', '''''')
                   || '''', ' | ')::tsquery
        INTO q
        FROM pg_catalog.unnest(pg_catalog.to_tsvector('english'::regconfig,
                                                      pg_catalog.left(msg_body, 10000))) AS l;
    END IF;
    RETURN QUERY
    SELECT r.entry, r.revision, r.body, r.subject, r.score, r.text_rank, r.subject_match, r.age
    FROM agent_state._rank_memory(agent, q, conversation, known, msg_audience,
                                  msg_author, max_results, NULL, true) AS r;
END
$$;

COMMENT ON FUNCTION agent_state.context_for(uuid, uuid, uuid, integer) IS
'context_for(agent, conversation, message => null, max_results => 20) -> same columns as recall: '
'memory for automatic prompt context. The message (default: the conversation''s latest) gives '
'the text, the current subject (its author) and the target audience (its audience). Eligible '
'entries matching any word of the message come first, ranked as recall ranks them; the newest '
'other eligible entries fill up to max_results (text_rank 0, score 0). A message without words, '
'or a conversation without messages, ranks every eligible entry by subject and recency. message '
'not in the conversation: P0002 (23503 if another perspective''s). max_results: null 22004, '
'< 1 22023, capped at 1000.';
