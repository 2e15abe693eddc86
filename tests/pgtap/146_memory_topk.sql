-- The exact top-k search of big agents (_top_memory_search, windows newest first)
-- returns exactly what ranking every match returns. The data is crafted so that a
-- wrong bound or a window-boundary slip changes the top 10: new rows with one
-- occurrence of a word (low rank) against older rows with several (high rank)
-- a few weeks back, exact ties (same body, same revised_at), rows whose
-- subject is boosted, rows amended from an old week into this one, forgotten
-- rows, and entries on both sides of week boundaries. The agent is dense (at
-- least 500 entries in the 30 days before its newest), so recall takes the
-- windowed path; the expected rows are computed here from the formula over every
-- match. Rows are loaded as a restore loads them (so they keep their times).
BEGIN;
SELECT plan(17);

CREATE ROLE t146_op IN ROLE agent_state_operator;
\ir _setup.sql

SET ROLE t146_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t146-a')),
    ('b', agent_state.create_agent('t146-b', NULL, '{"subject_boost": 3, "recency_half_life": "10 days"}'));
INSERT INTO pg_temp.ids VALUES
    ('alice_a', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'alice')),
    ('alice_b', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'alice'));
RESET ROLE;

-- Agent c's entries share a's weeks (a week's index key holds every agent's
-- entries of that week); its 'tea' rows would outrank all of a's if they
-- leaked in. Its uuid even starts like a's.
INSERT INTO pg_temp.ids
SELECT 'c', (pg_catalog.left(pg_temp.id('a')::text, 8) || pg_catalog.substr(pg_catalog.gen_random_uuid()::text, 9))::uuid;
INSERT INTO agent_state.agents (runtime_agent_id, handle) VALUES (pg_temp.id('c'), 't146-c');

-- Bodies by age (hours before now), for agents a and b alike.
CREATE TEMP TABLE plan_rows AS
SELECT g.i,
       CASE
           -- new, one 'tea' each: rank 0.0608
           WHEN g.i <= 700 THEN 'filler words ' || g.i || ' tea'
           -- 8 to 70 days old, 'tea' four times: rank 0.0827, some with 'coffee' too
           WHEN g.i <= 760 THEN 'tea tea tea tea ' || CASE WHEN g.i % 3 = 0 THEN 'coffee ' ELSE '' END || g.i
           -- exact ties: the same body at the same moment
           WHEN g.i <= 770 THEN 'tea house tea tea'
           -- 'milk' and 'coffee' only (matched by 'any')
           WHEN g.i <= 800 THEN 'milk coffee milk ' || g.i
           ELSE 'other words ' || g.i
       END AS body,
       CASE
           WHEN g.i <= 700 THEN g.i * interval '1 hour' / 2            -- the last 15 days
           WHEN g.i <= 760 THEN (g.i - 700) * interval '25 hours' + interval '7 days'
           WHEN g.i <= 770 THEN interval '20 days 7 hours'
           WHEN g.i <= 800 THEN (g.i - 770) * interval '2 days'
           ELSE (g.i - 800) * interval '6 hours'
       END AS age,
       g.i % 4 = 0 AS about_alice
FROM generate_series(1, 1000) AS g (i)
UNION ALL
-- A rare word: two matches this week, the rest 60 to 700 days old (fewer than
-- n in the newest weeks, so the search reads the rest in one statement).
SELECT 1000 + g.i, 'kiwi ' || CASE WHEN g.i % 2 = 0 THEN 'kiwi ' ELSE '' END || g.i,
       CASE WHEN g.i <= 2 THEN g.i * interval '1 hour' ELSE g.i * interval '23 days' END,
       g.i % 3 = 0
FROM generate_series(1, 30) AS g (i);

SET LOCAL row_security = off;
SELECT pg_catalog.set_config('search_path', '', true);
WITH s AS (
    SELECT x.k, pg_catalog.gen_random_uuid() AS entry_id, p.body,
           CASE WHEN p.about_alice THEN pg_temp.id('alice_' || x.k) END AS subject_id,
           pg_catalog.now() - p.age AS t
    FROM pg_temp.plan_rows AS p, (VALUES ('a'), ('b')) AS x (k)
),
rev AS (
    INSERT INTO agent_state.memory_revisions
        (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
         source_type, evidence_conversations, created_at, created_by)
    SELECT pg_temp.id(s.k), s.entry_id, 1, 'create', s.body, s.subject_id, 'perspective',
           'operator', '{}', s.t, 't146_op'
    FROM s
    RETURNING runtime_agent_id, entry_id
)
INSERT INTO agent_state.memory_entries
    (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
     source_type, evidence_conversations, revised_at, created_by)
SELECT pg_temp.id(s.k), s.entry_id, 1, true, s.body, s.subject_id, 'perspective', 'operator',
       '{}', s.t, 't146_op'
FROM s JOIN rev ON rev.entry_id = s.entry_id;
WITH s AS (
    SELECT pg_catalog.gen_random_uuid() AS entry_id, 'tea tea tea tea tea tea ' || g.i AS body,
           pg_catalog.now() - g.i * interval '1 hour' AS t
    FROM pg_catalog.generate_series(1, 200) AS g (i)
),
rev AS (
    INSERT INTO agent_state.memory_revisions
        (runtime_agent_id, entry_id, revision, operation, body, visibility, source_type,
         evidence_conversations, created_at, created_by)
    SELECT pg_temp.id('c'), s.entry_id, 1, 'create', s.body, 'perspective', 'operator', '{}', s.t, 't146_op'
    FROM s
    RETURNING entry_id
)
INSERT INTO agent_state.memory_entries
    (runtime_agent_id, entry_id, current_revision, live, body, visibility, source_type,
     evidence_conversations, revised_at, created_by)
SELECT pg_temp.id('c'), s.entry_id, 1, true, s.body, 'perspective', 'operator', '{}', s.t, 't146_op'
FROM s JOIN rev ON rev.entry_id = s.entry_id;
-- Stamped as a bulk load is (their hash chains, SPEC section 14: reads refuse a
-- record without a genuine stamp).
SET LOCAL session_replication_role = replica;
SELECT agent_state._chain_adopt() \g /dev/null
SET LOCAL session_replication_role = origin;
SET LOCAL row_security = on;
SELECT pg_catalog.set_config('search_path', '"$user", public', true);

-- Every match ranked with the product's formula, the top n. match 'any' ranks
-- by term rarity: the sum of the weights (_lexeme_weights) of the query lexemes
-- a body contains.
CREATE FUNCTION pg_temp.brute(agent uuid, q tsquery, subj uuid, boost float8, half_life_s float8,
                              n integer, lexemes tsquery [] DEFAULT NULL,
                              weights float8 [] DEFAULT NULL)
RETURNS TABLE (entry uuid, score float8) LANGUAGE sql STABLE AS $$
    SELECT t.entry_id, t.score
    FROM (
        SELECT e.entry_id, e.revised_at,
               agent_state._memory_score(
                   CASE WHEN lexemes IS NULL THEN ts_rank(to_tsvector('english', e.body), q)::float8
                       ELSE (SELECT coalesce(sum(u.w), 0)
                             FROM unnest(lexemes, weights) AS u (l, w)
                             WHERE to_tsvector('english', e.body) @@ u.l)
                   END,
                   e.subject_id, e.revised_at, subj, boost, now(), half_life_s) AS score
        FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = agent AND e.live AND to_tsvector('english', e.body) @@ q
    ) AS t
    ORDER BY t.score DESC, t.revised_at DESC, t.entry_id
    LIMIT n
$$;
CREATE FUNCTION pg_temp.same(agent uuid, query text, match text, subj uuid, boost float8,
                             half_life_s float8, n integer)
RETURNS boolean LANGUAGE sql AS $$
    SELECT ARRAY(SELECT ROW(r.entry, r.score)::text
                 FROM agent_state.recall(agent, query, NULL, subj, n, NULL, match) AS r)
           = ARRAY(SELECT ROW(b.entry, b.score)::text
                   FROM agent_state._lexeme_weights(agent, query, NULL, false, NULL, NULL) AS w,
                        pg_temp.brute(agent, agent_state._match_query(query, match), subj, boost,
                                      half_life_s, n,
                                      CASE WHEN match = 'any' THEN w.lexemes END,
                                      CASE WHEN match = 'any' THEN w.weights END) AS b)
$$;

SELECT ok((SELECT count(*) >= 500 FROM agent_state.memory_entries AS e
           WHERE e.runtime_agent_id = pg_temp.id('a') AND e.live
             AND e.revised_at >= (SELECT max(x.revised_at) - interval '30 days'
                                  FROM agent_state.memory_entries AS x
                                  WHERE x.runtime_agent_id = pg_temp.id('a'))),
          'the agent is dense: recall reads it in windows');
SELECT ok((SELECT count(*) FILTER (WHERE r.text_rank > 0.08) BETWEEN 1 AND 9
                  AND count(*) FILTER (WHERE r.age < interval '1 day') BETWEEN 1 AND 9
           FROM agent_state.recall(pg_temp.id('a'), 'tea') AS r),
          'the top 10 mixes older rows with four occurrences and new rows with one');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea', 'all', NULL, 1, 2592000, 10),
          'one word: the same rows, scores and order as ranking every match');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea', 'all', pg_temp.id('alice_a'), 1, 2592000, 10),
          'with a boosted subject');
SELECT ok(pg_temp.same(pg_temp.id('b'), 'tea', 'all', pg_temp.id('alice_b'), 3, 864000, 10),
          'boost 3 and a 10-day half-life');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea coffee milk', 'any', NULL, 1, 2592000, 10),
          'match any with three words');
SELECT ok(pg_temp.same(pg_temp.id('b'), 'milk or coffee tea', 'any', pg_temp.id('alice_b'), 3, 864000, 10),
          'match any with a subject');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea coffee', 'all', NULL, 1, 2592000, 10),
          'two words, all of them (the rank bound of an AND)');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea', 'all', pg_temp.id('alice_a'), 1, 2592000, 60),
          'max_results 60: deeper than the first windows');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'house', 'all', NULL, 1, 2592000, 7),
          'exact ties break by entry id');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'kiwi', 'all', NULL, 1, 2592000, 10),
          'a rare word: two new matches, the rest months old');
SELECT ok(pg_temp.same(pg_temp.id('b'), 'kiwi', 'all', pg_temp.id('alice_b'), 3, 864000, 25),
          'a rare word with a subject, deeper than its matches of the newest weeks');

SELECT is((SELECT count(*) FROM agent_state.recall(pg_temp.id('a'), 'tea', max_results => 100) AS r
           JOIN agent_state.memory_entries AS e ON e.entry_id = r.entry
           WHERE e.runtime_agent_id <> pg_temp.id('a')),
          0::bigint, 'a week shared with another agent never brings its rows');
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea', 'all', NULL, 1, 2592000, 100),
          '... and the top 100 is still what ranking every match of the agent gives');

-- Old high-rank rows amended into this week, others forgotten.
CREATE TEMP TABLE changes AS
SELECT e.entry_id, e.body, CASE WHEN right(e.body, 1) IN ('1', '2') THEN 'amend' ELSE 'forget' END AS op
FROM agent_state.memory_entries AS e
WHERE e.runtime_agent_id = pg_temp.id('a') AND e.body LIKE 'tea tea tea tea %'
  AND right(e.body, 1) IN ('1', '2', '5', '7', '8');
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t146_op;
SELECT agent_state.amend(pg_temp.id('a'), c.entry_id, 'tea once more ' || c.body, 1)
FROM pg_temp.changes AS c WHERE c.op = 'amend';
SELECT agent_state.forget(pg_temp.id('a'), c.entry_id)
FROM pg_temp.changes AS c WHERE c.op = 'forget';
RESET ROLE;
SELECT ok(pg_temp.same(pg_temp.id('a'), 'tea', 'all', NULL, 1, 2592000, 30),
          'after amendments across weeks and forgets');
SELECT is((SELECT count(*) FROM agent_state.recall(pg_temp.id('a'), 'tea', max_results => 1000) AS r
           JOIN agent_state.memory_entries AS e ON e.entry_id = r.entry AND NOT e.live),
          0::bigint, 'forgotten entries never come back');
-- The past is read from the revisions (not windowed); it still agrees with them.
SELECT ok(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'tea', NULL, NULL, 10,
                                                       now() - interval '3 days') AS r)
          = ARRAY(SELECT t.entry_id FROM (
                SELECT DISTINCT ON (x.entry_id) x.entry_id, x.created_at,
                       agent_state._memory_score(ts_rank(to_tsvector('english', x.body),
                                                         websearch_to_tsquery('english', 'tea'))::float8,
                                                 x.subject_id, x.created_at, NULL, 1,
                                                 now() - interval '3 days', 2592000) AS score,
                       x.operation, x.body
                FROM agent_state.memory_revisions AS x
                WHERE x.runtime_agent_id = pg_temp.id('a') AND x.created_at <= now() - interval '3 days'
                ORDER BY x.entry_id, x.revision DESC) AS t
                WHERE t.operation <> 'forget'
                  AND to_tsvector('english', t.body) @@ websearch_to_tsquery('english', 'tea')
                ORDER BY t.score DESC, t.created_at DESC, t.entry_id LIMIT 10),
          'as_of in the past');

SELECT * FROM finish();
ROLLBACK;
