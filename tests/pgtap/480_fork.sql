-- fork_agent and fork_origin (SPEC section 13): a copy of the state as of a
-- moment, with what it rests on, ids and stamps kept, referencing nothing of the
-- origin; erasure follows the data into every agent of the lineage.
BEGIN;
SELECT plan(50);

\ir _setup.sql
-- Every row of an agent's state tables, without the agent column, as text: two
-- agents whose state is equal row for row (ids and stamps included) give equal
-- sets.
-- A fork's records carry chain stamps of its own (its agent is in every digest),
-- so state_rows leaves them out.
CREATE FUNCTION pg_temp.chain_columns() RETURNS text [] LANGUAGE sql IMMUTABLE AS $$
    SELECT ARRAY['chain_at', 'chain_xact', 'chain_digest', 'chain_close_at', 'chain_close_xact', 'chain_close_digest']
$$;
CREATE FUNCTION pg_temp.state_rows(agent uuid, upto timestamptz DEFAULT 'infinity')
RETURNS SETOF text LANGUAGE sql STABLE AS $$
    SELECT 'actor ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.actors AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'identity ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.actor_identities AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'conversation ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.conversations AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'message ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.messages AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'persona ' || (to_jsonb(x) - 'runtime_agent_id' - 'is_active' - pg_temp.chain_columns())::text
    FROM agent_state.persona_revisions AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'activation ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.persona_activations AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'profile ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.profile_revisions AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'grant ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.tool_grants AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'revision ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.memory_revisions AS x
    WHERE x.runtime_agent_id = agent AND x.created_at <= upto
    UNION ALL
    SELECT 'evidence ' || (to_jsonb(x) - 'runtime_agent_id' - pg_temp.chain_columns())::text FROM agent_state.memory_evidence AS x
    JOIN agent_state.memory_revisions AS r USING (runtime_agent_id, entry_id, revision)
    WHERE x.runtime_agent_id = agent AND r.created_at <= upto
$$;

CREATE ROLE t480_op IN ROLE agent_state_operator;
CREATE ROLE t480_op2 IN ROLE agent_state_operator;
CREATE ROLE t480_rt IN ROLE agent_state_runtime;

-- ------------------------------------------------ an origin with a history
SET ROLE t480_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t480-a', 'Origin', '{"subject_boost": 2}'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't480_rt') \g /dev/null
SELECT agent_state.register_tool('t480_search', '1', '{}') \g /dev/null
SELECT agent_state.register_tool('t480_shell', '1', '{}') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be careful') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be careful and kind') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't480_search', true, '{}') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ALICE', 'Alice');
INSERT INTO pg_temp.ids SELECT 'bob', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-BOB', 'Bob');
SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('alice'), 'github', 'alice-gh') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'dm', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'D-ALICE', 'direct');
INSERT INTO pg_temp.ids SELECT 'group', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C-TEAM');
INSERT INTO pg_temp.ids SELECT 'm1', agent_state.record_message(pg_temp.id('a'), pg_temp.id('dm'),
    pg_temp.id('alice'), 'I am vegetarian', ARRAY[pg_temp.id('alice')]);
INSERT INTO pg_temp.ids SELECT 'm2', agent_state.record_message(pg_temp.id('a'), pg_temp.id('group'),
    pg_temp.id('bob'), 'hello team', ARRAY[pg_temp.id('alice'), pg_temp.id('bob')]);
INSERT INTO pg_temp.ids SELECT 'diet', r.entry FROM agent_state.remember(pg_temp.id('a'), 'Alice is vegetarian',
    pg_temp.id('m1'), pg_temp.id('alice')) AS r;
INSERT INTO pg_temp.ids SELECT 'tea', n.entry FROM agent_state.note(pg_temp.id('a'), 'likes green tea') AS n;
INSERT INTO pg_temp.ids SELECT 'plan', n.entry FROM agent_state.note(pg_temp.id('a'), 'the launch plan') AS n;
INSERT INTO pg_temp.ids SELECT 'secret', n.entry FROM agent_state.note(pg_temp.id('a'), 'the secret code') AS n;
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('tea'), 'likes jasmine tea', 1) \g /dev/null
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('plan')) \g /dev/null
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('diet'), 1, pg_temp.id('group')) \g /dev/null
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('tea'), 2, pg_temp.id('group')) \g /dev/null
SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('tea'), 2, pg_temp.id('group')) \g /dev/null
SELECT pg_temp.mark('good');

-- After the good moment: a worse week.
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be reckless') \g /dev/null
SELECT agent_state.revise_profile(pg_temp.id('a'), 'Worse', '{"subject_boost": 50}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't480_shell', true, '{}') \g /dev/null
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('diet'), 'Alice eats anything', 1) \g /dev/null
INSERT INTO pg_temp.ids SELECT 'junk', n.entry FROM agent_state.note(pg_temp.id('a'), 'bad advice') AS n;
INSERT INTO pg_temp.ids SELECT 'carol', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-CAROL');
SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('secret'), 'leaked') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'run', agent_state.start_run(pg_temp.id('a'), pg_temp.id('dm'));
RESET ROLE;

-- ------------------------------------------------ refusals write nothing
CREATE TEMP TABLE agents_before AS SELECT count(*) AS n FROM agent_state.agents;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
SET ROLE t480_rt;
SELECT throws_ok($$SELECT agent_state.fork_agent(pg_temp.id('a'), 't480-x')$$, '42501', NULL,
                 'a runtime cannot fork the agent it hosts');
SELECT throws_ok($$SELECT * FROM agent_state.fork_origin(pg_temp.id('a'))$$, '42501', NULL,
                 'a runtime cannot ask where an agent came from');
RESET ROLE;
SET ROLE t480_op;
SELECT throws_ok($$SELECT agent_state.fork_agent(gen_random_uuid(), 't480-x')$$, 'P0002', NULL,
                 'an unknown agent: P0002');
SELECT throws_ok($$SELECT agent_state.fork_agent(pg_temp.id('a'), NULL)$$, '22004', NULL,
                 'a null handle: 22004');
SELECT throws_ok($$SELECT agent_state.fork_agent(pg_temp.id('a'), 't480-a')$$, '23505', NULL,
                 'a handle already taken: 23505');
SELECT throws_ok($$SELECT agent_state.fork_agent(pg_temp.id('a'), 't480-x', '2000-01-01')$$, '22023', NULL,
                 'a moment before the agent had any state: 22023');
SELECT throws_ok($$SELECT agent_state.fork_agent(pg_temp.id('a'), 't480-x', display_name => ' ')$$, '22023',
                 NULL, 'an empty display name: 22023');
RESET ROLE;
SELECT is((SELECT count(*) FROM agent_state.agents), (SELECT n FROM pg_temp.agents_before),
          'no refused fork created an agent');
SET ROLE t480_op;

-- Between a persona's first revision and its activation there was no persona:
-- a fork of that instant has none, and no half-active one.
SELECT lives_ok($$SELECT agent_state.fork_agent(pg_temp.id('a'), 't480-early',
                      (SELECT created_at FROM agent_state.persona_history(pg_temp.id('a')) WHERE revision = 1))$$,
                'a fork at the instant a first persona revision was written');
SELECT is_empty($$SELECT * FROM agent_state.persona_history(agent_state.find_agent('t480-early'))$$,
                'has no persona: none was active then');

-- ------------------------------------------------ the fork as of the good moment
INSERT INTO pg_temp.ids VALUES ('f', agent_state.fork_agent(pg_temp.id('a'), 't480-f', pg_temp.t('good')));
RESET ROLE;
SELECT set_eq($$SELECT * FROM pg_temp.state_rows(pg_temp.id('f'))$$,
              $$SELECT * FROM pg_temp.state_rows(pg_temp.id('a'), pg_temp.t('good'))$$,
              'the fork holds every row of the state made by then, with ids, numbers and stamps');
SELECT is((SELECT string_agg(DISTINCT created_by::text, ',') FROM agent_state.memory_revisions
           WHERE runtime_agent_id = pg_temp.id('f')), 't480_op',
          'copied revisions keep who made them, not who forked');
SELECT is((SELECT count(*) FROM agent_state.actors WHERE runtime_agent_id = pg_temp.id('f')
           AND actor_id = pg_temp.id('carol')), 0::bigint, 'an actor first seen after the moment is not copied');
SELECT is((SELECT count(*) FROM agent_state.runs WHERE runtime_agent_id = pg_temp.id('f')), 0::bigint,
          'runs are not copied');
SELECT is((SELECT count(*) FROM agent_state.agent_hosts WHERE runtime_agent_id = pg_temp.id('f')), 0::bigint,
          'hosting is not copied');

SET ROLE t480_op;
SELECT results_eq($$SELECT revision, body FROM agent_state.active_persona(pg_temp.id('f'))$$,
                  $$SELECT revision, body FROM agent_state.active_persona(pg_temp.id('a'), pg_temp.t('good'))$$,
                  'the persona active then is active in the fork');
SELECT results_eq($$SELECT revision, display_name, settings FROM agent_state.profile_history(pg_temp.id('f'))$$,
                  $$SELECT revision, display_name, settings FROM agent_state.profile_history(pg_temp.id('a'))
                    WHERE created_at <= pg_temp.t('good')$$,
                  'the profile history up to then');
SELECT results_eq($$SELECT * FROM agent_state.tool_grants(pg_temp.id('f'))$$,
                  $$SELECT * FROM agent_state.tool_grants(pg_temp.id('a'), pg_temp.t('good'))$$,
                  'the tool grants of then');
SELECT is(agent_state.export_markdown(pg_temp.id('f')),
          replace(replace(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('good')), 't480-a', 't480-f'),
                  pg_temp.id('a')::text, pg_temp.id('f')::text),
          'the export of the fork is the export of the origin as of then (but for the handle)');
SELECT results_eq($$SELECT revision, operation, body, created_at FROM agent_state.memory_history(pg_temp.id('f'), pg_temp.id('diet'))$$,
                  $$SELECT revision, operation, body, created_at FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('diet'))
                    WHERE created_at <= pg_temp.t('good')$$,
                  'an entry amended since has the history of then');
SELECT results_eq($$SELECT entry, revision, body, text_rank FROM agent_state.recall(pg_temp.id('f'), 'alice tea', conversation => pg_temp.id('group'), match => 'any')$$,
                  $$SELECT entry, revision, body, text_rank FROM agent_state.recall(pg_temp.id('a'), 'alice tea', conversation => pg_temp.id('group'), match => 'any', as_of => pg_temp.t('good'))$$,
                  'recall in the fork answers as the origin did then, with the same text ranks (term rarity of then; sharing grants of then included)');
SELECT is((SELECT count(*) FROM agent_state.recall(pg_temp.id('f'), 'alice', conversation => pg_temp.id('group'))),
          1::bigint, 'the grant in force then is in force in the fork: the direct-message memory is eligible in the group');
RESET ROLE;
SELECT is((SELECT count(*) FROM agent_state.memory_shares WHERE runtime_agent_id = pg_temp.id('f')), 1::bigint,
          'a grant revoked before then is not copied');
SELECT is((SELECT live FROM agent_state.memory_entries WHERE runtime_agent_id = pg_temp.id('f')
           AND entry_id = pg_temp.id('plan')), false, 'an entry forgotten then is forgotten in the fork');
SELECT is((SELECT count(*) FROM agent_state.memory_entries WHERE runtime_agent_id = pg_temp.id('f')
           AND entry_id = pg_temp.id('junk')), 0::bigint, 'an entry created since is not copied');
SELECT is((SELECT string_agg(DISTINCT body, ',') FROM agent_state.memory_history(pg_temp.id('f'), pg_temp.id('secret'))),
          '[redacted]', 'an entry redacted since stays redacted in the fork: its text never comes back');
SELECT is((SELECT count(*) FROM agent_state.memory_redactions WHERE runtime_agent_id = pg_temp.id('f')
           AND entry_id = pg_temp.id('secret')), 1::bigint, 'with its redaction record');
SET ROLE t480_op;
SELECT results_eq($$SELECT origin, as_of, forked_by FROM agent_state.fork_origin(pg_temp.id('f'))$$,
                  $$VALUES (pg_temp.id('a'), pg_temp.t('good'), 't480_op'::text)$$,
                  'fork_origin names the origin, the moment and who forked');
SELECT is_empty($$SELECT * FROM agent_state.fork_origin(pg_temp.id('a'))$$, 'an agent that is not a fork has no origin');

-- ------------------------------------------------ the two change independently
SELECT agent_state.amend(pg_temp.id('f'), pg_temp.id('tea'), 'likes oolong', 2) \g /dev/null
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('diet')) \g /dev/null
RESET ROLE;
SELECT is((SELECT body FROM agent_state.memory_entries WHERE runtime_agent_id = pg_temp.id('a')
           AND entry_id = pg_temp.id('tea')), 'likes jasmine tea', 'an amend in the fork leaves the origin alone');
SELECT is((SELECT live FROM agent_state.memory_entries WHERE runtime_agent_id = pg_temp.id('f')
           AND entry_id = pg_temp.id('diet')), true, 'a forget in the origin leaves the fork alone');
SET ROLE t480_op;
SELECT lives_ok($$SELECT agent_state.revise_persona(pg_temp.id('f'), 'Try something new')$$,
                'the fork takes its own persona revisions');
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('a'))), 'Be reckless',
          'and the origin keeps its own');
RESET ROLE;
SELECT is((SELECT count(*) FROM pg_constraint AS c
           WHERE c.connamespace = 'agent_state'::regnamespace AND c.contype = 'f'
             AND c.conrelid = 'agent_state.agent_forks'::regclass), 1::bigint,
          'agent_forks has one foreign key (to the fork itself), none to the origin');
SET ROLE t480_rt;
SELECT throws_ok($$SELECT * FROM agent_state.recall(pg_temp.id('f'), 'tea')$$, '42501', NULL,
                 'the runtime hosting the origin may not act for the fork');
RESET ROLE;

-- ------------------------------------------------ now, a display name, a fork of a fork
SET ROLE t480_op2;
INSERT INTO pg_temp.ids VALUES ('g', agent_state.fork_agent(pg_temp.id('f'), 't480-g', display_name => 'Grandchild'));
SELECT results_eq($$SELECT revision, display_name FROM agent_state.profile_history(pg_temp.id('g')) ORDER BY revision DESC LIMIT 1$$,
                  $$SELECT (SELECT max(revision) FROM agent_state.profile_history(pg_temp.id('f'))) + 1, 'Grandchild'::text$$,
                  'a display name is a new profile revision of the fork');
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('g'))), 'Try something new',
          'with no moment the fork copies the state now');
SELECT is((SELECT origin FROM agent_state.fork_origin(pg_temp.id('g'))), pg_temp.id('f'),
          'a fork of a fork names its own origin');
SELECT is((SELECT forked_by FROM agent_state.fork_origin(pg_temp.id('g'))), 't480_op2', 'and who forked it');
RESET ROLE;
SELECT is((SELECT created_by::text FROM agent_state.profile_revisions WHERE runtime_agent_id = pg_temp.id('g')
           AND revision = 1), 't480_op', 'the copy of a copy keeps the first stamp');
SET ROLE t480_op2;

-- ------------------------------------------------ erasure follows the data
SELECT lives_ok($$SELECT agent_state.redact(pg_temp.id('g'), pg_temp.id('tea'), 'erase everywhere')$$,
                'redacting an entry in a fork of a fork');
RESET ROLE;
SELECT is((SELECT count(*) FROM agent_state.memory_redactions WHERE entry_id = pg_temp.id('tea')
           AND runtime_agent_id IN (pg_temp.id('a'), pg_temp.id('f'), pg_temp.id('g'))), 3::bigint,
          'redacts its copy in every agent of the lineage, each with its own record');
SELECT is((SELECT count(*) FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('tea')
           AND body <> '[redacted]'), 0::bigint, 'no revision of any copy keeps the text');
SET ROLE t480_op;
SELECT throws_ok($$SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('tea'), 'again')$$, '55000', NULL,
                 'the origin''s copy is then already redacted');
RESET ROLE;
SELECT is_empty($$SELECT * FROM agent_state.verify() WHERE object LIKE '%' || pg_temp.id('a') || '%'
                  OR object LIKE '%' || pg_temp.id('f') || '%' OR object LIKE '%' || pg_temp.id('g') || '%'$$,
                'verify finds nothing in the lineage');
-- verify finds a copy of a redacted entry that still holds text.
SAVEPOINT tamper;
SET LOCAL session_replication_role = replica;
DELETE FROM agent_state.memory_redactions WHERE runtime_agent_id = pg_temp.id('f') AND entry_id = pg_temp.id('tea');
SET LOCAL session_replication_role = origin;
SELECT ok(EXISTS (SELECT FROM agent_state.verify() WHERE check_name = 'lineage_redaction'
                  AND object LIKE '%' || pg_temp.id('f') || '%'),
          'verify reports a lineage copy that is not redacted');
ROLLBACK TO SAVEPOINT tamper;

-- ------------------------------------------------ a client cannot backdate a row
GRANT INSERT ON agent_state.actors TO t480_op;
SET ROLE t480_op;
SET agent_state.copying = on;
SELECT lives_ok($$INSERT INTO agent_state.actors (runtime_agent_id, actor_id, created_at, created_by)
                  VALUES (pg_temp.id('a'), '00000000-0000-0000-0000-000000000099', '2001-01-01', 'forged')$$,
                'an operator with table privileges writes a backdated row directly');
RESET ROLE;
SELECT is((SELECT (created_at > '2001-01-01')::text || ' ' || created_by FROM agent_state.actors
           WHERE runtime_agent_id = pg_temp.id('a') AND actor_id = '00000000-0000-0000-0000-000000000099'),
          'true t480_op', 'its stamps come from the database, not from the copy rule');
SET ROLE t480_op;
INSERT INTO pg_temp.ids SELECT 'late', n.entry FROM agent_state.note(pg_temp.id('a'), 'noted with the flag set') AS n;
RESET ROLE;
SELECT is((SELECT created_by::text FROM agent_state.memory_revisions WHERE runtime_agent_id = pg_temp.id('a')
           AND entry_id = pg_temp.id('late')), 't480_op',
          'a function called with the copy flag set still stamps its rows with the caller');
RESET agent_state.copying;

-- fork_origin only reads: it works in a read-only transaction.
SET TRANSACTION READ ONLY;
SET ROLE t480_op;
SELECT is((SELECT origin FROM agent_state.fork_origin(pg_temp.id('f'))), pg_temp.id('a'),
          'fork_origin works in a read-only transaction');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
