-- Ranked eligible memory for one target, what recall and context_for return
-- (before the read checks): the query text made a full-text query by match
-- ('all' or 'any'), the query embedding checked, the eligible revisions ranked.
-- With fill, the rows relevant to the query come first and the newest other eligible entries fill up to max_results
-- (text_rank 0, score 0).
--
-- Generic plans, always: the expanded eligibility query costs more to plan than
-- to run, and its branches are chosen at run time (one-time filters on the
-- parameters); the live branch with a query keeps its bitmap scan of
-- memory_entries_search_idx on (ARRAY[agent], tsv) with the agent and the query
-- as parameters.
CREATE FUNCTION agent_state._rank_memory(
    agent uuid,
    query_text text,
    match text,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    current_subject uuid,
    max_results integer,
    as_of timestamptz,
    fill boolean,
    query_embedding real [],
    embedding_model text
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_variable
DECLARE
    query tsquery;
    lexemes tsquery [];
    weights double precision [];
    settings jsonb;
    boost double precision := 1.0;
    half_life interval := '30 days'::interval;
    half_life_s double precision;
    ref_time timestamptz := coalesce(as_of, pg_catalog.now());
    n integer := LEAST(max_results, 1000);
    vschema name;
    hnsw name;
    k integer;
    vec_ids uuid [];
    vec_revs integer [];
    el_ids uuid [];
    el_revs integer [];
    el_times timestamptz [];
    old_iterative text;
    old_ef text;
    found_ids uuid [] := '{}';
    -- The fusion's constants, chosen on bench/quality.py (bench/results/quality.md):
    -- k, and the weights of the lexical and the vector list. The lexical list
    -- weighs 2 when one of its candidates holds every word of the query (its
    -- evidence is then strong: "Where does Duarte live?" and "Duarte lives in
    -- Marrakesh"), 1 otherwise (the embedding orders what shares only a name).
    fk constant double precision := 60;
    fwl constant double precision := 1;
    fwl_whole constant double precision := 2;  -- when a candidate holds every query word
    fwv constant double precision := 1;
BEGIN
    -- The full-text query of the text: for match 'any' with the weights of its
    -- words, rare words counting more (_lexeme_weights, one parse for both);
    -- else _match_query's (which also refuses a bad match).
    IF match = 'any' THEN
        SELECT w.terms, w.lexemes, w.weights INTO query, lexemes, weights
        FROM agent_state._lexeme_weights(agent, query_text, target_conversation, target_known,
                                         target_audience, as_of) AS w;
    ELSE
        query := agent_state._match_query(query_text, match);
    END IF;
    PERFORM agent_state._need_query_embedding(agent, query_embedding, embedding_model);
    -- The profile current at the moment ranked for; profile_revisions holds only
    -- valid settings (_settings_problem), so they are read, not checked.
    SELECT p.settings INTO settings FROM agent_state._profile_at(agent, as_of) AS p;
    IF settings ? 'subject_boost' THEN
        boost := (settings ->> 'subject_boost')::double precision;
    END IF;
    IF settings ? 'recency_half_life' THEN
        half_life := (settings ->> 'recency_half_life')::interval;
    END IF;
    half_life_s := pg_catalog.date_part('epoch', half_life);

    -- The semantic axis: the lexical matches and the eligible revisions nearest to
    -- the query embedding (at least 50, or 5 x max_results), fused by reciprocal
    -- rank, 1/(60 + lexical rank) + 1/(60 + vector rank), which then takes the
    -- subject boost and recency decay in place of text_rank. The nearest are taken
    -- among the eligible revisions only (an exact scan of the agent's eligible,
    -- embedded revisions), so an ineligible one never takes an eligible one's
    -- place.
    --
    -- Only the nearest-neighbour statement is dynamic SQL (pgvector's type and
    -- operator are named by the schema it is installed in, which this function
    -- learns at run time), and it is small: a dynamic statement is planned at
    -- every call, and planning the eligibility functions inlined into it cost
    -- about 3 ms a call. The eligible set and the fusion are static statements
    -- whose plans are cached.
    --
    -- A big agent (at least agent_state.hnsw_min_embeddings embeddings of the
    -- model) with the model's HNSW index (index_embeddings) takes them from the
    -- index instead, in one query with the agent filter and eligibility, with
    -- pgvector's iterative index scan: the scan goes on until enough ELIGIBLE
    -- neighbours have been found (or hnsw.max_scan_tuples), so ineligible
    -- neighbours do not take their places. hnsw.ef_search is
    -- agent_state._hnsw_ef_search() (default 1000: the measurements are there).
    -- Relaxed order: the candidates are ordered by their distance afterwards. If the index yields fewer than were
    -- asked for (its scan limit reached), the exact scan answers instead. The
    -- ORDER BY repeats the index expression exactly (embedding::vector(dimensions)).
    IF query_embedding IS NOT NULL THEN
        vschema := agent_state._vector_schema('query_embedding');
        k := GREATEST(50, 5 * n);
        IF as_of IS NULL THEN
            hnsw := agent_state._hnsw_index(agent, embedding_model,
                                            pg_catalog.cardinality(query_embedding));
        END IF;
        IF hnsw IS NOT NULL THEN
            -- Unknown until pgvector's library is loaded: then their defaults.
            old_iterative := coalesce(pg_catalog.current_setting('hnsw.iterative_scan', true), 'off');
            old_ef := coalesce(pg_catalog.current_setting('hnsw.ef_search', true), '40');
            PERFORM pg_catalog.set_config('hnsw.iterative_scan', 'relaxed_order', true);
            PERFORM pg_catalog.set_config('hnsw.ef_search', agent_state._hnsw_ef_search()::text, true);
            -- Planned for the parameters' values (the partial index's predicate).
            PERFORM pg_catalog.set_config('plan_cache_mode', 'force_custom_plan', true);
            EXECUTE pg_catalog.format($ann$
                SELECT pg_catalog.array_agg(a.entry_id ORDER BY a.distance, a.revised_at DESC, a.entry_id),
                       pg_catalog.array_agg(a.revision ORDER BY a.distance, a.revised_at DESC, a.entry_id)
                FROM (
                    SELECT e.entry_id, e.current_revision AS revision, e.revised_at,
                           x.embedding::%1$I.vector(%2$s) OPERATOR(%1$I.<=>) $2::%1$I.vector(%2$s)
                               AS distance
                    FROM agent_state.memory_embeddings AS x
                    JOIN agent_state.memory_entries AS e
                      ON e.runtime_agent_id = x.runtime_agent_id AND e.entry_id = x.entry_id
                     AND e.current_revision = x.revision
                    CROSS JOIN LATERAL agent_state._memory_admits(
                        $1, e.entry_id, e.current_revision, e.visibility, e.evidence_observers,
                        e.evidence_conversations, $3, $4, $5, NULL
                    ) AS ok
                    WHERE x.runtime_agent_id = $1 AND x.model = %3$L AND x.dimensions = %2$s
                      AND e.live AND ok.admitted
                    ORDER BY x.embedding::%1$I.vector(%2$s) OPERATOR(%1$I.<=>) $2::%1$I.vector(%2$s)
                    LIMIT $6
                ) AS a
                $ann$, vschema, pg_catalog.cardinality(query_embedding), embedding_model)
            INTO vec_ids, vec_revs
            USING agent, query_embedding, target_conversation, target_known, target_audience, k;
            PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true);
            -- The caller's settings back (they are the transaction's).
            PERFORM pg_catalog.set_config('hnsw.iterative_scan', old_iterative, true);
            PERFORM pg_catalog.set_config('hnsw.ef_search', old_ef, true);
            IF coalesce(pg_catalog.cardinality(vec_ids), 0) < k THEN
                vec_ids := NULL;  -- the index's scan limit was reached: exact
            END IF;
        END IF;
        IF vec_ids IS NULL THEN
            -- The eligible revisions (a static statement), then the nearest of
            -- them, one primary-key probe of the embedding per revision (a
            -- subplan: a join here would be planned from statistics, and before
            -- the first ANALYZE of freshly loaded tables it became a nested loop
            -- over the whole eligible set for every embedding).
            SELECT coalesce(pg_catalog.array_agg(h.entry_id), '{}'),
                   coalesce(pg_catalog.array_agg(h.revision), '{}'),
                   coalesce(pg_catalog.array_agg(h.revised_at), '{}')
            INTO el_ids, el_revs, el_times
            FROM agent_state._eligible_memory(agent, NULL, target_conversation, target_known,
                                              target_audience, as_of) AS h;
            EXECUTE pg_catalog.format($exact$
                SELECT coalesce(pg_catalog.array_agg(v.id ORDER BY v.distance, v.t DESC, v.id), '{}'),
                       coalesce(pg_catalog.array_agg(v.rev ORDER BY v.distance, v.t DESC, v.id), '{}')
                FROM (
                    SELECT e.id, e.rev, e.t,
                           e.embedding::%1$I.vector OPERATOR(%1$I.<=>) $5::%1$I.vector AS distance
                    FROM (
                        SELECT u.id, u.rev, u.t, (
                            SELECT x.embedding FROM agent_state.memory_embeddings AS x
                            WHERE x.runtime_agent_id = $1 AND x.entry_id = u.id
                              AND x.revision = u.rev AND x.model = $6
                        ) AS embedding
                        FROM ROWS FROM (pg_catalog.unnest($2::uuid []), pg_catalog.unnest($3::integer []),
                                        pg_catalog.unnest($4::timestamptz [])) AS u (id, rev, t)
                        OFFSET 0  -- kept apart, so that the probe runs once per row
                    ) AS e
                    WHERE e.embedding IS NOT NULL
                    ORDER BY 4, e.t DESC, e.id
                    LIMIT $7
                ) AS v
                $exact$, vschema)
            INTO vec_ids, vec_revs
            USING agent, el_ids, el_revs, el_times, query_embedding, embedding_model, k;
        END IF;
        -- The fusion (static): the lexical ranking of the eligible matches and the
        -- vector ranking, their details read from the revisions (an eligible
        -- current entry equals its current revision; the past is a revision).
        FOR entry, revision, body, subject, score, text_rank, subject_match, age IN
            WITH lex AS (
                SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                       -- 1 + the matches whose text_rank is over 1.2 times this one's
                       -- (ln 1.2 = 0.1823215567939546).
                       1 + pg_catalog.count(*) OVER (
                           ORDER BY pg_catalog.ln(GREATEST(h.text_rank, 1e-300::double precision)) DESC
                           RANGE BETWEEN UNBOUNDED PRECEDING AND 0.1823215567939546::double precision PRECEDING
                       ) AS lr,
                       -- Some candidate holds every word of the query ('all': every
                       -- candidate does; 'any': text_rank 1, the whole weight).
                       lexemes IS NULL
                       OR pg_catalog.max(h.text_rank) OVER () >= 0.999999::double precision AS whole
                FROM agent_state._eligible_memory(agent, query, target_conversation, target_known,
                                                  target_audience, as_of, lexemes, weights) AS h
                WHERE query IS NOT NULL
            ),
            vec AS (
                SELECT v.entry_id, v.revision, r.body, r.subject_id, r.created_at AS revised_at,
                       v.vr
                FROM ROWS FROM (pg_catalog.unnest(vec_ids), pg_catalog.unnest(vec_revs))
                     WITH ORDINALITY AS v (entry_id, revision, vr)
                JOIN agent_state.memory_revisions AS r
                  ON r.runtime_agent_id = agent AND r.entry_id = v.entry_id AND r.revision = v.revision
            ),
            fused AS (
                SELECT coalesce(l.entry_id, v.entry_id) AS entry_id,
                       coalesce(l.revision, v.revision) AS revision,
                       coalesce(l.body, v.body) AS body,
                       coalesce(l.subject_id, v.subject_id) AS subject_id,
                       coalesce(l.revised_at, v.revised_at) AS revised_at,
                       coalesce(l.text_rank, 0::double precision) AS text_rank,
                       coalesce(CASE WHEN l.whole THEN fwl_whole ELSE fwl END
                                / (fk + l.lr::double precision), 0)
                       + coalesce(fwv / (fk + v.vr::double precision), 0) AS rrf
                FROM lex AS l
                FULL JOIN vec AS v ON v.entry_id = l.entry_id
            )
            SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
                   coalesce(t.subject_id = current_subject, false),
                   GREATEST(ref_time - t.revised_at, interval '0')
            FROM (
                SELECT f.*, agent_state._memory_score(f.rrf, f.subject_id, f.revised_at,
                                                      current_subject, boost, ref_time,
                                                      half_life_s) AS score
                FROM fused AS f
            ) AS t
            ORDER BY t.score DESC, t.revised_at DESC, t.entry_id
            LIMIT n
        LOOP
            found_ids := found_ids || entry;
            RETURN NEXT;
        END LOOP;
        IF fill AND pg_catalog.cardinality(found_ids) < n THEN
            -- context_for: the newest other eligible entries fill up.
            RETURN QUERY
            SELECT f.entry_id, f.revision, f.body, f.subject_id, 0::double precision,
                   0::double precision, coalesce(f.subject_id = current_subject, false),
                   GREATEST(ref_time - f.revised_at, interval '0')
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS f
            WHERE f.entry_id <> ALL (found_ids)
            ORDER BY f.revised_at DESC, f.entry_id
            LIMIT n - pg_catalog.cardinality(found_ids);
        END IF;
        RETURN;
    END IF;

    -- One statement per case (the newest entries, every eligible revision, the
    -- best matches), so that each cached generic plan holds the scans its case
    -- needs. The age interval is computed only for the rows returned.
    IF as_of IS NULL AND query IS NULL AND (current_subject IS NULL OR boost = 0) THEN
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
    ELSIF as_of IS NOT NULL OR query IS NULL THEN
        -- Every eligible revision ranked: the past (recall only, never
        -- filled), or every live entry. _eligible_memory reads only the source
        -- of the case (its branches are chosen by one-time filters).
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score
            FROM agent_state._eligible_memory(agent, query, target_conversation, target_known,
                                              target_audience, as_of, lexemes, weights) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSIF NOT fill THEN
        -- The best matches, without ranking every match (_top_memory_search).
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM agent_state._top_memory_search(agent, query, target_conversation, target_known,
                                            target_audience, current_subject, boost, ref_time,
                                            half_life_s, n, lexemes, weights) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSE
        -- context_for: the matches first, then the newest other eligible entries.
        RETURN QUERY
        WITH top AS MATERIALIZED (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   h.score, 1 AS grp
            FROM agent_state._top_memory_search(agent, query, target_conversation, target_known,
                                                target_audience, current_subject, boost, ref_time,
                                                half_life_s, n, lexemes, weights) AS h
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
