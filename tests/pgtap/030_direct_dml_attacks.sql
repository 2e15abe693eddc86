-- Direct DML: a DBA grants table privileges to a runtime login role. Row-level
-- security, composite keys and triggers must still keep it inside the agents it
-- hosts, keep history append-only (even for a superuser) and keep the audit
-- columns honest.
BEGIN;
SET client_min_messages = warning;
SELECT plan(88);

CREATE ROLE t030_op IN ROLE agent_state_operator;
CREATE ROLE t030_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t030_rb LOGIN IN ROLE agent_state_runtime;
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA agent_state
    TO t030_ra, t030_rb, t030_op;
\ir _setup.sql
-- Rows a statement changed, for statements that RLS silently narrows to nothing.
CREATE FUNCTION pg_temp.affected(stmt text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE stmt;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;
-- The SQLSTATE, message and hint a statement fails with.
CREATE FUNCTION pg_temp.refusal(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    msg text;
    hint text;
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN state || ' ' || msg || coalesce(' HINT: ' || nullif(hint, ''), '');
END
$$;
-- For every agent-owned table in the schema (also tables added later): rows the
-- current role can see that belong to an agent other than mine.
CREATE FUNCTION pg_temp.foreign_visible(mine uuid) RETURNS TABLE (tbl text, n bigint)
LANGUAGE plpgsql AS $$
DECLARE
    t regclass;
BEGIN
    FOR t IN
        SELECT c.oid::regclass FROM pg_catalog.pg_class AS c
        JOIN pg_catalog.pg_attribute AS a
          ON a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped
        WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
    LOOP
        tbl := t::text;
        EXECUTE pg_catalog.format('SELECT count(*) FROM %s WHERE runtime_agent_id IS DISTINCT FROM $1', t)
            INTO n USING mine;
        RETURN NEXT;
    END LOOP;
END
$$;
-- Every foundation row, counted by the superuser (who bypasses RLS).
CREATE FUNCTION pg_temp.foundation_rows() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.concat_ws(',',
        (SELECT pg_catalog.count(*) FROM agent_state.agents),
        (SELECT pg_catalog.count(*) FROM agent_state.profile_revisions),
        (SELECT pg_catalog.string_agg(p.settings::text, ',' ORDER BY p.runtime_agent_id, p.revision)
         FROM agent_state.profile_revisions AS p),
        (SELECT pg_catalog.count(*) FROM agent_state.agent_hosts),
        (SELECT pg_catalog.count(*) FROM agent_state.actors),
        (SELECT pg_catalog.count(*) FROM agent_state.actor_identities),
        (SELECT pg_catalog.count(*) FROM agent_state.conversations),
        (SELECT pg_catalog.count(*) FROM agent_state.messages),
        (SELECT pg_catalog.count(*) FROM agent_state.persona_revisions),
        (SELECT pg_catalog.string_agg(r.runtime_agent_id || ':' || r.revision, ' ' ORDER BY 1)
         FROM agent_state.persona_revisions AS r WHERE r.is_active),
        (SELECT pg_catalog.count(*) FROM agent_state.persona_activations))
$$;

-- Fixture: A and B with actors, a conversation, a message and persona revisions.
SET ROLE t030_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t030-a')),
    ('b', agent_state.create_agent('t030-b')),
    ('c', agent_state.create_agent('t030-c'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't030_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't030_rb') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('a1', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('a2', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2')),
    ('b1', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')),
    ('ca', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1')),
    ('cb', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C1'));
INSERT INTO pg_temp.ids VALUES
    ('ma', agent_state.record_message(pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('a1'), 'hi A',
                                      ARRAY[pg_temp.id('a2')])),
    ('mb', agent_state.record_message(pg_temp.id('b'), pg_temp.id('cb'), pg_temp.id('b1'), 'hi B',
                                      ARRAY[pg_temp.id('b1')]));
SELECT agent_state.revise_persona(pg_temp.id('a'), 'A one'),
       agent_state.revise_persona(pg_temp.id('a'), 'A two'),
       agent_state.revise_persona(pg_temp.id('b'), 'B one'),
       agent_state.revise_persona(pg_temp.id('b'), 'B two', false),
       agent_state.revise_persona(pg_temp.id('b'), 'B three', false) \g /dev/null
RESET ROLE;
-- Run the deferred persona checks now (TRUNCATE refuses tables with pending
-- trigger events before any trigger could speak), then defer again.
SET CONSTRAINTS ALL IMMEDIATE;
SET CONSTRAINTS ALL DEFERRED;

CREATE TEMP TABLE expect AS
SELECT t AS tbl, 0::bigint AS n FROM pg_catalog.unnest(ARRAY['agents', 'agent_hosts', 'actors',
    'actor_identities', 'conversations', 'messages', 'persona_revisions', 'persona_activations']) AS t;
DO $count$
DECLARE
    e record;
BEGIN
    FOR e IN SELECT x.tbl FROM pg_temp.expect AS x LOOP
        EXECUTE pg_catalog.format(
            'UPDATE pg_temp.expect SET n = (SELECT count(*) FROM agent_state.%I WHERE runtime_agent_id = $1) '
            'WHERE tbl = %L', e.tbl, e.tbl) USING pg_temp.id('a');
    END LOOP;
END
$count$;
CREATE TEMP TABLE before_rows AS SELECT pg_temp.foundation_rows() AS v;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;

-- ---------------------------------------------------------------- reading
SET ROLE t030_ra;
SELECT is(
    (SELECT pg_catalog.count(*) FROM agent_state.agents),
    (SELECT n FROM pg_temp.expect WHERE tbl = 'agents'), 'runtime sees exactly its agent row');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.agent_hosts),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'agent_hosts'), 'runtime sees only its agent''s hosting');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actors),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'actors'), 'runtime sees only its agent''s actors (2)');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actor_identities),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'actor_identities'), 'runtime sees only its identities');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.conversations),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'conversations'), 'runtime sees only its conversations');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.messages),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'messages'), 'runtime sees only its messages');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.persona_revisions),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'persona_revisions'), 'runtime sees only its persona');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.persona_activations),
          (SELECT n FROM pg_temp.expect WHERE tbl = 'persona_activations'), 'runtime sees only its activations');
SELECT ok((SELECT pg_catalog.min(n) FROM pg_temp.expect) > 0, 'the fixture gives A rows in every table');
SELECT is_empty($$SELECT * FROM pg_temp.foreign_visible(pg_temp.id('a')) WHERE n > 0$$,
                'no agent-owned table shows the runtime a row of another agent');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.messages WHERE body = 'hi B'), 0::bigint,
          'B''s message cannot be found by its text');
SELECT pg_catalog.set_config('agent_state.agent', pg_temp.id('b')::text, false),
       pg_catalog.set_config('request.jwt.claims', '{"role": "t030_rb"}', false) \g /dev/null
SET application_name = 't030_rb';
SELECT is_empty($$SELECT * FROM pg_temp.foreign_visible(pg_temp.id('a')) WHERE n > 0$$,
                'settings do not widen what the runtime sees');
RESET agent_state.agent;
RESET request.jwt.claims;
RESET application_name;
RESET ROLE;
SET ROLE t030_rb;
SELECT is_empty($$SELECT * FROM pg_temp.foreign_visible(pg_temp.id('b')) WHERE n > 0$$,
                'B''s runtime sees nothing of A');
RESET ROLE;
SET ROLE t030_op;
SELECT cmp_ok((SELECT pg_catalog.count(DISTINCT runtime_agent_id) FROM agent_state.actors), '>=', 2::bigint,
              'an operator with table privileges sees every agent''s rows');
RESET ROLE;

-- ---------------------------------------------------------------- writing another agent's rows
SET ROLE t030_ra;
SELECT throws_ok($$INSERT INTO agent_state.actors (runtime_agent_id, kind) VALUES (pg_temp.id('b'), 'human')$$,
                 '42501', NULL, 'INSERT an actor for B: 42501 (RLS)');
SELECT throws_ok($$INSERT INTO agent_state.actor_identities (runtime_agent_id, connector, external_id, actor_id)
                   VALUES (pg_temp.id('b'), 'github', 'x', pg_temp.id('b1'))$$,
                 '42501', NULL, 'INSERT an identity for B: 42501');
SELECT throws_ok($$INSERT INTO agent_state.conversations (runtime_agent_id, connector, external_ref)
                   VALUES (pg_temp.id('b'), 'slack', 'CX')$$,
                 '42501', NULL, 'INSERT a conversation for B: 42501');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('b'), pg_temp.id('cb'), pg_temp.id('b1'), 'x', ARRAY[pg_temp.id('b1')], now())$$,
                 '42501', NULL, 'INSERT a message for B: 42501');
SELECT is(pg_temp.affected($$UPDATE agent_state.conversations SET kind = 'public' WHERE runtime_agent_id = pg_temp.id('b')$$),
          0::bigint, 'UPDATE of B''s rows finds nothing');
SELECT is(pg_temp.affected($$DELETE FROM agent_state.messages WHERE runtime_agent_id = pg_temp.id('b')$$),
          0::bigint, 'DELETE of B''s rows finds nothing');

-- Operator-only tables: hosting, agents, persona, even for the runtime's own agent.
SELECT throws_ok($$INSERT INTO agent_state.agent_hosts (runtime_agent_id, host, host_name)
                   VALUES (pg_temp.id('b'), 't030_ra'::regrole, 't030_ra')$$,
                 '42501', NULL, 'a runtime cannot give itself hosting of B');
SELECT throws_ok($$INSERT INTO agent_state.agent_hosts (runtime_agent_id, host, host_name)
                   VALUES (pg_temp.id('a'), 't030_rb'::regrole, 't030_rb')$$,
                 '42501', NULL, 'a runtime cannot share hosting of its own agent');
SELECT throws_ok($$INSERT INTO agent_state.agents (handle) VALUES ('t030-evil')$$,
                 '42501', NULL, 'a runtime cannot insert agents');
SELECT throws_ok($$INSERT INTO agent_state.persona_revisions (runtime_agent_id, revision, body)
                   VALUES (pg_temp.id('a'), 3, 'evil persona')$$,
                 '42501', NULL, 'a runtime cannot insert persona revisions for its own agent');
SELECT throws_ok($$INSERT INTO agent_state.persona_activations (runtime_agent_id, revision)
                   VALUES (pg_temp.id('a'), 1)$$,
                 '42501', NULL, 'a runtime cannot log persona activations');
SELECT is(pg_temp.affected($$UPDATE agent_state.persona_revisions SET is_active = NOT is_active$$),
          0::bigint, 'a runtime cannot flip persona activation flags (no row qualifies)');
SELECT throws_ok($$UPDATE agent_state.profile_revisions SET settings = '{"subject_boost": 99}'$$,
                 '42501', NULL, 'a runtime cannot change agent settings in place');
SELECT throws_ok($$INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, settings)
                   VALUES (pg_temp.id('a'), 99, '{"subject_boost": 99}')$$,
                 '42501', NULL, 'nor write a profile revision for its own agent');
SELECT is(pg_temp.affected($$DELETE FROM agent_state.agent_hosts$$),
          0::bigint, 'a runtime cannot delete hosting rows');
SELECT is(pg_temp.affected($$UPDATE agent_state.agent_hosts SET host = 't030_ra'::regrole$$),
          0::bigint, 'a runtime cannot rewrite hosting rows');
SELECT throws_ok($$TRUNCATE agent_state.agent_hosts$$, '42501', NULL,
                 'a runtime with TRUNCATE privilege cannot wipe hosting (TRUNCATE ignores RLS)');
SELECT throws_ok($$TRUNCATE agent_state.agents CASCADE$$, '42501', NULL,
                 'a runtime with TRUNCATE privilege cannot wipe agents');
RESET ROLE;
SELECT is(pg_temp.foundation_rows(), (SELECT v FROM before_rows), 'the refused writes changed nothing');

-- ---------------------------------------------------------------- cross-perspective references
SET ROLE t030_ra;
SELECT throws_ok($$INSERT INTO agent_state.actor_identities (runtime_agent_id, connector, external_id, actor_id)
                   VALUES (pg_temp.id('a'), 'github', 'x', pg_temp.id('b1'))$$,
                 '23503', NULL, 'an identity of A pointing at B''s actor: 23503');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('cb'), pg_temp.id('a1'), 'x', ARRAY[pg_temp.id('a1')], now())$$,
                 '23503', NULL, 'a message of A in B''s conversation: 23503');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('b1'), 'x', ARRAY[pg_temp.id('b1')], now())$$,
                 '23503', NULL, 'a message of A authored by B''s actor: 23503');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('a1'), 'x',
                           ARRAY[pg_temp.id('a1'), pg_temp.id('b1')], now())$$,
                 '23503', NULL, 'a message of A whose audience names B''s actor: 23503');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('a1'), 'x',
                           ARRAY[pg_temp.id('a1'), gen_random_uuid()], now())$$,
                 '23503', NULL, 'a message whose audience names no actor at all: 23503');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('a1'), 'x', NULL, now())$$,
                 '22004', NULL, 'a public (null) audience in a group conversation: 22004');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('a1'), 'x', ARRAY[pg_temp.id('a2')], now())$$,
                 '23514', NULL, 'an audience without the author: 23514');
SELECT throws_ok($$INSERT INTO agent_state.messages (runtime_agent_id, conversation_id, author_id, body, audience, observed_at)
                   VALUES (pg_temp.id('a'), pg_temp.id('ca'), pg_temp.id('a1'), 'x',
                           ARRAY[pg_temp.id('a1'), NULL], now())$$,
                 '23514', NULL, 'an audience containing null: 23514');
RESET ROLE;
-- The composite keys hold for the superuser too.
SELECT throws_ok($$INSERT INTO agent_state.persona_activations (runtime_agent_id, revision)
                   VALUES (pg_temp.id('a'), 3)$$,
                 '23503', NULL, 'activation of A naming a revision only B has: 23503 (superuser)');
SELECT throws_ok($$INSERT INTO agent_state.actor_identities (runtime_agent_id, connector, external_id, actor_id)
                   VALUES (pg_temp.id('c'), 'github', 'x', pg_temp.id('a1'))$$,
                 '23503', NULL, 'identity of C pointing at A''s actor: 23503 (superuser)');
SELECT is(pg_temp.foundation_rows(), (SELECT v FROM before_rows), 'the cross-perspective writes changed nothing');

-- ---------------------------------------------------------------- legitimate direct writes, honest audit
SET ROLE t030_ra;
INSERT INTO agent_state.actors (runtime_agent_id, actor_id, kind, created_at, created_by)
VALUES (pg_temp.id('a'), '00000000-0000-0000-0000-00000000a030', 'bot', '2000-01-01', 'mallory');
RESET ROLE;
SELECT is((SELECT x.created_by::text FROM agent_state.actors AS x
           WHERE x.actor_id = '00000000-0000-0000-0000-00000000a030'),
          't030_ra', 'a runtime''s direct INSERT is stamped with the runtime, not the forged created_by');
SELECT ok((SELECT x.created_at > now() - interval '1 hour' FROM agent_state.actors AS x
           WHERE x.actor_id = '00000000-0000-0000-0000-00000000a030'),
          'created_at cannot be backdated');
INSERT INTO agent_state.conversations (runtime_agent_id, conversation_id, connector, external_ref, created_at, created_by)
VALUES (pg_temp.id('a'), '00000000-0000-0000-0000-00000000c030', 'slack', 'C-forged', '2999-01-01', 't030_rb');
SELECT is((SELECT x.created_by::text FROM agent_state.conversations AS x
           WHERE x.conversation_id = '00000000-0000-0000-0000-00000000c030'),
          session_user::text, 'a superuser''s direct INSERT is stamped with the real caller too');
SELECT ok((SELECT x.created_at < '2999-01-01' FROM agent_state.conversations AS x
           WHERE x.conversation_id = '00000000-0000-0000-0000-00000000c030'),
          'created_at cannot be post-dated');
SET ROLE t030_op;
SELECT agent_state.grant_hosting(pg_temp.id('c'), 't030_rb') \g /dev/null
RESET ROLE;
SELECT is((SELECT h.created_by::text FROM agent_state.agent_hosts AS h
           WHERE h.runtime_agent_id = pg_temp.id('c')),
          't030_op', 'hosting rows are stamped with the granting operator');
UPDATE before_rows SET v = pg_temp.foundation_rows();

-- ---------------------------------------------------------------- append-only, even for a superuser
SELECT throws_ok(s, '42501', NULL, d)
FROM (VALUES
    ($$UPDATE agent_state.actors SET display_name = 'x' WHERE runtime_agent_id = pg_temp.id('a')$$,
     'UPDATE actors: 42501'),
    ($$UPDATE agent_state.actors SET runtime_agent_id = pg_temp.id('b') WHERE actor_id = pg_temp.id('a2')$$,
     'moving an actor to another agent: 42501'),
    ($$DELETE FROM agent_state.actors WHERE actor_id = '00000000-0000-0000-0000-00000000a030'$$,
     'DELETE actors: 42501'),
    ($$TRUNCATE agent_state.actors CASCADE$$, 'TRUNCATE actors: 42501'),
    ($$UPDATE agent_state.actor_identities SET actor_id = pg_temp.id('a2') WHERE actor_id = pg_temp.id('a1')$$,
     'relinking an identity by UPDATE: 42501'),
    ($$DELETE FROM agent_state.actor_identities$$, 'DELETE actor_identities: 42501'),
    ($$TRUNCATE agent_state.actor_identities$$, 'TRUNCATE actor_identities: 42501'),
    ($$UPDATE agent_state.conversations SET kind = 'public'$$, 'changing a conversation''s kind: 42501'),
    ($$DELETE FROM agent_state.conversations WHERE conversation_id = '00000000-0000-0000-0000-00000000c030'$$,
     'DELETE conversations: 42501'),
    ($$TRUNCATE agent_state.conversations CASCADE$$, 'TRUNCATE conversations: 42501'),
    ($$UPDATE agent_state.messages SET audience = ARRAY[author_id]$$, 'rewriting a message audience: 42501'),
    ($$UPDATE agent_state.messages SET body = 'edited'$$, 'editing a message body: 42501'),
    ($$DELETE FROM agent_state.messages$$, 'DELETE messages: 42501'),
    ($$TRUNCATE agent_state.messages CASCADE$$, 'TRUNCATE messages: 42501'),
    ($$UPDATE agent_state.persona_revisions SET body = 'rewritten' WHERE runtime_agent_id = pg_temp.id('a')$$,
     'rewriting a persona revision body: 42501'),
    ($$UPDATE agent_state.persona_revisions SET created_by = 'mallory'$$, 'rewriting persona created_by: 42501'),
    ($$UPDATE agent_state.persona_revisions SET revision = revision + 10$$, 'renumbering persona revisions: 42501'),
    ($$DELETE FROM agent_state.persona_revisions WHERE runtime_agent_id = pg_temp.id('b') AND revision = 3$$,
     'DELETE persona_revisions: 42501'),
    ($$TRUNCATE agent_state.persona_revisions CASCADE$$, 'TRUNCATE persona_revisions: 42501'),
    ($$UPDATE agent_state.persona_activations SET revision = 1$$, 'rewriting the activation log: 42501'),
    ($$DELETE FROM agent_state.persona_activations$$, 'DELETE persona_activations: 42501'),
    ($$TRUNCATE agent_state.persona_activations$$, 'TRUNCATE persona_activations: 42501')
) AS v (s, d);
SELECT is(pg_temp.foundation_rows(), (SELECT v FROM before_rows), 'history is intact after the superuser''s attempts');
SET ROLE t030_ra;
SELECT throws_ok($$DELETE FROM agent_state.messages WHERE runtime_agent_id = pg_temp.id('a')$$, '42501',
                 NULL, 'a runtime cannot delete its own agent''s messages');
SELECT throws_ok($$UPDATE agent_state.actors SET kind = 'bot' WHERE runtime_agent_id = pg_temp.id('a')$$, '42501',
                 NULL, 'a runtime cannot update its own agent''s actors');
SELECT throws_ok($$TRUNCATE agent_state.messages CASCADE$$, '42501',
                 NULL, 'a runtime with TRUNCATE privilege cannot truncate messages');
-- Every guard refuses with one message shape, "<table>: <operation> <rule>", and
-- the hint that names the allowed way when there is one (_refuse_write).
SELECT is(pg_temp.refusal($$DELETE FROM agent_state.messages WHERE runtime_agent_id = pg_temp.id('a')$$),
          '42501 messages: delete is append-only; history is never rewritten HINT: Write a new revision instead.',
          'the append-only refusal: table, operation, rule and hint');
SELECT is(pg_temp.refusal($$TRUNCATE agent_state.agent_hosts$$),
          '42501 agent_hosts: truncate is only for agent_state operators (it ignores row-level security)',
          'the truncate refusal: the same shape, no hint');
RESET ROLE;

-- ---------------------------------------------------------------- persona invariant under direct DML
SET ROLE t030_op;
SELECT throws_ok($$UPDATE agent_state.persona_revisions SET is_active = true
                   WHERE runtime_agent_id = pg_temp.id('a') AND revision = 1$$,
                 '23505', NULL, 'two active revisions: refused at once by the partial unique index');
SELECT throws_ok($$UPDATE agent_state.persona_revisions SET is_active = false
                   WHERE runtime_agent_id = pg_temp.id('a');
                   SET CONSTRAINTS ALL IMMEDIATE$$,
                 '23514', NULL, 'zero active revisions: refused at SET CONSTRAINTS ALL IMMEDIATE');
SELECT throws_ok($$UPDATE agent_state.persona_revisions SET is_active = false
                   WHERE runtime_agent_id = pg_temp.id('a') AND revision = 2;
                   UPDATE agent_state.persona_revisions SET is_active = true
                   WHERE runtime_agent_id = pg_temp.id('a') AND revision = 1;
                   SET CONSTRAINTS ALL IMMEDIATE$$,
                 '23514', NULL, 'switching the flag without logging the activation: refused');
SELECT throws_ok($$INSERT INTO agent_state.persona_activations (runtime_agent_id, revision)
                   VALUES (pg_temp.id('a'), 1);
                   SET CONSTRAINTS ALL IMMEDIATE$$,
                 '23514', NULL, 'logging an activation without switching the flag: refused');
SELECT throws_ok($$INSERT INTO agent_state.persona_revisions (runtime_agent_id, revision, body)
                   VALUES (pg_temp.id('c'), 1, 'inactive first revision');
                   SET CONSTRAINTS ALL IMMEDIATE$$,
                 '23514', NULL, 'a first revision that is not active: refused');
SELECT lives_ok($$UPDATE agent_state.persona_revisions SET is_active = false
                  WHERE runtime_agent_id = pg_temp.id('a') AND revision = 2;
                  UPDATE agent_state.persona_revisions SET is_active = true
                  WHERE runtime_agent_id = pg_temp.id('a') AND revision = 1;
                  INSERT INTO agent_state.persona_activations (runtime_agent_id, revision)
                  VALUES (pg_temp.id('a'), 1);
                  SET CONSTRAINTS ALL IMMEDIATE$$,
                'an operator''s consistent direct switch (flags and log) is accepted');
SELECT is((SELECT revision FROM agent_state.active_persona(pg_temp.id('a'))), 1,
          'active_persona follows the direct switch');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.persona_activations AS x
           WHERE x.runtime_agent_id = pg_temp.id('a') AND x.created_by = 't030_op'), 3::bigint,
          'the direct activation is logged with the operator as created_by');
RESET ROLE;
SELECT lives_ok($$SET CONSTRAINTS ALL IMMEDIATE$$, 'the transaction as a whole satisfies every deferred check');

-- ---------------------------------------------------------------- revocation reaches direct access
SET ROLE t030_op;
SELECT agent_state.revoke_hosting(pg_temp.id('a'), 't030_ra') \g /dev/null
RESET ROLE;
SET ROLE t030_ra;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.messages), 0::bigint,
          'after revoke_hosting the runtime sees no rows on the next statement');
SELECT throws_ok($$INSERT INTO agent_state.actors (runtime_agent_id, kind) VALUES (pg_temp.id('a'), 'human')$$,
                 '42501', NULL, 'after revoke_hosting the runtime cannot insert rows for the agent');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
