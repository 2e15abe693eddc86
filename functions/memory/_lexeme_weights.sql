-- Term rarity for match 'any' (recall, context_for and the lexical list of
-- hybrid recall): the query of the text (terms: the OR of its lexemes, as
-- _match_query makes it) and one weight per lexeme (_query_lexemes), larger for
-- rarer lexemes, normalised to sum to 1, from one parse of the text. A
-- revision's text_rank is then the sum of the weights of the query lexemes it
-- contains (_text_rank): 1 when it holds every lexeme, and a rare word (a
-- person's name, an id) counts for more than a common one.
--
--   idf(t)    = ln(1 + (n - df(t) + 0.5) / (df(t) + 0.5))    (BM25's, never negative)
--   weight(t) = idf(t) / sum of idf over the query's lexemes
--
-- n and df are ESTIMATED at query time, not maintained: n is the number of
-- revisions of a sample, the agent's newest sample_size live entries (through
-- memory_entries_recent_idx) that the target may see (_eligible_memory_live's
-- rule, _memory_admits), and df(t) how many of them contain t. Why estimated: a
-- per-agent count kept by trigger would add a row lock and a WAL record per
-- lexeme to every remember, amend and forget, and concurrent writers of one
-- agent would queue on the rows of its common words; the sample costs nothing
-- per write and a bounded amount per query, whatever the agent's size, and
-- only eligible revisions count, so what the target may not see changes no
-- weight. A word absent from the sample is as rare as a word can be.
--
-- With as_of, the sample is taken by the same rule from the state then: the
-- newest sample_size entries live at as_of, those the target could see then.
--
-- NULL terms, lexemes and weights when the text has no lexeme (a query ranked
-- by subject and recency alone). Equal weights when the sample is empty.
CREATE FUNCTION agent_state._lexeme_weights(
    agent uuid,
    query text,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    as_of timestamptz,
    OUT lexemes tsquery [],
    OUT weights double precision [],
    OUT terms tsquery
)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    sample_size constant integer := 1000;
    words tsquery [] := agent_state._query_lexemes(query);
BEGIN
    IF words IS NULL THEN
        RETURN;
    END IF;
    terms := pg_catalog.array_to_string(words, ' | ')::tsquery;
    -- One test per sampled entry (does it hold any query word?), then one per
    -- query word on those that do: most of the sample holds none.
    WITH sample AS MATERIALIZED (
        -- Now: the newest live entries the target may see (walking
        -- memory_entries_recent_idx; eligibility before the limit, so that an
        -- entry the target may not see never takes an eligible one's place).
        (SELECT e.tsv
         FROM agent_state.memory_entries AS e
         CROSS JOIN LATERAL agent_state._memory_admits(
             agent, e.entry_id, e.current_revision, e.visibility, e.evidence_observers,
             e.evidence_conversations, target_conversation, target_known, target_audience, NULL
         ) AS ok
         WHERE as_of IS NULL AND e.runtime_agent_id = agent AND e.live AND ok.admitted
         ORDER BY e.revised_at DESC, e.entry_id
         LIMIT sample_size)
        UNION ALL
        -- as_of: the same rule then (the entries live then, as _eligible_memory
        -- reconstructs them), so a fork of that moment weighs words alike.
        (SELECT pg_catalog.to_tsvector('english'::regconfig, r.body)
         FROM (
             SELECT DISTINCT ON (x.entry_id)
                    x.entry_id, x.revision, x.operation, x.body, x.created_at, x.visibility,
                    x.evidence_observers, x.evidence_conversations
             FROM agent_state.memory_revisions AS x
             WHERE as_of IS NOT NULL AND x.runtime_agent_id = agent AND x.created_at <= as_of
             ORDER BY x.entry_id, x.revision DESC
         ) AS r
         CROSS JOIN LATERAL agent_state._memory_admits(
             agent, r.entry_id, r.revision, r.visibility, r.evidence_observers,
             r.evidence_conversations, target_conversation, target_known, target_audience, as_of
         ) AS ok
         WHERE ok.admitted
           AND r.operation <> 'forget'
           AND NOT EXISTS (
               SELECT FROM agent_state.memory_redactions AS d
               WHERE d.runtime_agent_id = agent AND d.entry_id = r.entry_id
           )
         ORDER BY r.created_at DESC, r.entry_id
         LIMIT sample_size)
    ),
    hits AS MATERIALIZED (
        SELECT x.tsv FROM sample AS x WHERE x.tsv OPERATOR(pg_catalog.@@) terms
    ),
    idf AS (
        SELECT w.ord, w.q,
               pg_catalog.ln(1 + (c.n - d.df + 0.5) / (d.df + 0.5)) AS idf
        FROM pg_catalog.unnest(words) WITH ORDINALITY AS w (q, ord)
        CROSS JOIN (SELECT pg_catalog.count(*)::double precision AS n FROM sample) AS c
        CROSS JOIN LATERAL (
            SELECT pg_catalog.count(*)::double precision AS df
            FROM hits AS h
            WHERE h.tsv OPERATOR(pg_catalog.@@) w.q
        ) AS d
    )
    -- idf is never 0 (df <= n), so the total is positive.
    SELECT pg_catalog.array_agg(i.q ORDER BY i.ord), pg_catalog.array_agg(i.idf / t.total ORDER BY i.ord)
    INTO lexemes, weights
    FROM idf AS i
    CROSS JOIN (SELECT pg_catalog.sum(y.idf) AS total FROM idf AS y) AS t;
END
$$;
