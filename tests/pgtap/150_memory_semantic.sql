-- Retrieval that answers questions: match => 'any', and the semantic axis with
-- pgvector (attach_embedding, pending_embeddings, query_embedding), which works when
-- the vector extension is created after agent_state and raises 0A000 without it.
-- Eligibility is applied before the nearest neighbours are taken. The semantic part
-- runs where the server has pgvector (the embedded extra's PostgreSQL 18).
BEGIN;
SET client_min_messages = warning;
SELECT EXISTS (SELECT FROM pg_catalog.pg_available_extensions WHERE name = 'vector') AS has_vector \gset
\if :has_vector
SELECT plan(59);
\else
SELECT plan(19);
\endif

CREATE ROLE t150_op IN ROLE agent_state_operator;
CREATE ROLE t150_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t150_rb LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql
-- A unit vector of dimension 3 pointing between the first two axes by angle.
CREATE FUNCTION pg_temp.v(angle double precision) RETURNS real [] LANGUAGE sql IMMUTABLE
AS $$ SELECT ARRAY[pg_catalog.cos(angle), pg_catalog.sin(angle), 0]::real [] $$;

-- The HNSW path's hnsw.ef_search (agent_state.hnsw_ef_search, default 1000: the
-- index's answer must be right to the 50 neighbours that are fused).
SELECT is(agent_state._hnsw_ef_search(), 1000, 'hnsw_ef_search: 1000 by default');
SET LOCAL agent_state.hnsw_ef_search = 300;
SELECT is(agent_state._hnsw_ef_search(), 300, 'hnsw_ef_search: the setting');
SET LOCAL agent_state.hnsw_ef_search = 1001;
SELECT throws_ok($$SELECT agent_state._hnsw_ef_search()$$, '22023', NULL,
                 'hnsw_ef_search: above pgvector''s 1000 raises 22023');
SET LOCAL agent_state.hnsw_ef_search = 'many';
SELECT throws_ok($$SELECT agent_state._hnsw_ef_search()$$, '22023', NULL,
                 'hnsw_ef_search: not a number raises 22023');
RESET agent_state.hnsw_ef_search;

SET ROLE t150_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t150-a')), ('b', agent_state.create_agent('t150-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't150_ra') \g /dev/null
SELECT agent_state.grant_hosting(pg_temp.id('b'), 't150_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ANN', 'Ann')),
    ('bob', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-BOB', 'Bob')),
    ('dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'D-ANN', 'direct')),
    ('bob_dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'D-BOB', 'direct')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U-B')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C-B'));
INSERT INTO pg_temp.ids VALUES
    ('m_ann', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('ann'),
                                         'I am allergic to peanuts', ARRAY[pg_temp.id('ann')])),
    ('m_bob', agent_state.record_message(pg_temp.id('a'), pg_temp.id('bob_dm'), pg_temp.id('bob'),
                                         'secret', ARRAY[pg_temp.id('bob')])),
    ('b_msg', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'),
                                         'b', ARRAY[pg_temp.id('b_actor')]));
INSERT INTO pg_temp.ids SELECT 'peanuts', r.entry
FROM agent_state.remember(pg_temp.id('a'), 'Alice is allergic to peanuts', pg_temp.id('m_ann'), pg_temp.id('ann')) AS r;
INSERT INTO pg_temp.ids SELECT 'lisbon', r.entry
FROM agent_state.remember(pg_temp.id('a'), 'Alice lives in Lisbon', pg_temp.id('m_ann'), pg_temp.id('ann')) AS r;
INSERT INTO pg_temp.ids SELECT 'b_entry', r.entry
FROM agent_state.remember(pg_temp.id('b'), 'B memory', pg_temp.id('b_msg')) AS r;
INSERT INTO pg_temp.ids VALUES
    ('m_x', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('ann'),
                                       'peanuts in Lisbon', ARRAY[pg_temp.id('ann')]));
RESET ROLE;

-- ---------------------------------------------------------------- match
SET ROLE t150_ra;
SELECT is_empty($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'peanut allergy alice', pg_temp.id('dm'))$$,
                'match => all (the default): every word must match, and allergy is not allergic');
SELECT results_eq($$SELECT body FROM agent_state.recall(pg_temp.id('a'), 'peanut allergy alice', pg_temp.id('dm'),
                                                        match => 'any')$$,
                  ARRAY['Alice is allergic to peanuts', 'Alice lives in Lisbon'],
                  'match => any: a revision with any word is a candidate, more words rank higher');
SELECT bag_eq($$SELECT body FROM agent_state.recall(pg_temp.id('a'), 'what should I avoid serving Alice?',
                                                    pg_temp.id('dm'), match => 'any')$$,
              ARRAY['Alice is allergic to peanuts', 'Alice lives in Lisbon'],
              'a question as an LLM writes it finds what shares its words');
SELECT ok((SELECT pg_catalog.bool_and(r.text_rank > 0) FROM agent_state.recall(pg_temp.id('a'), 'alice peanut',
               pg_temp.id('dm'), match => 'any') AS r), 'every any-match has a text rank');
SELECT ok((SELECT pg_catalog.bool_and(r.text_rank = 1) FROM agent_state.recall(pg_temp.id('a'), 'the of and',
               pg_temp.id('dm'), match => 'any') AS r),
          'stop words only: no lexical part (text_rank 1, ranked by subject and recency)');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', match => 'some')$$, '22023',
                 'match: must be ''all'' or ''any''', 'an unknown match: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', match => NULL)$$, '22004',
                 'match: must not be null', 'a null match: 22004');
SELECT results_eq($$SELECT text_rank > 0 FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'),
                                                                      pg_temp.id('m_x'))$$,
                  ARRAY[true, true],
                  'context_for matches any word of the message by default ("peanuts in Lisbon")');
SELECT results_eq($$SELECT text_rank > 0 FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'),
                                                                      pg_temp.id('m_x'), match => 'all')$$,
                  ARRAY[false, false],
                  'context_for with match => all: no entry has every word of it');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), match => 'x')$$,
                 '22023', NULL, 'context_for: an unknown match: 22023');

-- ---------------------------------------------------------------- without pgvector
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm',
                   '{1,0,0}')$$, '0A000', NULL, 'attach_embedding without pgvector: 0A000');
SELECT throws_like($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm',
                     '{1,0,0}')$$, '%pgvector%', 'and the message names pgvector');
SELECT throws_ok($$SELECT * FROM agent_state.pending_embeddings(pg_temp.id('a'), 'm')$$, '0A000', NULL,
                 'pending_embeddings without pgvector: 0A000');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', query_embedding => '{1,0,0}',
                   embedding_model => 'm')$$, '0A000', NULL, 'recall with a query embedding without pgvector: 0A000');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'),
                   query_embedding => '{1,0,0}', embedding_model => 'm')$$, '0A000', NULL,
                 'context_for with a query embedding without pgvector: 0A000');
RESET ROLE;

\if :has_vector
-- ---------------------------------------------------------------- with pgvector, created after agent_state
CREATE EXTENSION vector;
SET ROLE t150_ra;
SELECT lives_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm', pg_temp.v(0))$$,
                'created after agent_state, pgvector is used with no extra step');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm', '{1,0}')$$,
                 '22023', NULL, 'every embedding of a model in an agent has its dimension: 22023');
SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm', pg_temp.v(1.2)) \g /dev/null
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm', pg_temp.v(0.1))$$,
                 '23505', NULL, 'one embedding per revision and model: 23505');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm', '{1,0}')$$,
                 '23505', NULL, '... also when the second one has another dimension');
SELECT lives_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm2', '{1,0}')$$,
                'another model may have another dimension');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', '{NaN,0}')$$,
                 '22023', 'embedding: every component must be a finite number', 'NaN: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', '{Infinity,0}')$$,
                 '22023', 'embedding: every component must be a finite number', 'infinity: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', '{}')$$,
                 '22023', 'embedding: must not be empty', 'empty: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm3',
                   pg_catalog.array_fill(0.5::real, ARRAY[16001]))$$,
                 '22023', 'embedding: more than 16000 dimensions', 'more than 16,000 dimensions: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', '{0,0}')$$,
                 '22023', 'embedding: must not be all zeros', 'the zero vector: 22023');
-- Norms whose squares overflow or underflow float4 (pgvector's cosine would be NaN).
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', '{3e38,3e38}')$$,
                 '22023', 'embedding: its Euclidean norm must be from 1e-15 to 1e15', 'a huge norm: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', '{1e-45,0}')$$,
                 '22023', 'embedding: its Euclidean norm must be from 1e-15 to 1e15', 'a tiny norm: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, 'm2', NULL)$$,
                 '22004', 'embedding: must not be null', 'null: 22004');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1, '', '{1,0}')$$,
                 '22023', 'model: must not be empty', 'an empty model: 22023');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 1,
                   pg_catalog.repeat('m', 201), '{1,0}')$$,
                 '22023', 'model: longer than 200 characters', 'an overlong model: 22023');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_embeddings AS x
           WHERE x.entry_id = pg_temp.id('lisbon')), 1::bigint, 'refused embeddings wrote nothing');
SET ROLE t150_ra;
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 7, 'm', pg_temp.v(1))$$,
                 'P0002', NULL, 'an unknown revision: P0002');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('b_entry'), 1, 'm', pg_temp.v(1))$$,
                 '23503', NULL, 'another perspective''s entry: 23503');
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('b'), pg_temp.id('b_entry'), 1, 'm', pg_temp.v(1))$$,
                 '42501', NULL, 'an agent the runtime does not host: 42501');

-- pending_embeddings: current live revisions without one, oldest first.
SELECT is_empty($$SELECT * FROM agent_state.pending_embeddings(pg_temp.id('a'), 'm')$$,
                'nothing pending once every live revision has an embedding');
SELECT results_eq($$SELECT body FROM agent_state.pending_embeddings(pg_temp.id('a'), 'm3')$$,
                  ARRAY['Alice is allergic to peanuts', 'Alice lives in Lisbon'],
                  'every live revision is pending for a new model, oldest first');
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('lisbon'), 'Alice lives in Porto', 1) \g /dev/null
SELECT results_eq($$SELECT entry, revision FROM agent_state.pending_embeddings(pg_temp.id('a'), 'm')$$,
                  $$VALUES (pg_temp.id('lisbon'), 2)$$, 'an amendment is pending (its new revision)');
SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('lisbon'), 2, 'm', pg_temp.v(1.2)) \g /dev/null

-- recall with a query embedding: lexical and nearest fused by reciprocal rank.
SELECT results_eq($$SELECT body FROM agent_state.recall(pg_temp.id('a'), 'snack for my flight', pg_temp.id('dm'),
                      query_embedding => pg_temp.v(0.05), embedding_model => 'm')$$,
                  ARRAY['Alice is allergic to peanuts', 'Alice lives in Porto'],
                  'a question that shares no word is answered by meaning');
SELECT ok((SELECT pg_catalog.abs(r.score - (2.0 / 61 + 1.0 / 61) * 2) < 1e-4
           FROM agent_state.recall(pg_temp.id('a'), 'peanuts', pg_temp.id('dm'), pg_temp.id('ann'),
                                   query_embedding => pg_temp.v(0), embedding_model => 'm') AS r
           WHERE r.entry = pg_temp.id('peanuts')),
          'score: (2/(60 + 1) + 1/(60 + 1)) x (1 + subject boost): first in both rankings and new, the lexical list weighing 2 (the memory holds every word of the query)');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', query_embedding => '{1,0}',
                   embedding_model => 'm')$$, '22023',
                 'query_embedding: model ''m'' has 3 dimensions in this agent, not 2',
                 'a query embedding of another dimension than the model''s: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', query_embedding => '{1,0,0}')$$,
                 '22004', 'embedding_model: required with query_embedding', 'a query embedding needs its model');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', query_embedding => '{NaN,0,0}',
                   embedding_model => 'm')$$, '22023', NULL, 'a query embedding with NaN: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', query_embedding => '{3e38,3e38,0}',
                   embedding_model => 'm')$$, '22023',
                 'query_embedding: its Euclidean norm must be from 1e-15 to 1e15',
                 'a query embedding with a huge norm: 22023');
SELECT results_eq($$SELECT body FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('m_ann'),
                      max_results => 1, query_embedding => pg_temp.v(1.2), embedding_model => 'm')$$,
                  ARRAY['Alice is allergic to peanuts'],
                  'context_for fuses too (the message''s words rank the allergy first, both near)');

-- Eligibility before nearest neighbours: 60 revisions Ann may not see, each closer to
-- the query than the one she may see, do not hide it.
RESET ROLE;
SET ROLE t150_op;
INSERT INTO pg_temp.ids
SELECT 'hidden' || g, r.entry
FROM pg_catalog.generate_series(1, 60) AS g,
     agent_state.remember(pg_temp.id('a'), 'Bob secret ' || g, pg_temp.id('m_bob'), pg_temp.id('bob')) AS r;
RESET ROLE;
SET ROLE t150_ra;
SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('hidden' || g), 1, 'm', pg_temp.v(0.6 + g * 0.0001))
FROM pg_catalog.generate_series(1, 60) AS g \g /dev/null
SELECT results_eq($$SELECT body FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('dm'), max_results => 1,
                      query_embedding => pg_temp.v(0.5), embedding_model => 'm')$$,
                  ARRAY['Alice is allergic to peanuts'],
                  '60 closer ineligible revisions do not hide the eligible one');
SELECT is_empty($$SELECT * FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('dm'), max_results => 100,
                    query_embedding => pg_temp.v(0.6), embedding_model => 'm') AS r
                  WHERE r.body LIKE 'Bob secret%'$$, 'and none of them appears');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('bob_dm'),
              max_results => 100, query_embedding => pg_temp.v(0.6), embedding_model => 'm') AS r
           WHERE r.body LIKE 'Bob secret%'), 60::bigint, 'in Bob''s conversation they are all there');

-- Derived data is append-only; redact erases it.
RESET ROLE;
SELECT throws_ok($$UPDATE agent_state.memory_embeddings SET embedding = '{1,1,1}' WHERE entry_id = pg_temp.id('peanuts')$$,
                 '42501', NULL, 'embeddings are never updated');
SELECT throws_ok($$DELETE FROM agent_state.memory_embeddings WHERE entry_id = pg_temp.id('peanuts')$$,
                 '42501', NULL, 'nor deleted, except by redact');
SET ROLE t150_op;
SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('peanuts'), 'erasure') \g /dev/null
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_embeddings AS x
           WHERE x.entry_id = pg_temp.id('peanuts')), 0::bigint, 'redact erases the embeddings of the entry');
SET ROLE t150_ra;
SELECT throws_ok($$SELECT agent_state.attach_embedding(pg_temp.id('a'), pg_temp.id('peanuts'), 1, 'm3', '{1,0,0}')$$,
                 '55000', NULL, 'a redacted entry takes no embedding: 55000');
RESET ROLE;

-- The fusion's two rules that a single memory's score does not show: near-equal
-- lexical scores share a rank, and the lexical list weighs 1 when no candidate
-- holds every word of the query. Two memories match only 'alpha' of 'alpha gamma'
-- (equal text ranks, both lexical rank 1); the embedding alone orders them.
SET ROLE t150_op;
INSERT INTO pg_temp.ids SELECT 'f1', r.entry
FROM agent_state.remember(pg_temp.id('b'), 'alpha one', pg_temp.id('b_msg')) AS r;
INSERT INTO pg_temp.ids SELECT 'f2', r.entry
FROM agent_state.remember(pg_temp.id('b'), 'alpha two', pg_temp.id('b_msg')) AS r;
SELECT agent_state.attach_embedding(pg_temp.id('b'), pg_temp.id('f1'), 1, 'm', pg_temp.v(0.5)),
       agent_state.attach_embedding(pg_temp.id('b'), pg_temp.id('f2'), 1, 'm', pg_temp.v(0.1)) \g /dev/null
SELECT ok((SELECT pg_catalog.abs(r.score - (1.0 / 61 + 1.0 / 61)) < 1e-6
           FROM agent_state.recall(pg_temp.id('b'), 'alpha gamma', pg_temp.id('b_conv'), match => 'any',
                                   query_embedding => pg_temp.v(0), embedding_model => 'm') AS r
           WHERE r.entry = pg_temp.id('f2')),
          'fusion: equal lexical scores share rank 1, weighing 1 without a whole match (1/61 + 1/61 for the nearer)');
SELECT ok((SELECT pg_catalog.abs(r.score - (1.0 / 61 + 1.0 / 62)) < 1e-6
           FROM agent_state.recall(pg_temp.id('b'), 'alpha gamma', pg_temp.id('b_conv'), match => 'any',
                                   query_embedding => pg_temp.v(0), embedding_model => 'm') AS r
           WHERE r.entry = pg_temp.id('f1')),
          'fusion: ... and 1/61 + 1/62 for the farther one');
SELECT ok((SELECT pg_catalog.abs(r.score - (2.0 / 61 + 1.0 / 62)) < 1e-6
           FROM agent_state.recall(pg_temp.id('b'), 'alpha one', pg_temp.id('b_conv'), match => 'any',
                                   query_embedding => pg_temp.v(0), embedding_model => 'm') AS r
           WHERE r.entry = pg_temp.id('f1')),
          'fusion, match any: a memory holding every query word makes the lexical list weigh 2 (2/61 + 1/62)');
RESET ROLE;
SELECT is_empty($$SELECT * FROM agent_state.verify()$$, 'verify() finds nothing wrong');
\endif

SELECT * FROM finish();
ROLLBACK;
