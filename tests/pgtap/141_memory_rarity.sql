-- Term rarity (SPEC section 6, Retrieval): match 'any' weighs rare query words
-- above common ones. text_rank = the sum of the weights of the query lexemes a
-- revision contains, weight = idf / (sum of the query's idf), idf = ln(1 + (n - df
-- + 0.5) / (df + 0.5)) over the newest live entries the target may see
-- (_lexeme_weights). match 'all' keeps websearch_to_tsquery and ts_rank.
BEGIN;
SELECT plan(12);

CREATE ROLE t141_op IN ROLE agent_state_operator;
\ir _setup.sql

SET ROLE t141_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t141-a'));
INSERT INTO pg_temp.ids VALUES
    ('alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'alice')),
    ('dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'DM', 'direct'));
-- 'zanzibar' in one note, 'coffee' in twenty (one of them with both words).
INSERT INTO pg_temp.ids
SELECT 'rare', r.entry FROM agent_state.note(pg_temp.id('a'), 'Ines is flying to Zanzibar') AS r;
INSERT INTO pg_temp.ids
SELECT 'both', r.entry FROM agent_state.note(pg_temp.id('a'), 'Coffee from Zanzibar for Omar') AS r;
SELECT agent_state.note(pg_temp.id('a'), pg_catalog.format('Person %s takes coffee with milk', i))
FROM generate_series(1, 19) AS i \g /dev/null
RESET ROLE;

-- The formula, written out independently: n = 21 eligible entries, df(coffee) = 20,
-- df(zanzibar) = 2.
CREATE FUNCTION pg_temp.idf(n float8, df float8) RETURNS float8 LANGUAGE sql IMMUTABLE
AS $$ SELECT ln(1 + (n - df + 0.5) / (df + 0.5)) $$;

SET ROLE t141_op;
CREATE TEMP TABLE got AS
SELECT r.*, row_number() OVER () AS pos
FROM agent_state.recall(pg_temp.id('a'), 'coffee in Zanzibar', max_results => 30, match => 'any') AS r;
SELECT is((SELECT count(*) FROM got), 21::bigint, 'any: every entry with either word is a candidate');
SELECT is((SELECT entry FROM got WHERE pos = 1), pg_temp.id('both'), 'the entry with both words first');
SELECT is((SELECT entry FROM got WHERE pos = 2), pg_temp.id('rare'),
          'the entry with the rare word alone ranks above every entry with the common word alone');
SELECT ok((SELECT abs(text_rank - 1) < 1e-9 FROM got WHERE pos = 1), 'both words: text_rank 1');
SELECT ok((SELECT abs(text_rank - pg_temp.idf(21, 2) / (pg_temp.idf(21, 2) + pg_temp.idf(21, 20))) < 1e-9
           FROM got WHERE pos = 2),
          'the rare word alone: its share of the query''s idf');
SELECT ok((SELECT bool_and(abs(text_rank - pg_temp.idf(21, 20) / (pg_temp.idf(21, 2) + pg_temp.idf(21, 20))) < 1e-9)
           FROM got WHERE pos > 2),
          'the common word alone: its (smaller) share');

-- match 'all' keeps websearch_to_tsquery: every word, exclusion, ts_rank.
SELECT is(ARRAY(SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), 'coffee Zanzibar') AS r),
          ARRAY[pg_temp.id('both')], 'all: only the entry with every word');
SELECT is((SELECT count(*) FROM agent_state.recall(pg_temp.id('a'), 'coffee -Zanzibar', max_results => 30)),
          19::bigint, 'all: websearch exclusion');
SELECT ok((SELECT abs(r.text_rank - ts_rank(to_tsvector('english', r.body),
                                            websearch_to_tsquery('english', 'coffee Zanzibar'))) < 1e-6
           FROM agent_state.recall(pg_temp.id('a'), 'coffee Zanzibar') AS r),
          'all: text_rank is ts_rank');

-- What the target may not see changes no weight: thirty memories about Zanzibar
-- learnt in a DM (not eligible without a conversation) leave the ranking as it was.
INSERT INTO pg_temp.ids VALUES
    ('m_dm', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('alice'),
        'I love Zanzibar', ARRAY[pg_temp.id('alice')]));
SELECT agent_state.remember(pg_temp.id('a'), pg_catalog.format('Alice memory %s about Zanzibar', i),
                            pg_temp.id('m_dm'))
FROM generate_series(1, 30) AS i \g /dev/null
SELECT is(ARRAY(SELECT ROW(r.entry, r.text_rank)::text
                FROM agent_state.recall(pg_temp.id('a'), 'coffee in Zanzibar', max_results => 30,
                                        match => 'any') AS r),
          ARRAY(SELECT ROW(g.entry, g.text_rank)::text FROM got AS g ORDER BY g.pos),
          'ineligible revisions count in no weight');

-- context_for ranks the message's words the same way, with the weights of what
-- its target may see: in the DM the thirty Zanzibar memories are eligible, so
-- there 'zanzibar' (32 entries) is the common word and 'coffee' (20) the rarer.
INSERT INTO pg_temp.ids VALUES
    ('m_ask', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('alice'),
        'any coffee in Zanzibar?', ARRAY[pg_temp.id('alice')]));
CREATE TEMP TABLE ctx AS
SELECT r.* FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('m_ask'), 60) AS r;
SELECT ok((SELECT min(c.text_rank) FROM ctx AS c WHERE c.body LIKE 'Person %')
          > (SELECT c.text_rank FROM ctx AS c WHERE c.entry = pg_temp.id('rare'))
          AND abs((SELECT c.text_rank FROM ctx AS c WHERE c.entry = pg_temp.id('rare'))
                  - pg_temp.idf(51, 32) / (pg_temp.idf(51, 32) + pg_temp.idf(51, 20))) < 1e-9,
          'context_for: weights from what the DM may see (there Zanzibar is the common word)');

-- Nor when the ineligible entries are more, and newer, than the sample holds
-- (1,000): eligibility comes before the sample's limit, so they never take an
-- eligible entry's place in it.
SELECT agent_state.remember(pg_temp.id('a'), pg_catalog.format('Alice memory %s about Zanzibar', i),
                            pg_temp.id('m_dm'))
FROM generate_series(31, 1001) AS i \g /dev/null
SELECT is(ARRAY(SELECT ROW(r.entry, r.text_rank)::text
                FROM agent_state.recall(pg_temp.id('a'), 'coffee in Zanzibar', max_results => 30,
                                        match => 'any') AS r),
          ARRAY(SELECT ROW(g.entry, g.text_rank)::text FROM got AS g ORDER BY g.pos),
          'ineligible revisions beyond the sample''s size count in no weight either');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
