-- Ranking: score = text_rank * (1 + subject_boost if subject = current_subject)
--                  * 0.5 ^ (age / recency_half_life),
-- with the expected scores computed here from the formula. Also the tie-break,
-- context_for's order, and hostile queries and arguments.
BEGIN;
SELECT plan(40);

CREATE ROLE t140_op IN ROLE agent_state_operator;
\ir _setup.sql

SET ROLE t140_op;
-- A short half-life makes the few milliseconds between writes count.
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t140-a', NULL,
        '{"subject_boost": 2.5, "recency_half_life": "20 milliseconds"}')),
    ('d', agent_state.create_agent('t140-defaults'));
INSERT INTO pg_temp.ids VALUES
    ('alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'alice')),
    ('bob', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'bob')),
    ('dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'DM', 'direct'));
INSERT INTO pg_temp.ids
SELECT 'tea_alice', r.entry FROM agent_state.note(pg_temp.id('a'), 'Alice drinks green tea', pg_temp.id('alice')) AS r;
SELECT pg_sleep(0.03);
INSERT INTO pg_temp.ids
SELECT 'tea_bob', r.entry FROM agent_state.note(pg_temp.id('a'), 'Bob drinks green tea', pg_temp.id('bob')) AS r;
SELECT pg_sleep(0.03);
INSERT INTO pg_temp.ids
SELECT 'tea_tea', r.entry FROM agent_state.note(pg_temp.id('a'), 'tea, tea and more tea: a tea house') AS r;
SELECT pg_sleep(0.03);
INSERT INTO pg_temp.ids
SELECT 'coffee', r.entry FROM agent_state.note(pg_temp.id('a'), 'Bob likes coffee', pg_temp.id('bob')) AS r;
INSERT INTO pg_temp.moments VALUES ('end', clock_timestamp() + interval '5 milliseconds');
RESET ROLE;

-- The formula, written out independently of the implementation.
CREATE FUNCTION pg_temp.expected(query text, subj uuid, as_of timestamptz, boost float8, half_life_s float8)
RETURNS TABLE (entry uuid, score float8, text_rank float8, subject_match boolean, age interval)
LANGUAGE sql STABLE AS $$
    SELECT e.entry_id,
           x.tr * CASE WHEN e.subject_id = subj THEN 1 + boost ELSE 1 END
              * power(0.5::float8, extract(epoch FROM x.age)::float8 / half_life_s),
           x.tr, coalesce(e.subject_id = subj, false), x.age
    FROM agent_state.memory_entries AS e
    CROSS JOIN LATERAL (
        SELECT CASE WHEN query IS NULL THEN 1::float8
                    ELSE ts_rank(to_tsvector('english', e.body), websearch_to_tsquery('english', query))::float8
               END AS tr,
               greatest(coalesce(as_of, now()) - e.revised_at, interval '0') AS age
    ) AS x
    WHERE e.runtime_agent_id = pg_temp.id('a') AND e.live
      AND (query IS NULL OR to_tsvector('english', e.body) @@ websearch_to_tsquery('english', query))
$$;
CREATE FUNCTION pg_temp.close(a float8, b float8) RETURNS boolean LANGUAGE sql IMMUTABLE
AS $$ SELECT abs(a - b) <= 1e-9 * greatest(abs(a), abs(b)) $$;
CREATE FUNCTION pg_temp.at_end() RETURNS timestamptz LANGUAGE sql STABLE
AS $$ SELECT t FROM pg_temp.moments WHERE k = 'end' $$;

-- ---------------------------------------------------------------- the formula
CREATE TEMP TABLE got AS
SELECT r.*, row_number() OVER () AS pos
FROM agent_state.recall(pg_temp.id('a'), 'tea', NULL, pg_temp.id('alice'), 10, pg_temp.at_end()) AS r;
CREATE TEMP TABLE want AS
SELECT w.*, row_number() OVER (ORDER BY w.score DESC, w.entry) AS pos
FROM pg_temp.expected('tea', pg_temp.id('alice'), pg_temp.at_end(), 2.5, 0.02) AS w;

SELECT is((SELECT count(*) FROM got), 3::bigint, 'recall ''tea'' finds the three tea memories');
SELECT ok((SELECT bool_and(pg_temp.close(g.score, w.score)) FROM got AS g JOIN want AS w USING (entry)),
          'every score equals text_rank * (1 + boost if subject) * 0.5 ^ (age / half_life)');
SELECT ok((SELECT bool_and(pg_temp.close(g.text_rank, w.text_rank)) FROM got AS g JOIN want AS w USING (entry)),
          'text_rank is ts_rank of the websearch query');
SELECT ok((SELECT bool_and(g.subject_match = w.subject_match AND g.age = w.age) FROM got AS g JOIN want AS w USING (entry)),
          'subject_match and age are reported');
SELECT is(ARRAY(SELECT entry FROM got ORDER BY pos), ARRAY(SELECT entry FROM want ORDER BY pos),
          'rows come in descending score order');
SELECT ok((SELECT bool_and(score > 0 AND text_rank > 0) FROM got), 'matching rows have positive scores');
-- Alice's memory is older by >= 1.5 half-lives (decay <= 0.35) but boosted 3.5x.
SELECT is((SELECT pos FROM got WHERE entry = pg_temp.id('tea_alice'))
          < (SELECT pos FROM got WHERE entry = pg_temp.id('tea_bob')),
          (SELECT pos FROM want WHERE entry = pg_temp.id('tea_alice'))
          < (SELECT pos FROM want WHERE entry = pg_temp.id('tea_bob')),
          'the subject boost against recency decays as the formula says');
-- Without the subject, recency decides between the two identical texts.
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'green tea', NULL, NULL, 10, pg_temp.at_end()) AS r),
          ARRAY[pg_temp.id('tea_bob'), pg_temp.id('tea_alice')],
          'same text, no subject: the newer memory ranks first (recency decay)');
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'green tea', NULL, pg_temp.id('alice'), 10,
                                                    pg_temp.at_end()) AS r),
          ARRAY(SELECT w.entry FROM pg_temp.expected('green tea', pg_temp.id('alice'), pg_temp.at_end(), 2.5, 0.02) AS w
                ORDER BY w.score DESC),
          'with Alice as current subject the order follows the computed scores');

-- Empty query: text_rank 1, rank by subject and recency alone.
CREATE TEMP TABLE got_empty AS
SELECT r.* FROM agent_state.recall(pg_temp.id('a'), '', NULL, pg_temp.id('bob'), 10, pg_temp.at_end()) AS r;
SELECT is((SELECT count(*) FROM got_empty), 4::bigint, 'an empty query returns every eligible entry');
SELECT ok((SELECT bool_and(text_rank = 1) FROM got_empty), 'an empty query: text_rank is 1');
SELECT ok((SELECT bool_and(pg_temp.close(g.score, w.score))
           FROM got_empty AS g JOIN pg_temp.expected(NULL, pg_temp.id('bob'), pg_temp.at_end(), 2.5, 0.02) AS w USING (entry)),
          'an empty query: score = subject factor * recency decay');
SELECT is(ARRAY(SELECT entry FROM got_empty),
          ARRAY(SELECT w.entry FROM pg_temp.expected(NULL, pg_temp.id('bob'), pg_temp.at_end(), 2.5, 0.02) AS w
                ORDER BY w.score DESC),
          'an empty query orders by the computed scores');
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), NULL, NULL, NULL, 10, pg_temp.at_end()) AS r),
          ARRAY[pg_temp.id('coffee'), pg_temp.id('tea_tea'), pg_temp.id('tea_bob'), pg_temp.id('tea_alice')],
          'a null query without subject: newest first');
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'the and of', NULL, NULL, 10, pg_temp.at_end()) AS r),
          ARRAY[pg_temp.id('coffee'), pg_temp.id('tea_tea'), pg_temp.id('tea_bob'), pg_temp.id('tea_alice')],
          'a query of stop words only ranks like an empty query');

-- Now (no as_of): inside this transaction every age is 0, so the decay is 1 and
-- equal scores fall back to the tie-break: newest first.
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), NULL) AS r),
          ARRAY[pg_temp.id('coffee'), pg_temp.id('tea_tea'), pg_temp.id('tea_bob'), pg_temp.id('tea_alice')],
          'equal scores: newest revision first');
SELECT ok((SELECT bool_and(r.age = interval '0' AND r.score = 1) FROM agent_state.recall(pg_temp.id('a'), NULL) AS r),
          'age is never negative (clamped at 0)');
SELECT is((SELECT r.score FROM agent_state.recall(pg_temp.id('a'), 'green tea', NULL, pg_temp.id('alice')) AS r
           WHERE r.entry = pg_temp.id('tea_alice')),
          (SELECT r.score FROM agent_state.recall(pg_temp.id('a'), 'green tea', NULL, pg_temp.id('alice')) AS r
           WHERE r.entry = pg_temp.id('tea_bob')) * 3.5,
          'subject_boost 2.5 multiplies the score by 3.5');
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'tea', NULL, NULL, 1, pg_temp.at_end()) AS r),
          ARRAY(SELECT w.entry FROM pg_temp.expected('tea', NULL, pg_temp.at_end(), 2.5, 0.02) AS w
                ORDER BY w.score DESC LIMIT 1),
          'max_results 1 returns the best row');

-- Defaults: subject_boost 1.0, half-life 30 days.
SET ROLE t140_op;
INSERT INTO pg_temp.ids VALUES ('d_carol', agent_state.resolve_actor(pg_temp.id('d'), 'slack', 'carol'));
INSERT INTO pg_temp.ids
SELECT 'd1', r.entry FROM agent_state.note(pg_temp.id('d'), 'Carol plays chess', pg_temp.id('d_carol')) AS r;
RESET ROLE;
SELECT ok(pg_temp.close(
              (SELECT r.score FROM agent_state.recall(pg_temp.id('d'), NULL, NULL, pg_temp.id('d_carol'), 10,
                                                      now() + interval '30 days') AS r),
              2 * power(0.5::float8, extract(epoch FROM (now() + interval '30 days'
                  - (SELECT revised_at FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('d1'))))::float8
                  / 2592000)),
          'default settings: boost 1.0 (x2) and a 30-day half-life');

-- Bad settings are never stored, so ranking never meets them: even the owner's
-- direct insert is refused by the table's CHECK (the rule of _settings_problem).
SELECT throws_ok($$INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, settings)
                   VALUES (pg_temp.id('d'), 50, '{"subject_boost": "lots"}')$$, '23514', NULL,
                 'a non-numeric subject_boost setting cannot be stored');
SELECT throws_ok($$INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, settings)
                   VALUES (pg_temp.id('d'), 50, '{"recency_half_life": "soon"}')$$, '23514', NULL,
                 'an unreadable recency_half_life setting cannot be stored');
SELECT throws_ok($$INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, settings)
                   VALUES (pg_temp.id('d'), 50, '{"recency_half_life": "-1 day"}')$$, '23514', NULL,
                 'a negative recency_half_life setting cannot be stored');
SELECT agent_state.revise_profile(pg_temp.id('d'), settings => '{"recency_half_life": "1 microsecond"}') \g /dev/null
SELECT is((SELECT count(*) FROM agent_state.recall(pg_temp.id('d'), 'chess', NULL, NULL, 10, now() + interval '100 years')),
          1::bigint, 'a decay far beyond float8 range still answers (no underflow error)');

-- ---------------------------------------------------------------- context_for order
SET ROLE t140_op;
INSERT INTO pg_temp.ids VALUES
    ('m_ask', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('alice'),
        'any tea for me?', ARRAY[pg_temp.id('bob')]));
CREATE TEMP TABLE ctx AS
SELECT r.*, row_number() OVER () AS pos
FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('m_ask'), 10) AS r;
SELECT is((SELECT count(*) FROM ctx), 4::bigint, 'context_for: relevant entries, then the rest');
SELECT is(ARRAY(SELECT entry FROM ctx WHERE text_rank > 0 ORDER BY pos),
          ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'tea', pg_temp.id('dm'), pg_temp.id('alice')) AS r),
          'context_for ranks the relevant entries as recall does, with the author as current subject');
SELECT is((SELECT entry FROM ctx WHERE pos = 4), pg_temp.id('coffee'),
          'the fill-up (an entry not about tea) comes after the relevant ones');
SELECT ok((SELECT text_rank = 0 AND score = 0 FROM ctx WHERE pos = 4), 'fill-up rows: text_rank 0 and score 0');
SELECT is((SELECT count(*) FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('m_ask'), 2)),
          2::bigint, 'context_for respects max_results');
SELECT is((SELECT count(DISTINCT entry) FROM ctx), 4::bigint, 'context_for never repeats an entry');
RESET ROLE;

-- ---------------------------------------------------------------- hostile queries and arguments
SET ROLE t140_op;
SELECT lives_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), '&|!():*')$$,
                'tsquery operators only: no error');
SELECT lives_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'tea & !(coffee | :* "unclosed <-> ''quote')$$,
                'tsquery metacharacters mixed with words: no error');
SELECT is((SELECT count(*) FROM agent_state.recall(pg_temp.id('a'), 'tea -coffee')), 3::bigint,
          'websearch syntax: exclusion works');
SELECT lives_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'café 日本語 🎉 ''; DROP TABLE x; --')$$,
                'Unicode and SQL-looking text: no error');
SELECT lives_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), repeat('tea ', 2500))$$,
                'a 10,000-character query is accepted');
SELECT lives_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), repeat('x', 10000))$$,
                'a single 10,000-character word is accepted (too long to be a lexeme)');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), repeat('x', 10001))$$,
                 '22023', NULL, 'a query over 10,000 characters: 22023 (not 54000)');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'tea', NULL, NULL, NULL)$$,
                 '22004', NULL, 'max_results null: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'tea', NULL, NULL, 0)$$,
                 '22023', NULL, 'max_results 0: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), NULL, -5)$$,
                 '22023', NULL, 'context_for max_results negative: 22023');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
