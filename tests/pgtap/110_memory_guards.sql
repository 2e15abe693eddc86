-- Memory invariants held by the database, not by the functions: direct DML as a
-- superuser that does not own the schema (session_replication_role untouched, so
-- triggers fire; the owner's writes are the product's own, see _own_write and
-- 520_own_writes.sql) and as a runtime role granted table privileges. Deferred checks are forced with
-- SET CONSTRAINTS ALL IMMEDIATE inside pg_temp.at_commit.
BEGIN;
SELECT plan(51);

CREATE ROLE t110_op IN ROLE agent_state_operator;
CREATE ROLE t110_dba SUPERUSER;
CREATE ROLE t110_ra IN ROLE agent_state_runtime;
GRANT ALL ON ALL TABLES IN SCHEMA agent_state TO t110_ra;
\ir _setup.sql
-- Run a statement and then every pending deferred check, as at commit.
CREATE FUNCTION pg_temp.at_commit(stmt text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    SET CONSTRAINTS ALL IMMEDIATE;
    SET CONSTRAINTS ALL DEFERRED;
END
$$;
CREATE FUNCTION pg_temp.affected(stmt text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE stmt;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
CREATE FUNCTION pg_temp.memory_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.memory_entries)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_revisions)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_evidence)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_shares)
         + (SELECT pg_catalog.count(*) FROM agent_state.memory_redactions)
$$;

SET ROLE t110_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t110-a')),
    ('b', agent_state.create_agent('t110-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't110_ra') \g /dev/null
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
        'private to alice and bob', ARRAY[pg_temp.id('bob')])),
    ('m_pub', agent_state.record_message(pg_temp.id('a'), pg_temp.id('pub'), pg_temp.id('carol'),
        'public words')),
    ('m_b', agent_state.record_message(pg_temp.id('b'), pg_temp.id('b_conv'), pg_temp.id('b_actor'),
        'B words', ARRAY[pg_temp.id('b_actor')]));
INSERT INTO pg_temp.ids VALUES ('e_forged', gen_random_uuid());
INSERT INTO pg_temp.ids
SELECT 'e1', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice is private', pg_temp.id('m_dm'),
                                               pg_temp.id('alice')) AS r;
INSERT INTO pg_temp.ids
SELECT 'e_forgot', r.entry FROM agent_state.remember(pg_temp.id('a'), 'to be forgotten', pg_temp.id('m_dm')) AS r;
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('e_forgot')) \g /dev/null
INSERT INTO pg_temp.ids
SELECT 'e_b', r.entry FROM agent_state.remember(pg_temp.id('b'), 'B memory', pg_temp.id('m_b')) AS r;
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e1'), 1, pg_temp.id('group')) \g /dev/null
RESET ROLE;
-- Settle the pending checks of the fixture (TRUNCATE refuses tables with pending
-- trigger events before any trigger could speak), then defer again.
SET CONSTRAINTS ALL IMMEDIATE;
SET CONSTRAINTS ALL DEFERRED;
CREATE TEMP TABLE before_rows AS SELECT pg_temp.memory_rows() AS n;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t110_dba;

-- ---------------------------------------------------------------- superuser: history is immutable
SELECT throws_ok($$UPDATE agent_state.memory_revisions SET body = 'rewritten' WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'UPDATE of a revision body: 42501, even for a superuser');
SELECT throws_ok($$UPDATE agent_state.memory_revisions SET evidence_observers = NULL WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'UPDATE of a revision''s observers: 42501');
SELECT throws_ok($$UPDATE agent_state.memory_revisions SET body = '[redacted]' WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'the redaction rewrite without a memory_redactions row: 42501');
SELECT throws_ok($$DELETE FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'DELETE of revisions: 42501');
SELECT throws_ok($$TRUNCATE agent_state.memory_revisions CASCADE$$, '42501', NULL, 'TRUNCATE of revisions: 42501');
SELECT throws_ok($$UPDATE agent_state.memory_evidence SET message_id = pg_temp.id('m_pub') WHERE entry_id = pg_temp.id('e_forgot')$$,
                 '42501', NULL, 'UPDATE of evidence: 42501');
SELECT throws_ok($$DELETE FROM agent_state.memory_evidence WHERE entry_id = pg_temp.id('e_forgot')$$,
                 '42501', NULL, 'DELETE of evidence: 42501');
SELECT throws_ok($$TRUNCATE agent_state.memory_evidence$$, '42501', NULL, 'TRUNCATE of evidence: 42501');
SELECT throws_ok($$DELETE FROM agent_state.memory_entries WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'DELETE of an entry: 42501 (forget is the soft delete)');
SELECT throws_ok($$TRUNCATE agent_state.memory_entries CASCADE$$, '42501', NULL, 'TRUNCATE of entries: 42501');
SELECT throws_ok($$DELETE FROM agent_state.memory_shares$$, '42501', NULL, 'DELETE of grants: 42501');
SELECT throws_ok($$TRUNCATE agent_state.memory_shares$$, '42501', NULL, 'TRUNCATE of grants: 42501');
SELECT throws_ok($$UPDATE agent_state.memory_shares SET conversation_id = pg_temp.id('pub')$$,
                 '42501', NULL, 'moving a grant to another conversation: 42501');
SELECT lives_ok($$UPDATE agent_state.memory_shares SET revoked_at = now(), revoked_by = 'x' WHERE entry_id = pg_temp.id('e1')$$,
                'revoking a grant by UPDATE is allowed');
SELECT is((SELECT revoked_by FROM agent_state.memory_shares WHERE entry_id = pg_temp.id('e1')), current_user::name,
          '... and the database stamps who revoked it, not the writer');
SELECT throws_ok($$UPDATE agent_state.memory_shares SET revoked_at = NULL, revoked_by = NULL$$,
                 '42501', NULL, 'un-revoking a grant: 42501');
SELECT throws_ok($$UPDATE agent_state.memory_shares SET revoked_at = now() WHERE entry_id = pg_temp.id('e1')$$,
                 '42501', NULL, 'moving the revocation of a revoked grant: 42501');
SELECT lives_ok($$UPDATE agent_state.memory_shares SET revoked_at = revoked_at WHERE entry_id = pg_temp.id('e1')$$,
                'an UPDATE of a grant that changes nothing passes');
SELECT lives_ok($$UPDATE agent_state.memory_revisions SET body = body WHERE entry_id = pg_temp.id('e1')$$,
                'an UPDATE of a revision that changes nothing passes');
INSERT INTO agent_state.memory_imports (runtime_agent_id, document, document_sha256)
VALUES (pg_temp.id('a'), '- imported', 'x');
SELECT throws_ok($$UPDATE agent_state.memory_imports SET document = 'x'$$, '42501', NULL,
                 'UPDATE of an imported document: 42501');

-- ---------------------------------------------------------------- superuser: what commits must be consistent
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body, visibility, source_type, revised_at)
    VALUES (pg_temp.id('a'), 1, 'orphan', 'perspective', 'operator', now())$x$)$$,
    '23503', NULL, 'an entry without a revision fails at commit');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    UPDATE agent_state.memory_entries SET body = 'silently changed' WHERE entry_id = pg_temp.id('e1')$x$)$$,
    '23514', NULL, 'changing an entry''s body without a revision fails at commit');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    UPDATE agent_state.memory_entries SET evidence_observers = NULL WHERE entry_id = pg_temp.id('e1')$x$)$$,
    '23514', NULL, 'making an entry public without a revision fails at commit');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    UPDATE agent_state.memory_entries SET live = true WHERE entry_id = pg_temp.id('e_forgot')$x$)$$,
    '23514', NULL, 'reviving a forgotten entry by UPDATE fails at commit');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    UPDATE agent_state.memory_entries SET current_revision = 1 WHERE entry_id = pg_temp.id('e_forgot')$x$)$$,
    '23514', NULL, 'moving an entry back to an older revision fails at commit');

-- A hand-written entry: correct rows commit; lying rows do not.
-- Direct DML writes evidence first, then the revision and the entry, in one
-- statement (the order the functions use).
CREATE FUNCTION pg_temp.hand_entry(observers uuid [], evidence uuid)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    e uuid := gen_random_uuid();
BEGIN
    WITH v AS (
        INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
        VALUES (pg_temp.id('a'), e, 1, evidence) RETURNING 1),
    r AS (
        INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body,
            visibility, source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        SELECT pg_temp.id('a'), e, 1, 'create', 'hand written', 'perspective', 'agent', pg_temp.id('alice'),
               evidence, observers, ARRAY[pg_temp.id('dm')]
        FROM (SELECT count(*) FROM v) AS x
        RETURNING created_at)
    INSERT INTO agent_state.memory_entries (runtime_agent_id, entry_id, current_revision, body, visibility,
        source_type, evidence_observers, evidence_conversations, revised_at)
    SELECT pg_temp.id('a'), e, 1, 'hand written', 'perspective', 'agent', observers, ARRAY[pg_temp.id('dm')],
           r.created_at
    FROM r;
END
$$;
SELECT lives_ok($$SELECT pg_temp.at_commit($x$SELECT pg_temp.hand_entry(
    ARRAY[pg_temp.id('bob'), pg_temp.id('alice')], pg_temp.id('m_dm'))$x$)$$,
    'consistent direct DML commits (the checks are not blanket refusals)');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$SELECT pg_temp.hand_entry(NULL, pg_temp.id('m_dm'))$x$)$$,
    '23514', NULL, 'a revision claiming public observers for private evidence fails at commit');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$SELECT pg_temp.hand_entry(
    ARRAY[pg_temp.id('alice'), pg_temp.id('bob'), pg_temp.id('carol')], pg_temp.id('m_dm'))$x$)$$,
    '23514', NULL, 'a revision claiming an observer who could not see the evidence fails at commit');

-- The source message column alone is evidence: the same rows without an evidence
-- row commit, and are checked against that message's audience all the same.
CREATE FUNCTION pg_temp.hand_entry_bare(observers uuid [], evidence uuid)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    e uuid := gen_random_uuid();
BEGIN
    WITH r AS (
        INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body,
            visibility, source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        VALUES (pg_temp.id('a'), e, 1, 'create', 'hand written', 'perspective', 'agent', pg_temp.id('alice'),
                evidence, observers, ARRAY[pg_temp.id('dm')])
        RETURNING created_at)
    INSERT INTO agent_state.memory_entries (runtime_agent_id, entry_id, current_revision, body, visibility,
        source_type, evidence_observers, evidence_conversations, revised_at)
    SELECT pg_temp.id('a'), e, 1, 'hand written', 'perspective', 'agent', observers, ARRAY[pg_temp.id('dm')],
           r.created_at
    FROM r;
END
$$;
SELECT lives_ok($$SELECT pg_temp.at_commit($x$SELECT pg_temp.hand_entry_bare(
    ARRAY[pg_temp.id('bob'), pg_temp.id('alice')], pg_temp.id('m_dm'))$x$)$$,
    'a revision whose only evidence is its source message column commits');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$SELECT pg_temp.hand_entry_bare(NULL, pg_temp.id('m_dm'))$x$)$$,
    '23514', NULL, '... and claiming public observers for that private message fails at commit');

-- A revision that drops evidence, follows a forget or forges provenance.
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    WITH v AS (INSERT INTO agent_state.memory_evidence VALUES (pg_temp.id('a'), pg_temp.id('e1'), 2, pg_temp.id('m_pub'))
               RETURNING 1),
    r AS (
        INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body, subject_id,
            visibility, source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        SELECT pg_temp.id('a'), pg_temp.id('e1'), 2, 'amend', 'public now', pg_temp.id('alice'), 'perspective',
               'agent', pg_temp.id('carol'), pg_temp.id('m_pub'), NULL, ARRAY[pg_temp.id('pub')]
        FROM (SELECT count(*) FROM v) AS x
        RETURNING created_at)
    UPDATE agent_state.memory_entries SET current_revision = 2, body = 'public now', evidence_observers = NULL,
        evidence_conversations = ARRAY[pg_temp.id('pub')], revised_at = r.created_at
    FROM r WHERE entry_id = pg_temp.id('e1')$x$)$$,
    '23514', NULL, 'an amendment that drops the private evidence (to look public) fails at commit');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    WITH v AS (INSERT INTO agent_state.memory_evidence
          SELECT runtime_agent_id, entry_id, 3, message_id FROM agent_state.memory_evidence
          WHERE entry_id = pg_temp.id('e_forgot') AND revision = 2
          RETURNING 1),
    r AS (
        INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body,
            visibility, source_type, evidence_observers, evidence_conversations)
        SELECT runtime_agent_id, entry_id, 3, 'amend', 'back from the dead', visibility, 'operator',
               evidence_observers, evidence_conversations
        FROM agent_state.memory_revisions, (SELECT count(*) FROM v) AS x
        WHERE entry_id = pg_temp.id('e_forgot') AND revision = 2
        RETURNING created_at)
    UPDATE agent_state.memory_entries SET current_revision = 3, live = true, body = 'back from the dead',
        source_type = 'operator', revised_at = r.created_at
    FROM r WHERE entry_id = pg_temp.id('e_forgot')$x$)$$,
    '55000', NULL, 'a revision after a forget fails at commit (55000)');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    WITH k AS (SELECT pg_temp.id('e_forged') AS e),
    v AS (INSERT INTO agent_state.memory_evidence SELECT pg_temp.id('a'), k.e, 1, pg_temp.id('m_dm') FROM k
          RETURNING entry_id),
    r AS (
        INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body,
            visibility, source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        SELECT pg_temp.id('a'), v.entry_id, 1, 'create', 'forged author', 'perspective', 'agent',
               pg_temp.id('carol'), pg_temp.id('m_dm'), ARRAY[pg_temp.id('alice'), pg_temp.id('bob')],
               ARRAY[pg_temp.id('dm')]
        FROM v
        RETURNING *)
    INSERT INTO agent_state.memory_entries (runtime_agent_id, entry_id, current_revision, body, visibility,
        source_type, evidence_observers, evidence_conversations, revised_at)
    SELECT r.runtime_agent_id, r.entry_id, 1, r.body, r.visibility, r.source_type, r.evidence_observers,
           r.evidence_conversations, r.created_at FROM r$x$)$$,
    '23514', 'memory_revisions: revision 1 of entry ' || pg_temp.id('e_forged')
             || ' has a source message outside its evidence or a source actor other than its author',
    'a source actor who is not the source message''s author fails at commit');
SELECT throws_ok($$
    WITH v AS (
        INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
        VALUES (pg_temp.id('a'), pg_temp.id('e1'), 7, pg_temp.id('m_b')))
    SELECT 1$$,
    '23503', NULL, 'evidence from another perspective''s message: 23503');

-- Evidence is fixed once its revision row exists (even inside the writing
-- transaction, after its check has run).
SELECT throws_ok($$
    INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
    VALUES (pg_temp.id('a'), pg_temp.id('e1'), 1, pg_temp.id('m_pub'))$$,
    '42501', NULL, 'evidence added to an existing revision: 42501');
SELECT throws_ok($$
    WITH r AS (
        INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body,
            visibility, source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        VALUES (pg_temp.id('a'), gen_random_uuid(), 1, 'create', 'revision first', 'perspective', 'agent',
                pg_temp.id('carol'), pg_temp.id('m_pub'), NULL, ARRAY[pg_temp.id('pub')])
        RETURNING *)
    INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
    SELECT r.runtime_agent_id, r.entry_id, 1, pg_temp.id('m_pub') FROM r$$,
    '42501', NULL, 'evidence written after its revision row, even in one statement: 42501');

-- The redaction rewrite: only with the redaction row of this transaction, only the body.
SELECT lives_ok($$
    INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
    VALUES (pg_temp.id('a'), pg_temp.id('e_forgot'), 'test', '{}');
    UPDATE agent_state.memory_revisions SET body = '[redacted]' WHERE entry_id = pg_temp.id('e_forgot');
    UPDATE agent_state.memory_entries SET body = '[redacted]' WHERE entry_id = pg_temp.id('e_forgot');
    SET CONSTRAINTS ALL IMMEDIATE;
    SET CONSTRAINTS ALL DEFERRED$$,
    'with its memory_redactions row, the marker may replace revision bodies');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
    VALUES (pg_temp.id('a'), pg_temp.id('e1'), 'test', '{}');
    UPDATE agent_state.memory_revisions SET body = '[redacted]', subject_id = NULL WHERE entry_id = pg_temp.id('e1')$x$)$$,
    '42501', NULL, 'the redaction rewrite may change nothing but the body');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
    VALUES (pg_temp.id('a'), pg_temp.id('e1'), 'test', '{}');
    UPDATE agent_state.memory_revisions SET body = 'not the marker' WHERE entry_id = pg_temp.id('e1')$x$)$$,
    '42501', NULL, 'the redaction rewrite may only write the marker');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$
    INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
    VALUES (pg_temp.id('a'), pg_temp.id('e1'), 'test', '{}')$x$)$$,
    '23514', NULL, 'a redaction row that leaves the text in place fails at commit');
SELECT throws_ok($$DELETE FROM agent_state.memory_redactions$$, '42501', NULL, 'DELETE of redactions: 42501');

SELECT is(pg_temp.memory_rows(), (SELECT n FROM before_rows) + 6,
          'the refused superuser writes left nothing behind (only the two consistent hand-written '
          'entries: 3 and 2 rows, and the allowed redaction: 1 row)');

RESET ROLE;

-- ---------------------------------------------------------------- a runtime with table privileges
SET ROLE t110_ra;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_entries WHERE runtime_agent_id <> pg_temp.id('a')),
          0::bigint, 'a runtime sees no other agent''s memory rows');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_revisions WHERE body = 'B memory'),
          0::bigint, 'B''s memory cannot be found by its text');
SELECT throws_ok($$INSERT INTO agent_state.memory_shares (runtime_agent_id, entry_id, revision, conversation_id)
                   VALUES (pg_temp.id('a'), pg_temp.id('e1'), 1, pg_temp.id('pub'))$$,
                 '42501', NULL, 'a runtime cannot create a sharing grant');
SELECT throws_ok($$INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
                   VALUES (pg_temp.id('a'), pg_temp.id('e1'), 'x', '{}')$$,
                 '42501', NULL, 'a runtime cannot write a redaction row');
SELECT throws_ok($$INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body,
                       visibility, source_type)
                   VALUES (pg_temp.id('a'), gen_random_uuid(), 1, 'create', 'fake note', 'perspective', 'operator')$$,
                 '42501', NULL, 'a runtime cannot forge an operator note');
SELECT throws_ok($$INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body, visibility,
                       source_type, revised_at)
                   VALUES (pg_temp.id('b'), 1, 'x', 'perspective', 'agent', now())$$,
                 '42501', NULL, 'a runtime cannot write memory for an agent it does not host');
SELECT is(pg_temp.affected($$UPDATE agent_state.memory_revisions SET body = '[redacted]'$$), 0::bigint,
          'a runtime cannot reach revisions with UPDATE');
SELECT throws_ok($$DELETE FROM agent_state.memory_evidence$$, '42501', NULL,
                 'a runtime cannot delete evidence');
SELECT throws_ok($$SELECT pg_temp.at_commit($x$SELECT pg_temp.hand_entry(NULL, pg_temp.id('m_dm'))$x$)$$,
    '23514', NULL, 'a runtime''s hand-written revision claiming public observers fails at commit');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
