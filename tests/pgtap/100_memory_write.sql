-- Memory writes: remember, note, amend, forget, memory_history. Every verb, every
-- SQLSTATE, provenance and evidence, and no partial write on bad input.
BEGIN;
SELECT plan(106);

CREATE ROLE t100_op IN ROLE agent_state_operator;
CREATE ROLE t100_ra IN ROLE agent_state_runtime;
CREATE ROLE t100_rb IN ROLE agent_state_runtime;
\ir _setup.sql
CREATE FUNCTION pg_temp.sorted(a uuid []) RETURNS uuid [] LANGUAGE sql IMMUTABLE
AS $$ SELECT ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(a) AS x ORDER BY x) $$;
CREATE FUNCTION pg_temp.memory_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.memory_entries)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_revisions)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_evidence)
$$;
-- The entry row and one revision row, read as the superuser.
CREATE FUNCTION pg_temp.entry(e uuid) RETURNS agent_state.memory_entries LANGUAGE sql STABLE
AS $$ SELECT x FROM agent_state.memory_entries AS x WHERE x.entry_id = e $$;
CREATE FUNCTION pg_temp.rev(e uuid, n integer) RETURNS agent_state.memory_revisions LANGUAGE sql STABLE
AS $$ SELECT x FROM agent_state.memory_revisions AS x WHERE x.entry_id = e AND x.revision = n $$;

SET ROLE t100_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t100-a')),
    ('b', agent_state.create_agent('t100-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't100_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't100_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'alice')),
    ('bob', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'bob')),
    ('carol', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'carol')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'alice')),
    ('dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'D1', 'direct')),
    ('group', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'G1', 'group')),
    ('pub', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'P1', 'public')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'D1', 'direct'));
INSERT INTO pg_temp.ids VALUES
    ('m_dm', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('alice'),
        'I moved to Lisbon', ARRAY[pg_temp.id('bob')])),
    ('m_group', agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('bob'),
        'Alice now lives in Lisbon', ARRAY[pg_temp.id('alice'), pg_temp.id('carol')])),
    ('m_pub', agent_state.record_message(pg_temp.id('a'), pg_temp.id('pub'), pg_temp.id('carol'),
        'Public: Alice gave a talk')),
    ('m_b', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'),
        'B secret', ARRAY[pg_temp.id('b_actor')]));
RESET ROLE;

-- ---------------------------------------------------------------- remember
SET ROLE t100_ra;
INSERT INTO pg_temp.ids
SELECT 'e1', r.entry FROM agent_state.remember(
    agent => pg_temp.id('a'), body => 'Alice lives in Lisbon', source_message => pg_temp.id('m_dm'),
    subject => pg_temp.id('alice')) AS r;
SELECT is((SELECT r.revision FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e1')) AS r),
          1, 'remember creates revision 1');
RESET ROLE;
SELECT is((pg_temp.entry(pg_temp.id('e1'))).source_type, 'agent', 'remember: source_type agent');
SELECT ok((pg_temp.entry(pg_temp.id('e1'))).live, 'remember: the entry is live');
SELECT is((pg_temp.entry(pg_temp.id('e1'))).visibility, 'perspective', 'remember: default visibility perspective');
SELECT is(pg_temp.sorted((pg_temp.entry(pg_temp.id('e1'))).evidence_observers),
          pg_temp.sorted(ARRAY[pg_temp.id('alice'), pg_temp.id('bob')]),
          'remember: evidence observers are the source message''s audience');
SELECT is((pg_temp.entry(pg_temp.id('e1'))).evidence_conversations, ARRAY[pg_temp.id('dm')],
          'remember: evidence conversation is the message''s conversation');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 1)).source_actor_id, pg_temp.id('alice'),
          'remember: the source actor is the message''s author');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 1)).source_message_id, pg_temp.id('m_dm'),
          'remember: the source message is recorded');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 1)).created_by, 't100_ra'::name,
          'remember: created_by is the calling role');
SELECT is((pg_temp.entry(pg_temp.id('e1'))).revised_at, (pg_temp.rev(pg_temp.id('e1'), 1)).created_at,
          'revised_at is the current revision''s created_at');

SET ROLE t100_ra;
SELECT results_eq(
    $$SELECT revision, operation, body, subject, visibility, source_type, source_actor, source_messages
      FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e1'))$$,
    $$VALUES (1, 'create'::text, 'Alice lives in Lisbon'::text, pg_temp.id('alice'), 'perspective'::text,
              'agent'::text, pg_temp.id('alice'), ARRAY[pg_temp.id('m_dm')])$$,
    'memory_history after remember');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_evidence WHERE entry_id = pg_temp.id('e1')),
          0::bigint, 'remember: the source message column is the evidence, no evidence row is written');
SET ROLE t100_ra;

-- remember from a public message: nobody is restricted
INSERT INTO pg_temp.ids
SELECT 'e_pub', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice gave a talk',
                                                  pg_temp.id('m_pub'), pg_temp.id('alice')) AS r;
INSERT INTO pg_temp.ids
SELECT 'e_conv', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice said it in the group',
    pg_temp.id('m_group'), NULL, 'conversation') AS r;
RESET ROLE;
SELECT is((pg_temp.entry(pg_temp.id('e_pub'))).evidence_observers, NULL::uuid [],
          'public evidence: evidence_observers is NULL (unrestricted)');
SELECT is((pg_temp.entry(pg_temp.id('e_conv'))).visibility, 'conversation', 'visibility conversation kept');
SELECT is((pg_temp.entry(pg_temp.id('e_conv'))).subject_id, NULL::uuid, 'subject may be null');

-- bad input to remember: SQLSTATEs and no partial write
CREATE TEMP TABLE before_rows AS SELECT pg_temp.memory_rows() AS n;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t100_ra;
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', NULL)$$,
                 '22004', NULL, 'remember without source_message: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.remember(NULL, 'x', pg_temp.id('m_dm'))$$,
                 '22004', NULL, 'remember with null agent: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), NULL, pg_temp.id('m_dm'))$$,
                 '22004', NULL, 'remember with null body: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), '', pg_temp.id('m_dm'))$$,
                 '22023', NULL, 'remember with empty body: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), E' \n\t ', pg_temp.id('m_dm'))$$,
                 '22023', NULL, 'remember with blank body: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), repeat('x', 100001), pg_temp.id('m_dm'))$$,
                 '22023', NULL, 'remember with a 100,001-character body: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), repeat('é', 100001), pg_temp.id('m_dm'))$$,
                 '22023', NULL, 'the limit counts characters, not bytes: 100,001 x é is 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_dm'), NULL, 'public')$$,
                 '22023', NULL, 'remember with an unknown visibility: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_dm'), NULL, NULL)$$,
                 '22004', NULL, 'remember with null visibility: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', gen_random_uuid())$$,
                 'P0002', NULL, 'remember with an unknown message: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_b'))$$,
                 '23503', NULL, 'a runtime naming another perspective''s message: 23503');
RESET ROLE;
SET ROLE t100_op;
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_b'))$$,
                 '23503', NULL, 'remember with another perspective''s message: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_dm'), gen_random_uuid())$$,
                 'P0002', NULL, 'remember with an unknown subject: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_dm'), pg_temp.id('b_actor'))$$,
                 '23503', NULL, 'remember with another perspective''s actor as subject: 23503');
RESET ROLE;
SET ROLE t100_rb;
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('a'), 'x', pg_temp.id('m_dm'))$$,
                 '42501', NULL, 'remember by a runtime not hosting the agent: 42501');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', 1)$$,
                 '42501', NULL, 'amend by a runtime not hosting the agent: 42501');
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e1'))$$,
                 '42501', NULL, 'forget by a runtime not hosting the agent: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e1'))$$,
                 '42501', NULL, 'memory_history by a runtime not hosting the agent: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.remember(pg_temp.id('b'), 'x', pg_temp.id('m_dm'))$$,
                 '23503', NULL, 'B''s runtime naming A''s message for B: 23503');
RESET ROLE;
SELECT is(pg_temp.memory_rows(), (SELECT n FROM before_rows), 'the refused remember calls wrote nothing');

-- Unicode and quoting survive
SET ROLE t100_ra;
INSERT INTO pg_temp.ids
SELECT 'e_uni', r.entry FROM agent_state.remember(pg_temp.id('a'),
    E'Zoë''s café — naïve "quotes" \\ back\\slash 日本語 🎉', pg_temp.id('m_dm')) AS r;
SELECT is((SELECT h.body FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e_uni')) AS h),
          E'Zoë''s café — naïve "quotes" \\ back\\slash 日本語 🎉', 'Unicode and quotes round-trip');
INSERT INTO pg_temp.ids
SELECT 'e_long', r.entry FROM agent_state.remember(pg_temp.id('a'), repeat('ab ', 33333) || 'a',
                                                   pg_temp.id('m_dm')) AS r;
SELECT is((SELECT length(h.body) FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e_long')) AS h),
          100000, 'a body of exactly 100,000 characters is accepted');
RESET ROLE;

-- An operator may remember too; provenance still comes from the message.
SET ROLE t100_op;
INSERT INTO pg_temp.ids
SELECT 'e_op', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Bob said Alice moved',
                                                 pg_temp.id('m_group')) AS r;
RESET ROLE;
SELECT is((pg_temp.rev(pg_temp.id('e_op'), 1)).source_type, 'agent',
          'an operator''s remember is still source_type agent');
SELECT is((pg_temp.rev(pg_temp.id('e_op'), 1)).source_actor_id, pg_temp.id('bob'),
          'an operator''s remember takes the source actor from the message');

-- ---------------------------------------------------------------- note
SET ROLE t100_ra;
SELECT throws_ok($$SELECT * FROM agent_state.note(pg_temp.id('a'), 'runtime note')$$,
                 '42501', NULL, 'note by a runtime: 42501');
RESET ROLE;
SET ROLE t100_op;
INSERT INTO pg_temp.ids
SELECT 'n1', r.entry FROM agent_state.note(pg_temp.id('a'), 'Alice prefers email', pg_temp.id('alice')) AS r;
SELECT throws_ok($$SELECT * FROM agent_state.note(pg_temp.id('a'), NULL)$$, '22004', NULL, 'note with null body: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.note(pg_temp.id('a'), ' ')$$, '22023', NULL, 'note with blank body: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.note(pg_temp.id('a'), repeat('y', 100001))$$,
                 '22023', NULL, 'note with a 100,001-character body: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.note(pg_temp.id('a'), 'x', pg_temp.id('b_actor'))$$,
                 '23503', NULL, 'note about another perspective''s actor: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.note(gen_random_uuid(), 'x')$$,
                 'P0002', NULL, 'note for an unknown agent: P0002');
RESET ROLE;
SELECT is((pg_temp.entry(pg_temp.id('n1'))).source_type, 'operator', 'note: source_type operator');
SELECT is((pg_temp.entry(pg_temp.id('n1'))).evidence_observers, NULL::uuid [], 'note: restricts nobody');
SELECT is((pg_temp.entry(pg_temp.id('n1'))).visibility, 'perspective', 'note: visibility perspective');
SELECT is((pg_temp.rev(pg_temp.id('n1'), 1)).source_actor_id, NULL::uuid, 'note: no source actor');
SET ROLE t100_ra;
SELECT is((SELECT h.source_messages FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('n1')) AS h),
          '{}'::uuid [], 'note: no evidence messages');
RESET ROLE;

-- ---------------------------------------------------------------- amend
SET ROLE t100_ra;
SELECT is(agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'Alice lives in Lisbon, Alfama',
                            1, pg_temp.id('m_group')),
          2, 'amend returns the new revision number');
RESET ROLE;
SELECT is((pg_temp.entry(pg_temp.id('e1'))).current_revision, 2, 'amend: the entry is at revision 2');
SELECT is((pg_temp.entry(pg_temp.id('e1'))).body, 'Alice lives in Lisbon, Alfama', 'amend: the entry has the new body');
SELECT is(pg_temp.sorted((pg_temp.entry(pg_temp.id('e1'))).evidence_observers),
          pg_temp.sorted(ARRAY[pg_temp.id('alice'), pg_temp.id('bob')]),
          'amend: observers are the intersection of the audiences ({alice,bob} and {alice,bob,carol})');
SELECT is(pg_temp.sorted((pg_temp.entry(pg_temp.id('e1'))).evidence_conversations),
          pg_temp.sorted(ARRAY[pg_temp.id('dm'), pg_temp.id('group')]),
          'amend: evidence conversations accumulate');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 2)).source_actor_id, pg_temp.id('bob'),
          'amend with a message: the source actor is its author');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 2)).subject_id, pg_temp.id('alice'), 'amend: null subject keeps the subject');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 1)).body, 'Alice lives in Lisbon', 'amend: revision 1 is unchanged');
SET ROLE t100_ra;
SELECT is((SELECT h.source_messages FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e1')) AS h
           WHERE h.revision = 2),
          pg_temp.sorted(ARRAY[pg_temp.id('m_dm'), pg_temp.id('m_group')]),
          'amend keeps all earlier evidence and adds the new message');
RESET ROLE;
SELECT is((SELECT pg_catalog.array_agg(message_id) FROM agent_state.memory_evidence
           WHERE entry_id = pg_temp.id('e1') AND revision = 2),
          ARRAY[pg_temp.id('m_dm')],
          'amend: the earlier source message is carried over as a row, the new one is the column');

CREATE TEMP TABLE before_amend AS SELECT pg_temp.memory_rows() AS n;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t100_ra;
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'stale', 1)$$,
                 '40001', NULL, 'amend with a stale expected_revision: 40001');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'ahead', 3)$$,
                 '40001', NULL, 'amend with a future expected_revision: 40001');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', NULL)$$,
                 '22004', NULL, 'amend without expected_revision: 22004');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), NULL, 'x', 2)$$,
                 '22004', NULL, 'amend without entry: 22004');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), '', 2)$$,
                 '22023', NULL, 'amend with an empty body: 22023');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), repeat('z', 100001), 2)$$,
                 '22023', NULL, 'amend with a 100,001-character body: 22023');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), gen_random_uuid(), 'x', 1)$$,
                 'P0002', NULL, 'amend of an unknown entry: P0002');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', 2, gen_random_uuid())$$,
                 'P0002', NULL, 'amend with an unknown source_message: P0002');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', 2, NULL, NULL, 'everyone')$$,
                 '22023', NULL, 'amend with an unknown visibility: 22023');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e_conv'), 'x', 1, NULL, NULL, 'perspective')$$,
                 '22023', NULL, 'amend widening visibility conversation -> perspective: 22023');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', 2, NULL, gen_random_uuid())$$,
                 'P0002', NULL, 'amend with an unknown subject: P0002');
RESET ROLE;
SET ROLE t100_op;
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('b'), pg_temp.id('e1'), 'x', 2)$$,
                 '23503', NULL, 'amend of another perspective''s entry: 23503');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', 2, pg_temp.id('m_b'))$$,
                 '23503', NULL, 'amend with another perspective''s message: 23503');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'x', 2, NULL, pg_temp.id('b_actor'))$$,
                 '23503', NULL, 'amend with another perspective''s subject: 23503');
RESET ROLE;
SELECT is(pg_temp.memory_rows(), (SELECT n FROM before_amend), 'the refused amendments wrote nothing');
SELECT is((pg_temp.entry(pg_temp.id('e1'))).body, 'Alice lives in Lisbon, Alfama', 'the entry is unchanged');

-- narrowing, subject change, public evidence, provenance without a message
SET ROLE t100_ra;
SELECT is(agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'Alice lives in Alfama', 2,
                            pg_temp.id('m_pub'), pg_temp.id('carol'), 'conversation'),
          3, 'amend narrowing visibility perspective -> conversation');
RESET ROLE;
SELECT is((pg_temp.entry(pg_temp.id('e1'))).visibility, 'conversation', 'narrowed visibility is current');
SELECT is((pg_temp.entry(pg_temp.id('e1'))).subject_id, pg_temp.id('carol'), 'a new subject replaces the old');
SELECT is(pg_temp.sorted((pg_temp.entry(pg_temp.id('e1'))).evidence_observers),
          pg_temp.sorted(ARRAY[pg_temp.id('alice'), pg_temp.id('bob')]),
          'public evidence does not widen or narrow the observers');
SET ROLE t100_ra;
SELECT is(agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'Alice lives in Alfama, Lisbon', 3), 4,
          'a runtime may amend without a message');
RESET ROLE;
SELECT is((pg_temp.rev(pg_temp.id('e1'), 4)).source_type, 'agent', 'runtime amend without message: source_type agent');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 4)).source_actor_id, NULL::uuid, '... and no source actor');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 4)).visibility, 'conversation', 'null visibility keeps the current one');
SET ROLE t100_op;
SELECT is(agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'Alice lives in Lisbon (checked)', 4), 5,
          'an operator may amend');
RESET ROLE;
SELECT is((pg_temp.rev(pg_temp.id('e1'), 5)).source_type, 'operator', 'operator amend without message: source_type operator');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 5)).created_by, 't100_op'::name, 'operator amend: created_by is the operator');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_evidence
           WHERE entry_id = pg_temp.id('e1') AND revision = 5), 3::bigint,
          'revision 5 carries the whole evidence set (3 messages)');

-- ---------------------------------------------------------------- forget
SET ROLE t100_ra;
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e1'), 4)$$,
                 '40001', NULL, 'forget with a stale expected_revision: 40001');
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), gen_random_uuid())$$,
                 'P0002', NULL, 'forget an unknown entry: P0002');
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), NULL)$$,
                 '22004', NULL, 'forget without entry: 22004');
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e1'), 5, '')$$,
                 '22023', NULL, 'forget with an empty reason: 22023');
SELECT is(agent_state.forget(pg_temp.id('a'), pg_temp.id('e1'), 5, 'Alice asked'), 6,
          'forget returns the forget revision');
RESET ROLE;
SELECT ok(NOT (pg_temp.entry(pg_temp.id('e1'))).live, 'forget retires the entry');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 6)).operation, 'forget', 'the forget revision is recorded');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 6)).reason, 'Alice asked', 'the reason is kept');
SELECT is((pg_temp.rev(pg_temp.id('e1'), 6)).body, 'Alice lives in Lisbon (checked)', 'the forget revision carries the body');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1')),
          6::bigint, 'forget deletes nothing: six revisions');
SET ROLE t100_ra;
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e1'))$$,
                 '55000', NULL, 'forgetting a forgotten entry: 55000');
SELECT throws_ok($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'back', 6)$$,
                 '55000', NULL, 'amending a forgotten entry: 55000');
SELECT results_eq(
    $$SELECT revision, operation FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e1'))$$,
    $$VALUES (1, 'create'::text), (2, 'amend'), (3, 'amend'), (4, 'amend'), (5, 'amend'), (6, 'forget')$$,
    'memory_history lists every operation, oldest first');
SELECT is(agent_state.forget(pg_temp.id('a'), pg_temp.id('e_pub')), 2, 'forget without expected_revision');
RESET ROLE;
SET ROLE t100_op;
SELECT throws_ok($$SELECT agent_state.forget(pg_temp.id('b'), pg_temp.id('e_conv'))$$,
                 '23503', NULL, 'forget another perspective''s entry: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.memory_history(pg_temp.id('b'), pg_temp.id('e_conv'))$$,
                 '23503', NULL, 'memory_history of another perspective''s entry: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.memory_history(pg_temp.id('a'), gen_random_uuid())$$,
                 'P0002', NULL, 'memory_history of an unknown entry: P0002');
RESET ROLE;

-- Everything written above satisfies the commit-time guards.
SELECT lives_ok('SET CONSTRAINTS ALL IMMEDIATE', 'every write passes the deferred memory guards');

SELECT * FROM finish();
ROLLBACK;
