-- Conversations and messages (SPEC section 4): open_conversation is idempotent
-- and never changes kind; record_message stores an immutable audience that
-- always contains the author, is required outside public conversations, and is
-- idempotent by external_ref.
BEGIN;
SET client_min_messages = warning;
SELECT plan(43);

CREATE ROLE t050_op IN ROLE agent_state_operator;
CREATE ROLE t050_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t050_rb LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql
CREATE FUNCTION pg_temp.audience(msg uuid) RETURNS uuid [] LANGUAGE sql STABLE
AS $$ SELECT m.audience FROM agent_state.messages AS m WHERE m.message_id = msg $$;
CREATE FUNCTION pg_temp.sorted(VARIADIC a uuid []) RETURNS uuid [] LANGUAGE sql IMMUTABLE
AS $$ SELECT pg_catalog.array_agg(DISTINCT x ORDER BY x) FROM pg_catalog.unnest(a) AS x $$;
CREATE FUNCTION pg_temp.message_rows() RETURNS bigint LANGUAGE sql STABLE
AS $$ SELECT pg_catalog.count(*) FROM agent_state.messages $$;

SET ROLE t050_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t050-a')),
    ('b', agent_state.create_agent('t050-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't050_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't050_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('a1', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('a2', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2')),
    ('a3', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U3')),
    ('b1', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')),
    ('cb', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C-GROUP'));
RESET ROLE;

-- ---------------------------------------------------------------- open_conversation
SET ROLE t050_ra;
INSERT INTO pg_temp.ids VALUES
    ('group', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C-GROUP')),
    ('direct', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'D-1', 'direct')),
    ('public', agent_state.open_conversation(agent => pg_temp.id('a'), connector => 'slack',
                                             external_ref => 'P-1', kind => 'public'));
SELECT is(agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C-GROUP'), pg_temp.id('group'),
          'opening again returns the same conversation');
SELECT is(agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C-GROUP', 'public'), pg_temp.id('group'),
          'opening again with another kind returns the same conversation');
SELECT is(agent_state.open_conversation(pg_temp.id('a'), 'slack', 'D-1', 'group'), pg_temp.id('direct'),
          'a direct conversation opened again as group is the same conversation');
SELECT isnt(agent_state.open_conversation(pg_temp.id('a'), 'github', 'C-GROUP'), pg_temp.id('group'),
            'the same external_ref on another connector is another conversation');
RESET ROLE;
SELECT is((SELECT c.kind FROM agent_state.conversations AS c WHERE c.conversation_id = pg_temp.id('group')),
          'group', 'kind defaults to group and never changes');
SELECT is((SELECT c.kind FROM agent_state.conversations AS c WHERE c.conversation_id = pg_temp.id('direct')),
          'direct', 'a direct conversation stays direct');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.conversations AS c
           WHERE c.runtime_agent_id = pg_temp.id('a') AND c.external_ref = 'C-GROUP'),
          2::bigint, 'one row per (connector, external_ref): slack and github');
SELECT isnt(pg_temp.id('group'), pg_temp.id('cb'), 'the same external_ref in B is B''s own conversation');
SELECT is((SELECT c.created_by::text FROM agent_state.conversations AS c WHERE c.conversation_id = pg_temp.id('group')),
          't050_ra', 'conversations.created_by is the calling role');

-- ---------------------------------------------------------------- audience
CREATE TEMP TABLE before_rows AS SELECT pg_temp.message_rows() AS n;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t050_ra;
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'hi')$$,
                 '22004', NULL, 'audience is required in a group conversation');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('direct'), pg_temp.id('a1'), 'hi', NULL)$$,
                 '22004', NULL, 'audience is required in a direct conversation');
RESET ROLE;
SELECT is(pg_temp.message_rows(), (SELECT n FROM before_rows), 'a missing audience wrote nothing');
SET ROLE t050_ra;

INSERT INTO pg_temp.ids VALUES
    ('m_pub', agent_state.record_message(pg_temp.id('a'), pg_temp.id('public'), pg_temp.id('a1'), 'to everyone')),
    ('m_one', agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'to a2',
                                         ARRAY[pg_temp.id('a2')])),
    ('m_dup', agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a2'), 'dups',
                                         ARRAY[pg_temp.id('a3'), pg_temp.id('a1'), pg_temp.id('a3'),
                                               pg_temp.id('a2'), pg_temp.id('a1')])),
    ('m_empty', agent_state.record_message(pg_temp.id('a'), pg_temp.id('direct'), pg_temp.id('a3'), 'alone',
                                           '{}')),
    ('m_pub_aud', agent_state.record_message(pg_temp.id('a'), pg_temp.id('public'), pg_temp.id('a2'),
                                             'public but addressed', ARRAY[pg_temp.id('a3')]));
RESET ROLE;
SELECT is(pg_temp.audience(pg_temp.id('m_pub')), NULL, 'null audience in a public conversation means public');
SELECT is(pg_temp.audience(pg_temp.id('m_one')), pg_temp.sorted(pg_temp.id('a1'), pg_temp.id('a2')),
          'the author is always added to the audience');
SELECT is(pg_temp.audience(pg_temp.id('m_dup')),
          pg_temp.sorted(pg_temp.id('a1'), pg_temp.id('a2'), pg_temp.id('a3')),
          'the audience is stored sorted and without duplicates');
SELECT is(pg_temp.audience(pg_temp.id('m_empty')), ARRAY[pg_temp.id('a3')],
          'an empty audience is the author alone');
SELECT is(pg_temp.audience(pg_temp.id('m_pub_aud')), pg_temp.sorted(pg_temp.id('a2'), pg_temp.id('a3')),
          'an explicit audience in a public conversation is kept (with the author)');
SELECT is((SELECT m.author_id || '|' || m.body || '|' || m.conversation_id FROM agent_state.messages AS m
           WHERE m.message_id = pg_temp.id('m_one')),
          pg_temp.id('a1') || '|to a2|' || pg_temp.id('group'), 'author, body and conversation are stored');
SELECT is((SELECT m.created_by::text FROM agent_state.messages AS m WHERE m.message_id = pg_temp.id('m_one')),
          't050_ra', 'messages.created_by is the calling role');
SELECT is((SELECT m.observed_at FROM agent_state.messages AS m WHERE m.message_id = pg_temp.id('m_one')),
          now(), 'observed_at defaults to now()');

-- ---------------------------------------------------------------- external_ref idempotency
SET ROLE t050_ra;
INSERT INTO pg_temp.ids VALUES
    ('m_ext', agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'first delivery',
                                         ARRAY[pg_temp.id('a2')], 'slack-ts-1', '2024-05-01 10:00:00+00'));
SELECT is(agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'first delivery',
                                     ARRAY[pg_temp.id('a2')], 'slack-ts-1', '2024-05-01 10:00:00+00'),
          pg_temp.id('m_ext'), 'recording the same external message again returns the existing id');
SELECT is(agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a2'), 'changed text',
                                     ARRAY[pg_temp.id('a3')], 'slack-ts-1', '2024-06-01 10:00:00+00'),
          pg_temp.id('m_ext'), 'a redelivery with different content still returns the existing id');
SELECT isnt(agent_state.record_message(pg_temp.id('a'), pg_temp.id('direct'), pg_temp.id('a1'), 'other conv',
                                       ARRAY[pg_temp.id('a2')], 'slack-ts-1'),
            pg_temp.id('m_ext'), 'the same external_ref in another conversation is another message');
SELECT isnt(agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'no ref',
                                       ARRAY[pg_temp.id('a2')]),
            agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'no ref',
                                       ARRAY[pg_temp.id('a2')]),
            'without external_ref every call records a new message');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.messages AS m
           WHERE m.runtime_agent_id = pg_temp.id('a') AND m.conversation_id = pg_temp.id('group')
             AND m.external_ref = 'slack-ts-1'),
          1::bigint, 'one row for the redelivered message');
SELECT is((SELECT m.body || '|' || m.observed_at::text FROM agent_state.messages AS m
           WHERE m.message_id = pg_temp.id('m_ext')),
          'first delivery|' || '2024-05-01 10:00:00+00'::timestamptz::text,
          'the first delivery''s body and observed_at are kept');
SELECT is(pg_temp.audience(pg_temp.id('m_ext')), pg_temp.sorted(pg_temp.id('a1'), pg_temp.id('a2')),
          'the audience never changes after the event is recorded');
SELECT throws_ok($$UPDATE agent_state.messages SET audience = NULL WHERE message_id = pg_temp.id('m_ext')$$,
                 '42501', NULL, 'not even a superuser can change a recorded audience');

-- ---------------------------------------------------------------- unknown and foreign references
UPDATE before_rows SET n = pg_temp.message_rows();
SET ROLE t050_ra;
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), '00000000-0000-0000-0000-000000000050',
                   pg_temp.id('a1'), 'x', ARRAY[pg_temp.id('a1')])$$,
                 'P0002', NULL, 'unknown conversation: P0002');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'),
                   '00000000-0000-0000-0000-000000000050', 'x', ARRAY[pg_temp.id('a1')])$$,
                 'P0002', NULL, 'unknown author: P0002');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'x',
                   ARRAY[pg_temp.id('a2'), '00000000-0000-0000-0000-000000000050'])$$,
                 'P0002', NULL, 'unknown audience member: P0002');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('cb'), pg_temp.id('a1'), 'x',
                   ARRAY[pg_temp.id('a1')])$$,
                 '23503', NULL, 'another perspective''s conversation: 23503');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('b1'), 'x',
                   ARRAY[pg_temp.id('a1')])$$,
                 '23503', NULL, 'another perspective''s author: 23503');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'x',
                   ARRAY[pg_temp.id('a2'), pg_temp.id('b1')])$$,
                 '23503', NULL, 'another perspective''s actor in the audience: 23503');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('public'), pg_temp.id('a1'), 'x',
                   ARRAY[pg_temp.id('b1')])$$,
                 '23503', NULL, 'a foreign actor in an explicit public audience: 23503');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('b'), pg_temp.id('cb'), pg_temp.id('b1'), 'x',
                   ARRAY[pg_temp.id('b1')])$$,
                 '42501', NULL, 'recording in a perspective the runtime does not host: 42501');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'x',
                   ARRAY[pg_temp.id('a2')], 'slack-ts-1', NULL)$$,
                 '22004', NULL, 'observed_at null: 22004');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'x',
                   ARRAY[pg_temp.id('a2'), NULL])$$,
                 '22004', NULL, 'an audience containing null: 22004');
RESET ROLE;
SELECT is(pg_temp.message_rows(), (SELECT n FROM before_rows), 'no refused message was written');

-- The message of B is untouched and B's runtime sees its own world only.
SET ROLE t050_rb;
SELECT isnt(agent_state.open_conversation(pg_temp.id('b'), 'slack', 'P-1', 'public'), pg_temp.id('public'),
            'B opening A''s public conversation key gets its own conversation');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('b'), pg_temp.id('public'), pg_temp.id('b1'), 'x')$$,
                 '23503', NULL, 'B cannot post into A''s public conversation');
RESET ROLE;

-- Unicode, quotes and multi-line bodies survive.
SET ROLE t050_ra;
INSERT INTO pg_temp.ids VALUES ('m_text', agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'),
    pg_temp.id('a1'), E'Grüße, "quoted" \'single\' \\ back\nline two\t😀', ARRAY[pg_temp.id('a2')],
    E'ext \'ref\' ü'));
SELECT is(agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'), pg_temp.id('a1'), 'again',
                                     ARRAY[pg_temp.id('a2')], E'ext \'ref\' ü'),
          pg_temp.id('m_text'), 'a Unicode external_ref is matched exactly');
RESET ROLE;
SELECT is((SELECT m.body FROM agent_state.messages AS m WHERE m.message_id = pg_temp.id('m_text')),
          E'Grüße, "quoted" \'single\' \\ back\nline two\t😀', 'the body round-trips unchanged');

SELECT * FROM finish();
ROLLBACK;
