-- The n best eligible matches of a query in the current state, by score desc,
-- revised_at desc, entry id: exactly the rows, scores and order that ranking
-- every match gives (_rank_memory's order), without ranking every match of a
-- common word in a big agent.
--
-- 1. Direct: rank every match (one statement, as before), for agents that wrote
--    fewer than dense_count entries in the dense_span before their newest entry
--    (every small agent). Ranking all matches of a common word is what costs in
--    a big agent, and even finding them all does (the bitmap of 100,000 matches
--    alone takes about 20 ms), so a big agent skips this.
-- 2. Windows, newest first (dense agents): the agent's matches revised in a range of
--    weeks (the index's third column, _memory_week), ranked and
--    merged into the best n so far. Every row not yet read is older than edge
--    (the start of the oldest week read), so its score is at most
--
--      bound = _memory_score(rank_bound, current_subject, edge, current_subject, ...)
--
--    and the search stops when bound <= the n-th best score: an unread row
--    cannot score higher, and on an equal score it is older, so it ranks after
--    (ties break newest first). Proof that bound >= every unread row's score:
--    _memory_score is text_rank * subject factor * decay, float8 products of
--    non-negative factors, and IEEE rounding is monotone, so the product of
--    larger-or-equal factors, computed in the same order, is larger or equal:
--    - text_rank <= rank_bound. tsv is to_tsvector(body): every position has
--      weight D (0.1). ts_rank with normalization 0 is calc_rank_or unless the
--      query's top operator is & or <-> with two or more distinct lexemes.
--      calc_rank_or adds, per distinct query lexeme found (no prefix items:
--      websearch_to_tsquery and match 'any' never make them, so one entry
--      each), (0.1 * sum(1 / j^2 for its j = 1..npos positions)) / 1.64493406685
--      < 0.1 (npos <= 256, the sum < pi^2 / 6 = 1.6449...), then divides by
--      the number of distinct query lexemes: < 0.1 for one lexeme, for 'all'
--      without & or <->, and for 'any' with any number of lexemes.
--      calc_rank_and combines terms as 1 - (1 - res) * (1 - w) with w < 1: at
--      most 1. So rank_bound = 0.1 when the query's text has neither & nor <
--      (then no & or <-> operator can be in it), else 1.
--      With lexemes and weights (match 'any', term rarity), text_rank is a sum of
--      a subset of the weights, which _lexeme_weights normalises to a total of 1:
--      rank_bound = 1.000001 (a margin for the rounding of the sums).
--    - subject factor: the same CASE with subject_id = current_subject, i.e.
--      1 + boost when there is a current subject (the largest the row can get),
--      1 when there is none (no row can match a null subject).
--    - decay: 0.5 ^ LEAST(GREATEST(epoch(ref_time - revised_at), 0) / half_life_s,
--      830) does not grow as revised_at falls (epoch of an interval, division
--      and LEAST/GREATEST are monotone), and revised_at < edge.
--    The bound of the first window uses the agent's newest live entry instead
--    of edge; weeks are exact (see _memory_week.sql), so "older than edge"
--    holds for every row of an older week.
--    Each next window reaches back to where the bound would fall to the n-th
--    score (or doubles, while fewer than n rows are known); the exact test
--    above decides when to stop, the width only how many statements it takes.
--    With fewer than n rows after 7 weeks (a rare word), or a window that would
--    span two years or more, one last statement reads every match older than
--    edge: nothing is left unread.
--
-- Both paths read memory only through the eligibility functions, with the same
-- text_rank and the same _memory_score, so windowing cannot change a score.
CREATE FUNCTION agent_state._top_memory_search(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    current_subject uuid,
    boost double precision,
    ref_time timestamptz,
    half_life_s double precision,
    n integer,
    lexemes tsquery [] DEFAULT NULL,
    weights double precision [] DEFAULT NULL
)
RETURNS TABLE (
    entry_id uuid, revision integer, body text, subject_id uuid, revised_at timestamptz,
    text_rank double precision, score double precision
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_variable
DECLARE
    -- Windows only for agents that wrote at least dense_count entries in the
    -- dense_span before their newest one (a cheap test, and one that keeps every
    -- small agent on the single direct statement; bench/memory.py measures both).
    dense_count constant integer := 500;
    dense_span constant interval := '30 days';
    recent bigint;
    rank_bound double precision;
    newest timestamptz;
    oldest_week bigint;
    hi bigint;
    lo bigint;
    span bigint := 1;
    edge timestamptz;
    bound double precision;
    reach double precision;
    windows bigint [];
    ids uuid [] := '{}'::uuid [];
    revs integer [] := '{}'::integer [];
    subjects uuid [] := '{}'::uuid [];
    times timestamptz [] := '{}'::timestamptz [];
    ranks double precision [] := '{}'::double precision [];
    scores double precision [] := '{}'::double precision [];
BEGIN
    -- Which path: the agent's newest live entry, and whether it wrote at least
    -- dense_count entries in the dense_span before it (memory_entries_recent_idx;
    -- reads at most dense_count index entries).
    SELECT x.newest,
           (SELECT pg_catalog.count(*)
            FROM (SELECT
                  FROM agent_state.memory_entries AS e
                  WHERE e.runtime_agent_id = agent AND e.live
                    AND e.revised_at >= x.newest - dense_span
                  ORDER BY e.revised_at DESC
                  LIMIT dense_count) AS d)
    INTO newest, recent
    FROM (SELECT e.revised_at AS newest
          FROM agent_state.memory_entries AS e
          WHERE e.runtime_agent_id = agent AND e.live
          ORDER BY e.revised_at DESC
          LIMIT 1) AS x;
    IF newest IS NULL THEN
        RETURN;
    END IF;
    IF recent < dense_count THEN
        -- 1. Direct: rank every match.
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.revised_at, t.text_rank, t.score
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at,
                                             current_subject, boost, ref_time,
                                             half_life_s) AS score
            FROM (
                -- Kept apart, so the text rank is computed once per row.
                SELECT s.entry_id, s.revision, s.body, s.subject_id, s.revised_at, s.text_rank
                FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                         target_known, target_audience, lexemes, weights) AS s
                OFFSET 0
            ) AS h
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id
        LIMIT n;
        RETURN;
    END IF;

    -- 2. Windows, newest first.
    rank_bound := CASE
        -- match 'any': a sum of weights whose total is 1 (up to rounding).
        WHEN lexemes IS NOT NULL THEN 1.000001::double precision
        WHEN pg_catalog.strpos(query::text, '&') > 0 OR pg_catalog.strpos(query::text, '<') > 0
            THEN 1::double precision
        ELSE 0.1::double precision
    END;
    SELECT agent_state._memory_week(e.revised_at) INTO oldest_week
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.live
    ORDER BY e.revised_at
    LIMIT 1;
    hi := agent_state._memory_week(newest);
    edge := newest;
    LOOP
        EXIT WHEN hi < oldest_week;
        lo := hi - span + 1;
        IF pg_catalog.cardinality(ids) >= n THEN
            bound := agent_state._memory_score(rank_bound, current_subject, edge, current_subject,
                                               boost, ref_time, half_life_s);
            EXIT WHEN bound <= scores[n];
            -- Reach back to the week where the bound falls to the n-th score.
            IF scores[n] > 0 THEN
                reach := pg_catalog.floor(
                    (pg_catalog.date_part('epoch', ref_time) - 946684800
                     - half_life_s * pg_catalog.log(
                         2::numeric,
                         (agent_state._memory_score(rank_bound, current_subject, ref_time,
                                                    current_subject, boost, ref_time, half_life_s)
                          / scores[n])::numeric
                     )::double precision)
                    / 604800
                );
                lo := LEAST(lo::double precision, GREATEST(reach, oldest_week::double precision))::bigint;
            END IF;
        END IF;
        lo := GREATEST(lo, oldest_week);
        IF (pg_catalog.cardinality(ids) < n AND span > 4) OR hi - lo >= 104 THEN
            -- Fewer than n matches in the newest weeks read (1 + 2 + 4): a rare
            -- word; or a window of two years or more. Every match older than
            -- edge in one last statement (windows NULL), through the agent and
            -- lexeme keys alone: cheaper than the union of that many week keys,
            -- each of which holds every agent's entries of its week.
            windows := NULL;
        ELSE
            -- A variable (a parameter of the cached plan), so that the week
            -- condition is an index condition.
            windows := ARRAY(SELECT g.week FROM pg_catalog.generate_series(lo, hi) AS g (week));
        END IF;
        SELECT coalesce(pg_catalog.array_agg(b.entry_id ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.revision ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.subject_id ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.revised_at ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.text_rank ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.score ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}')
        INTO ids, revs, subjects, times, ranks, scores
        FROM (
            SELECT u.entry_id, u.revision, u.subject_id, u.revised_at, u.text_rank, u.score
            FROM (
                SELECT k.entry_id, k.revision, k.subject_id, k.revised_at, k.text_rank, k.score
                FROM ROWS FROM (
                    pg_catalog.unnest(ids), pg_catalog.unnest(revs), pg_catalog.unnest(subjects),
                    pg_catalog.unnest(times), pg_catalog.unnest(ranks), pg_catalog.unnest(scores)
                ) AS k (entry_id, revision, subject_id, revised_at, text_rank, score)
                UNION ALL
                SELECT w.entry_id, w.revision, w.subject_id, w.revised_at, w.text_rank,
                       agent_state._memory_score(w.text_rank, w.subject_id, w.revised_at,
                                                 current_subject, boost, ref_time, half_life_s)
                FROM (
                    -- The matches of these weeks: the week is the third key of
                    -- memory_entries_search_idx, beside the agent and the query
                    -- (a week key holds every agent's entries of that week),
                    -- written out as the index writes it (see sql/memory.sql).
                    SELECT s.entry_id, s.revision, s.subject_id, s.revised_at, s.text_rank
                    FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                             target_known, target_audience, lexemes, weights) AS s
                    WHERE windows IS NOT NULL
                      AND ARRAY[pg_catalog.floor(
                              EXTRACT(EPOCH FROM s.revised_at - '2000-01-01 00:00:00+00'::timestamptz)
                              / 604800
                          )::bigint] OPERATOR(pg_catalog.&&) windows
                    UNION ALL
                    -- Or (windows NULL) every match older than edge.
                    SELECT s.entry_id, s.revision, s.subject_id, s.revised_at, s.text_rank
                    FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                             target_known, target_audience, lexemes, weights) AS s
                    WHERE windows IS NULL AND s.revised_at < edge
                    -- Kept apart, so the text rank is computed once per row.
                    OFFSET 0
                ) AS w
            ) AS u
            ORDER BY u.score DESC, u.revised_at DESC, u.entry_id
            LIMIT n
        ) AS b;
        EXIT WHEN windows IS NULL;
        edge := pg_catalog.to_timestamp(946684800::double precision + 604800::double precision * lo);
        hi := lo - 1;
        span := span * 2;
    END LOOP;
    RETURN QUERY
    SELECT k.entry_id, k.revision, e.body, k.subject_id, k.revised_at, k.text_rank, k.score
    FROM ROWS FROM (
        pg_catalog.unnest(ids), pg_catalog.unnest(revs), pg_catalog.unnest(subjects),
        pg_catalog.unnest(times), pg_catalog.unnest(ranks), pg_catalog.unnest(scores)
    ) WITH ORDINALITY AS k (entry_id, revision, subject_id, revised_at, text_rank, score, ord)
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = agent AND e.entry_id = k.entry_id
    ORDER BY k.ord;
END
$$;
