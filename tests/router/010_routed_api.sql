-- The pgTAP part of the router stage (tests/run_suite.py --stages router): run on
-- the router database over two shards. Only what calls the API: the catalog checks
-- of tests/pgtap stay per shard (a router has no tables of agent_state). Every call
-- commits on its shard by itself, so ROLLBACK at the end undoes nothing there: the
-- handles are unique per run.
BEGIN;
SELECT plan(25);

CREATE TEMP TABLE v (k text PRIMARY KEY, u uuid, t text);
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
INSERT INTO v (k, t) VALUES ('tag', pg_catalog.md5(pg_catalog.random()::text));
CREATE FUNCTION pg_temp.h(name text) RETURNS text LANGUAGE sql
AS $$ SELECT name || '-' || (SELECT t FROM pg_temp.v WHERE k = 'tag') $$;
CREATE FUNCTION pg_temp.id(name text) RETURNS uuid LANGUAGE sql
AS $$ SELECT u FROM pg_temp.v WHERE k = name $$;

-- Placement: two agents land on the two shards; a handle is unique across them.
INSERT INTO v (k, u) VALUES ('a1', agent_state.create_agent(pg_temp.h('r010-one')));
INSERT INTO v (k, u) VALUES ('a2', agent_state.create_agent(pg_temp.h('r010-two')));
SELECT isnt(pg_temp.id('a1'), NULL, 'create_agent through the router returns the id');
SELECT is(agent_state.find_agent(pg_temp.h('r010-two')), pg_temp.id('a2'), 'find_agent finds it by handle');
SELECT throws_ok(pg_catalog.format('SELECT agent_state.create_agent(%L)', pg_temp.h('r010-one')), '23505',
                 NULL, 'a handle taken on any shard is refused');
SELECT cmp_ok((SELECT count(*)::integer FROM agent_state.list_agents() AS l
               WHERE l.agent IN (pg_temp.id('a1'), pg_temp.id('a2'))), '=', 2,
              'list_agents lists the agents of every shard');

-- Persona through the router.
SELECT is(agent_state.revise_persona(pg_temp.id('a1'), 'You are One.'), 1, 'revise_persona: revision 1');
SELECT is(agent_state.revise_persona(pg_temp.id('a1'), 'You are One!'), 2, 'revise_persona: revision 2');
SELECT lives_ok(pg_catalog.format('SELECT agent_state.activate_persona(%L, 1)', pg_temp.id('a1')),
                'activate_persona reverts');
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('a1'))), 'You are One.',
          'active_persona answers from the agent''s shard');

-- Memory: note, amend with a stale revision (40001), forget, recall.
INSERT INTO v (k, u) SELECT 'e1', n.entry FROM agent_state.note(pg_temp.id('a1'), 'Refunds take five days.') AS n;
SELECT is((SELECT body FROM agent_state.recall(pg_temp.id('a1'), 'refunds')), 'Refunds take five days.',
          'recall finds the note');
SELECT is(agent_state.amend(pg_temp.id('a1'), pg_temp.id('e1'), 'Refunds take three days.', 1), 2,
          'amend writes revision 2');
SELECT throws_ok(pg_catalog.format('SELECT agent_state.amend(%L, %L, %L, 1)', pg_temp.id('a1'),
                                   pg_temp.id('e1'), 'stale'), '40001', NULL,
                 'a stale expected_revision: 40001, from the shard');
SELECT is(agent_state.forget(pg_temp.id('a1'), pg_temp.id('e1'), 2, 'asked'), 3, 'forget writes revision 3');
SELECT is((SELECT count(*)::integer FROM agent_state.recall(pg_temp.id('a1'), 'refunds')), 0,
          'a forgotten entry is not recalled');
SELECT is((SELECT pg_catalog.array_agg(operation ORDER BY revision)
           FROM agent_state.memory_history(pg_temp.id('a1'), pg_temp.id('e1'))),
          ARRAY['create', 'amend', 'forget'], 'memory_history through the router');

-- Errors as one server gives them.
SELECT throws_ok(pg_catalog.format('SELECT agent_state.note(%L, %L)', pg_catalog.gen_random_uuid(), 'x'),
                 'P0002', NULL, 'an operator naming an agent no shard holds: P0002');
SELECT throws_ok('SELECT agent_state.note(NULL, ''x'')', '22004', NULL, 'agent null: 22004');
SELECT throws_ok(pg_catalog.format('SELECT agent_state.fork_agent(%L, %L)', pg_catalog.gen_random_uuid(),
                                   pg_temp.h('r010-one')),
                 'P0002', NULL, 'fork_agent of an unknown agent: P0002 first, even when the handle is taken');
SELECT throws_ok(pg_catalog.format('SELECT agent_state.note(%L, %L)', pg_temp.id('a2'), ''), '22023',
                 NULL, 'an empty body: 22023');
SELECT throws_ok('SELECT agent_state.register_tool(''r010.tool'', ''1'', ''{"type": "bogus"}'')', '22023',
                 NULL, 'a bad tool schema is refused by the first shard, nothing registered');

-- Deployment-wide: a tool on every shard, then granted on either.
SELECT lives_ok(pg_catalog.format('SELECT agent_state.register_tool(%L, ''1.0'', ''{"type": "object"}'')',
                                  pg_temp.h('r010.tool')), 'register_tool through the router');
SELECT is(agent_state.grant_tool(pg_temp.id('a1'), pg_temp.h('r010.tool'), true), 1, 'granted on one shard');
SELECT is(agent_state.grant_tool(pg_temp.id('a2'), pg_temp.h('r010.tool'), true), 1, 'granted on the other');
SELECT is((SELECT count(*)::integer FROM agent_state.shard_check()), 0, 'shard_check: the shards agree');

-- A move keeps every read's answer.
SELECT is(agent_state.move_agent(pg_temp.id('a1'),
            (SELECT s.name FROM agent_state_router.shards AS s, agent_state_router.directory AS d
             WHERE d.agent = pg_temp.id('a1') AND s.name <> d.shard ORDER BY s.name LIMIT 1)) ->> 'moved',
          'true', 'move_agent moves the agent to the other shard');
SELECT is((SELECT pg_catalog.array_agg(operation ORDER BY revision)
           FROM agent_state.memory_history(pg_temp.id('a1'), pg_temp.id('e1'))),
          ARRAY['create', 'amend', 'forget'], 'after the move, memory_history answers as before');

SELECT * FROM finish();
ROLLBACK;
