-- One rule for every argument that names a row: the row must be this agent's.
-- _need_ref probes each kind by its primary key; _missing tells, after an empty
-- lookup, another perspective's row (23503) from an unknown id (P0002). Both
-- hold a map from kind to table: a kind missing from either is caught here.
BEGIN;
SELECT plan(37);

CREATE ROLE t072_op IN ROLE agent_state_operator;
\ir _setup.sql

SET ROLE t072_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t072-a')),
    ('b', agent_state.create_agent('t072-b'));
SELECT agent_state.register_tool('t072.echo', '1', '{"type": "object"}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('b'), 't072.echo', true) \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')),
    ('conversation', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C1')),
    ('run', agent_state.start_run(pg_temp.id('b')));
INSERT INTO pg_temp.ids VALUES
    ('message', agent_state.record_message(pg_temp.id('b'), pg_temp.id('conversation'), pg_temp.id('actor'),
                                           'hello', ARRAY[pg_temp.id('actor')])),
    ('snapshot', agent_state.snapshot_prompt(pg_temp.id('b'), pg_temp.id('run'), 'prompt')),
    ('tool call', agent_state.record_tool_call(pg_temp.id('b'), pg_temp.id('run'), 't072.echo', '{}'));
INSERT INTO pg_temp.ids
SELECT 'memory entry', r.entry FROM agent_state.remember(pg_temp.id('b'), 'a fact', pg_temp.id('message')) AS r;
INSERT INTO pg_temp.ids VALUES
    ('a_actor', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('model call', agent_state.record_model_call(pg_temp.id('b'), pg_temp.id('run'), pg_temp.id('snapshot'),
                                                 'p', 'm', '{}'));
RESET ROLE;

-- The kinds each map names, read from the two functions' sources.
CREATE TEMP TABLE kinds AS
SELECT f.proname::text AS fn, m[1] AS kind
FROM pg_catalog.pg_proc AS f
CROSS JOIN LATERAL pg_catalog.regexp_matches(f.prosrc, $re$WHEN '([a-z ]+)' THEN$re$, 'g') AS m
WHERE f.pronamespace = 'agent_state'::regnamespace AND f.proname IN ('_need_ref', '_missing');

SELECT set_eq(
    $$SELECT kind FROM kinds WHERE fn = '_need_ref'$$,
    $$VALUES ('actor'), ('conversation'), ('memory entry'), ('message'), ('run'), ('snapshot'),
             ('model call'), ('tool call')$$,
    '_need_ref knows every kind of reference the verbs take');
SELECT set_eq(
    $$SELECT kind FROM kinds WHERE fn = '_missing'$$,
    $$SELECT kind FROM kinds WHERE fn = '_need_ref' UNION SELECT 'agent'$$,
    '_missing knows the same kinds (and agents, for verify)');

-- Each kind: b's own row passes; a's view of it is another perspective's; an
-- unknown id is unknown; a null is a missing argument.
CREATE FUNCTION pg_temp.check_kind(kind text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
    RETURN NEXT lives_ok(
        pg_catalog.format('SELECT agent_state._need_ref(%L, %L, %L, %L)', pg_temp.id('b'), kind, pg_temp.id(kind), 'arg'),
        kind || ': the agent''s own row passes');
    RETURN NEXT throws_ok(
        pg_catalog.format('SELECT agent_state._need_ref(%L, %L, %L, %L)', pg_temp.id('a'), kind, pg_temp.id(kind), 'arg'),
        '23503', pg_catalog.format('arg: %s %s belongs to another perspective', kind, pg_temp.id(kind)),
        kind || ': another perspective''s row is 23503');
    RETURN NEXT throws_ok(
        pg_catalog.format('SELECT agent_state._need_ref(%L, %L, %L, %L)', pg_temp.id('b'), kind,
                          '00000000-0000-4000-8000-000000000072', 'arg'),
        'P0002', pg_catalog.format('arg: unknown %s 00000000-0000-4000-8000-000000000072', kind),
        kind || ': an unknown id is P0002');
    RETURN NEXT throws_ok(
        pg_catalog.format('SELECT agent_state._need_ref(%L, %L, NULL, %L)', pg_temp.id('b'), kind, 'arg'),
        '22004', NULL, kind || ': null is 22004');
END
$$;
SELECT pg_temp.check_kind(k.kind) FROM kinds AS k WHERE k.fn = '_need_ref' ORDER BY k.kind;

SELECT throws_ok(
    pg_catalog.format('SELECT agent_state._missing(%L, %L, %L)', 'agent', 'agent', pg_temp.id('a')),
    'P0002', NULL, '_missing: an agent is never another perspective''s');
SELECT throws_ok(
    pg_catalog.format('SELECT agent_state._need_ref(%L, %L, %L, %L)', pg_temp.id('a'), 'thing', pg_temp.id('a'), 'arg'),
    '20000', NULL, 'a kind no map names is a bug, not an answer');

-- Through a verb: an author of another perspective.
SELECT throws_ok(
    pg_catalog.format('SELECT agent_state.record_message(%L, %L, %L, %L, %L)', pg_temp.id('b'), pg_temp.id('conversation'),
                      pg_temp.id('a_actor'), 'x', ARRAY[pg_temp.id('actor')]),
    '23503', pg_catalog.format('author: actor %s belongs to another perspective', pg_temp.id('a_actor')),
    'record_message: an author of another perspective is 23503');
SELECT * FROM finish();
ROLLBACK;
