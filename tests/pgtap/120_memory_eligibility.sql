-- Eligibility (SPEC section 6): which revisions may enter context for a target
-- conversation, through recall and context_for, now and as of a past moment.
BEGIN;
SELECT plan(52);

CREATE ROLE t120_op IN ROLE agent_state_operator;
CREATE ROLE t120_ra IN ROLE agent_state_runtime;
CREATE ROLE t120_rb IN ROLE agent_state_runtime;
\ir _setup.sql
-- The fixture names of a set of entry ids, sorted: readable failures.
CREATE FUNCTION pg_temp.names(es uuid []) RETURNS text [] LANGUAGE sql STABLE AS $$
    SELECT coalesce(ARRAY(
        SELECT coalesce((SELECT i.k FROM pg_temp.ids AS i WHERE i.v = e), e::text)
        FROM pg_catalog.unnest(es) AS e ORDER BY 1), '{}')
$$;
CREATE FUNCTION pg_temp.recall_set(conv uuid, as_of timestamptz DEFAULT NULL) RETURNS text []
LANGUAGE sql AS $$
    SELECT pg_temp.names(ARRAY(
        SELECT r.entry FROM agent_state.recall(pg_temp.id('a'), NULL, conv, NULL, 1000, as_of) AS r))
$$;
CREATE FUNCTION pg_temp.context_set(conv uuid, msg uuid DEFAULT NULL) RETURNS text []
LANGUAGE sql AS $$
    SELECT pg_temp.names(ARRAY(
        SELECT r.entry FROM agent_state.context_for(pg_temp.id('a'), conv, msg, 1000) AS r))
$$;

SET ROLE t120_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t120-a')),
    ('b', agent_state.create_agent('t120-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't120_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't120_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'alice')),
    ('bob', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'bob')),
    ('carol', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'carol')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'alice')),
    ('dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'DM', 'direct')),
    ('g_sub', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'G-sub', 'group')),
    ('g_wide', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'G-wide', 'group')),
    ('g_latest', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'G-latest', 'group')),
    ('pub', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'PUB', 'public')),
    ('empty', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'EMPTY', 'group')),
    ('b_conv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'DM', 'direct'));
SELECT pg_temp.mark('t0');
INSERT INTO pg_temp.ids VALUES
    ('m_dm', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('alice'),
        'my new job is at the observatory', ARRAY[pg_temp.id('bob')])),
    ('m_sub', agent_state.record_message(pg_temp.id('a'), pg_temp.id('g_sub'), pg_temp.id('bob'),
        'hi alice', ARRAY[pg_temp.id('alice')])),
    ('m_wide', agent_state.record_message(pg_temp.id('a'), pg_temp.id('g_wide'), pg_temp.id('carol'),
        'hi all', ARRAY[pg_temp.id('alice'), pg_temp.id('bob')])),
    ('m_pub', agent_state.record_message(pg_temp.id('a'), pg_temp.id('pub'), pg_temp.id('carol'),
        'the observatory opens on Monday')),
    ('m_b', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'),
        'B', ARRAY[pg_temp.id('b_actor')]));
-- g_latest: the latest message by observed_at was recorded first.
INSERT INTO pg_temp.ids VALUES
    ('m_latest_narrow', agent_state.record_message(pg_temp.id('a'), pg_temp.id('g_latest'), pg_temp.id('alice'),
        'just us', ARRAY[pg_temp.id('bob')], NULL, now() + interval '1 minute')),
    ('m_latest_wide_old', agent_state.record_message(pg_temp.id('a'), pg_temp.id('g_latest'), pg_temp.id('carol'),
        'earlier, with carol', ARRAY[pg_temp.id('alice'), pg_temp.id('bob')], NULL, now() - interval '1 hour'));
RESET ROLE;

SET ROLE t120_ra;
INSERT INTO pg_temp.ids
SELECT 'e_dm', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice works at the observatory',
                                                 pg_temp.id('m_dm'), pg_temp.id('alice')) AS r;
SELECT pg_temp.mark('t1');
INSERT INTO pg_temp.ids
SELECT 'e_pub', r.entry FROM agent_state.remember(pg_temp.id('a'), 'The observatory opens on Monday',
                                                  pg_temp.id('m_pub')) AS r;
INSERT INTO pg_temp.ids
SELECT 'e_conv', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice told only Bob about the job',
                                                   pg_temp.id('m_dm'), pg_temp.id('alice'), 'conversation') AS r;
INSERT INTO pg_temp.ids
SELECT 'e_forgot', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice dislikes telescopes',
                                                     pg_temp.id('m_pub')) AS r;
RESET ROLE;
SET ROLE t120_op;
INSERT INTO pg_temp.ids
SELECT 'e_note', r.entry FROM agent_state.note(pg_temp.id('a'), 'The observatory is on the hill') AS r;
RESET ROLE;
SET ROLE t120_ra;
SELECT pg_temp.mark('t2');
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e_forgot')) \g /dev/null
SELECT pg_temp.mark('t3');

-- ---------------------------------------------------------------- the audience rule
SELECT is(pg_temp.recall_set(NULL), ARRAY['e_note', 'e_pub'],
          'no target conversation: only operator notes and all-public evidence');
SELECT is(pg_temp.recall_set(pg_temp.id('empty')), ARRAY['e_note', 'e_pub'],
          'a conversation without messages: only operator notes and all-public evidence');
SELECT is(pg_temp.recall_set(pg_temp.id('dm')), ARRAY['e_conv', 'e_dm', 'e_note', 'e_pub'],
          'the DM itself: the DM memory, the conversation-visibility memory, notes, public');
SELECT is(pg_temp.recall_set(pg_temp.id('g_sub')), ARRAY['e_dm', 'e_note', 'e_pub'],
          'a group whose audience could observe the DM: the DM memory is eligible');
SELECT is(pg_temp.recall_set(pg_temp.id('g_wide')), ARRAY['e_note', 'e_pub'],
          'a group with someone who could not observe the DM: the DM memory is not recalled');
SELECT is(pg_temp.recall_set(pg_temp.id('pub')), ARRAY['e_note', 'e_pub'],
          'a public audience admits only public evidence and operator notes');
SELECT ok(NOT 'e_conv' = ANY (pg_temp.recall_set(pg_temp.id('g_sub'))),
          'conversation visibility: never outside its own conversation, even for a subset audience');
SELECT is(pg_temp.recall_set(pg_temp.id('g_latest')), ARRAY['e_dm', 'e_note', 'e_pub'],
          'the target audience is that of the latest message by observed_at, not the last recorded');
SELECT ok(NOT 'e_forgot' = ANY (pg_temp.recall_set(pg_temp.id('pub'))), 'a forgotten entry never surfaces');

-- context_for agrees with recall on every target
SELECT is(pg_temp.context_set(pg_temp.id('dm')), pg_temp.recall_set(pg_temp.id('dm')),
          'context_for and recall agree: DM');
SELECT is(pg_temp.context_set(pg_temp.id('g_sub')), pg_temp.recall_set(pg_temp.id('g_sub')),
          'context_for and recall agree: subset group');
SELECT is(pg_temp.context_set(pg_temp.id('g_wide')), pg_temp.recall_set(pg_temp.id('g_wide')),
          'context_for and recall agree: wider group');
SELECT is(pg_temp.context_set(pg_temp.id('pub')), pg_temp.recall_set(pg_temp.id('pub')),
          'context_for and recall agree: public');
SELECT is(pg_temp.context_set(pg_temp.id('empty')), pg_temp.recall_set(pg_temp.id('empty')),
          'context_for and recall agree: conversation without messages');
SELECT is(pg_temp.context_set(pg_temp.id('g_latest')), pg_temp.recall_set(pg_temp.id('g_latest')),
          'context_for and recall agree: latest by observed_at');
SELECT is(pg_temp.context_set(pg_temp.id('g_latest'), pg_temp.id('m_latest_wide_old')), ARRAY['e_note', 'e_pub'],
          'context_for with a message: that message''s audience is the target');
SELECT is(pg_temp.context_set(pg_temp.id('g_latest'), pg_temp.id('m_latest_narrow')),
          ARRAY['e_dm', 'e_note', 'e_pub'], 'context_for with the narrow message admits the DM memory');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('a'), 'observatory', pg_temp.id('g_wide'))),
          2::bigint, 'a query cannot reach an ineligible revision (2 of the 3 observatory memories)');

-- ---------------------------------------------------------------- grants
RESET ROLE;
SET ROLE t120_op;
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e_dm'), 1, pg_temp.id('g_wide')) \g /dev/null
RESET ROLE;
SET ROLE t120_ra;
SELECT is(pg_temp.recall_set(pg_temp.id('g_wide')), ARRAY['e_dm', 'e_note', 'e_pub'],
          'a grant makes that revision eligible in that conversation');
SELECT is(pg_temp.context_set(pg_temp.id('g_wide')), ARRAY['e_dm', 'e_note', 'e_pub'],
          'context_for honours the grant too');
SELECT is(pg_temp.recall_set(pg_temp.id('pub')), ARRAY['e_note', 'e_pub'],
          'a grant is for its conversation only');
SELECT is(agent_state.amend(pg_temp.id('a'), pg_temp.id('e_dm'), 'Alice works at the hill observatory', 1), 2,
          'amend the shared entry');
SELECT is(pg_temp.recall_set(pg_temp.id('g_wide')), ARRAY['e_note', 'e_pub'],
          'an amended revision has no grant until granted again');
RESET ROLE;
SET ROLE t120_op;
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e_dm'), 2, pg_temp.id('g_wide')) \g /dev/null
RESET ROLE;
SET ROLE t120_ra;
SELECT is(pg_temp.recall_set(pg_temp.id('g_wide')), ARRAY['e_dm', 'e_note', 'e_pub'],
          'granting the new revision makes it eligible again');
RESET ROLE;
SET ROLE t120_op;
SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('e_dm'), 2, pg_temp.id('g_wide')) \g /dev/null
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e_dm'), 2, pg_temp.id('empty')) \g /dev/null
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e_forgot'), 2, pg_temp.id('g_wide')) \g /dev/null
RESET ROLE;
SET ROLE t120_ra;
SELECT is(pg_temp.recall_set(pg_temp.id('g_wide')), ARRAY['e_note', 'e_pub'],
          'unshare removes eligibility; a grant of a forgotten entry''s revision admits nothing');
SELECT is(pg_temp.recall_set(pg_temp.id('empty')), ARRAY['e_note', 'e_pub'],
          'a grant to a conversation without messages admits nothing (no audience yet)');

-- ---------------------------------------------------------------- as_of
SELECT is(pg_temp.recall_set(pg_temp.id('dm'), pg_temp.t('t0')), '{}'::text [],
          'as_of before anything was remembered: nothing');
SELECT is(pg_temp.recall_set(pg_temp.id('dm'), pg_temp.t('t1')), ARRAY['e_dm'],
          'as_of just after the first remember: only that entry');
SELECT is((SELECT r.body FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('dm'), NULL, 10, pg_temp.t('t1')) AS r),
          'Alice works at the observatory', 'as_of answers with the revision current then');
SELECT is((SELECT r.revision FROM agent_state.recall(pg_temp.id('a'), NULL, pg_temp.id('dm'), NULL, 10, pg_temp.t('t1')) AS r),
          1, '... and its revision number');
SELECT ok('e_forgot' = ANY (pg_temp.recall_set(pg_temp.id('pub'), pg_temp.t('t2'))),
          'as_of before the forget: the entry was live then');
SELECT ok(NOT 'e_forgot' = ANY (pg_temp.recall_set(pg_temp.id('pub'), pg_temp.t('t3'))),
          'as_of after the forget: gone');
SELECT is(pg_temp.recall_set(pg_temp.id('g_wide'), pg_temp.t('t3')), ARRAY['e_note', 'e_pub'],
          'as_of applies the audience rule to the past state');
SELECT is(pg_temp.recall_set(pg_temp.id('dm'), pg_temp.t('t0')), '{}'::text [],
          'as_of before the target''s messages existed');
SELECT is(pg_temp.recall_set(NULL, pg_temp.t('t3')), ARRAY['e_note', 'e_pub'],
          'as_of without a conversation: notes and public evidence');
SELECT is((SELECT r.age FROM agent_state.recall(pg_temp.id('a'), NULL, NULL, NULL, 10, pg_temp.t('t3')) AS r
           WHERE r.entry = pg_temp.id('e_note')),
          pg_temp.t('t3') - (SELECT h.created_at FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e_note')) AS h),
          'as_of: age is as_of minus the revision''s creation');
SELECT is((SELECT r.body FROM agent_state.recall(pg_temp.id('a'), 'observatory', pg_temp.id('g_sub'), NULL, 10, clock_timestamp()) AS r
           WHERE r.entry = pg_temp.id('e_dm')),
          'Alice works at the hill observatory', 'as_of now with a query: the amended text');

-- ---------------------------------------------------------------- perspectives and arguments
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', pg_temp.id('b_conv'))$$,
                 '23503', NULL, 'recall with another perspective''s conversation: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', gen_random_uuid())$$,
                 'P0002', NULL, 'recall with an unknown conversation: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'x', NULL, pg_temp.id('b_actor'))$$,
                 '23503', NULL, 'recall with another perspective''s actor as current_subject: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('b_conv'))$$,
                 '23503', NULL, 'context_for with another perspective''s conversation: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), gen_random_uuid())$$,
                 'P0002', NULL, 'context_for with an unknown conversation: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), NULL)$$,
                 '22004', NULL, 'context_for without a conversation: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('m_b'))$$,
                 '23503', NULL, 'context_for with another perspective''s message: 23503');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), pg_temp.id('m_pub'))$$,
                 'P0002', NULL, 'context_for with a message of another conversation: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'), gen_random_uuid())$$,
                 'P0002', NULL, 'context_for with an unknown message: P0002');
RESET ROLE;
SET ROLE t120_rb;
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('a'), 'observatory')$$,
                 '42501', NULL, 'recall by a runtime not hosting the agent: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.context_for(pg_temp.id('a'), pg_temp.id('dm'))$$,
                 '42501', NULL, 'context_for by a runtime not hosting the agent: 42501');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('b'), 'observatory')), 0::bigint,
          'B''s perspective recalls nothing of A''s memory');
RESET ROLE;
SET ROLE t120_op;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('b'), NULL, NULL, NULL, 1000)), 0::bigint,
          'even for an operator, recall for B never returns A''s rows');
SELECT throws_ok($$SELECT * FROM agent_state.recall(gen_random_uuid(), 'x')$$,
                 'P0002', NULL, 'recall for an unknown agent (operator): P0002');
RESET ROLE;

SELECT lives_ok('SET CONSTRAINTS ALL IMMEDIATE', 'every write in this test passes the memory guards');

SELECT * FROM finish();
ROLLBACK;
