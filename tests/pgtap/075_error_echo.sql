-- A refused value is quoted in its error message by a short prefix only: a
-- megabyte of text makes a message of a few hundred bytes (and as short a
-- server log line), with the SQLSTATE and the argument's name unchanged. Each
-- case is a value that the function refuses after reading it whole (an
-- enumerated argument, an unknown tool, a JSON key or value), so the only bound
-- on the message is the quoting.
BEGIN;
SET client_min_messages = warning;
SELECT plan(24);

CREATE ROLE t075_op IN ROLE agent_state_operator;
\ir _setup.sql
-- The SQLSTATE of a statement's error, the name its message starts with, and
-- whether the message is at most 300 bytes (else its size).
CREATE FUNCTION pg_temp.refusal(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    msg text;
BEGIN
    EXECUTE stmt;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    RETURN pg_catalog.concat_ws(' ', st, pg_catalog.substring(msg, '^[a-z_]+'),
        CASE WHEN pg_catalog.octet_length(msg) <= 300 THEN 'short'
             ELSE pg_catalog.octet_length(msg) || ' bytes' END);
END
$$;

SET ROLE t075_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t075-a'));
INSERT INTO pg_temp.ids VALUES
    ('x', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('c', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1')),
    ('run', agent_state.start_run(pg_temp.id('a')));
INSERT INTO pg_temp.ids VALUES
    ('m', agent_state.record_message(pg_temp.id('a'), pg_temp.id('c'), pg_temp.id('x'), 'hello', ARRAY[pg_temp.id('x')])),
    ('s', agent_state.snapshot_prompt(pg_temp.id('a'), pg_temp.id('run'), 'prompt'));
INSERT INTO pg_temp.ids SELECT 'e', r.entry FROM agent_state.note(pg_temp.id('a'), 'a note') AS r;
SELECT agent_state.register_tool('t075.closed', '1',
    '{"type": "object", "additionalProperties": false,
      "properties": {"n": {"type": "number", "minimum": 0, "maximum": 10}}}') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't075.closed', true) \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('mc', agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}'));
INSERT INTO pg_temp.ids VALUES
    ('tc', agent_state.record_tool_call(pg_temp.id('a'), pg_temp.id('run'), 't075.closed', '{"n": 1}'));

-- A million characters (and the same in two-byte characters and in quotes,
-- which quoting doubles); JSON keys and strings of 900,000, under the JSON
-- arguments' size limits.
CREATE TEMP TABLE v AS SELECT pg_catalog.repeat('k', 1000000) AS big,
    pg_catalog.repeat('é', 1000000) AS wide, pg_catalog.repeat('''', 1000000) AS quotes,
    pg_catalog.repeat('j', 900000) AS key;

SELECT is(pg_temp.refusal(s), e, d)
FROM (VALUES
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2', kind => (SELECT big FROM v))$$,
     '22023 kind short', 'resolve_actor: a megabyte kind is quoted by a prefix'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2', kind => (SELECT wide FROM v))$$,
     '22023 kind short', 'resolve_actor: a kind of two-byte characters too (the prefix counts characters)'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2', kind => (SELECT quotes FROM v))$$,
     '22023 kind short', 'resolve_actor: a kind of quotes too (quoting doubles them)'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C2', (SELECT big FROM v))$$,
     '22023 kind short', 'open_conversation: kind'),
    ($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('run'), (SELECT big FROM v))$$,
     '22023 outcome short', 'finish_run: outcome'),
    ($$SELECT agent_state.remember(pg_temp.id('a'), 'b', pg_temp.id('m'), visibility => (SELECT big FROM v))$$,
     '22023 visibility short', 'remember: visibility'),
    ($$SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e'), 'b', 1, visibility => (SELECT big FROM v))$$,
     '22023 visibility short', 'amend: visibility'),
    ($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                                             status => (SELECT big FROM v))$$,
     '22023 status short', 'record_model_call: status'),
    ($$SELECT agent_state.record_tool_result(pg_temp.id('a'), pg_temp.id('tc'), '{}', (SELECT big FROM v))$$,
     '22023 status short', 'record_tool_result: status'),
    ($$SELECT agent_state.graph_prune(pg_temp.id('a'), '{t}', (SELECT big FROM v), 'r')$$,
     '22023 strategy short', 'graph_prune: strategy'),
    ($$SELECT agent_state.authorize_tool(pg_temp.id('a'), (SELECT big FROM v))$$,
     '42501 tool short', 'authorize_tool: a megabyte tool name is 42501 quoted by a prefix'),
    ($$SELECT agent_state.tool_grant_history(pg_temp.id('a'), (SELECT big FROM v))$$,
     'P0002 tool short', 'tool_grant_history: an unknown tool'),
    ($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                                             usage => pg_catalog.jsonb_build_object((SELECT key FROM v), 1))$$,
     '22023 usage short', 'record_model_call: an unknown usage key'),
    ($$SELECT agent_state.record_model_call(pg_temp.id('a'), pg_temp.id('run'), pg_temp.id('s'), 'p', 'm', '{}',
                                             usage => pg_catalog.jsonb_build_object('tokens', (SELECT key FROM v)))$$,
     '22023 usage short', 'record_model_call: a usage amount that is a long string'),
    ($$SELECT agent_state.start_run(pg_temp.id('a'), budget => pg_catalog.jsonb_build_object((SELECT key FROM v), 1))$$,
     '22023 budget short', 'start_run: an unknown budget key'),
    ($$SELECT agent_state.remember_many(pg_temp.id('a'),
          pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('body', 'b', (SELECT key FROM v), 1)))$$,
     '22023 memories short', 'remember_many: an unknown key of a memory'),
    ($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't075.closed', true,
                                      pg_catalog.jsonb_build_object((SELECT key FROM v), 1))$$,
     '22023 config short', 'grant_tool: a config key the contract does not allow'),
    ($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't075.closed', true,
                                      pg_catalog.jsonb_build_object('n', (SELECT key FROM v)))$$,
     '22023 config short', 'grant_tool: a config value of the wrong type'),
    ($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't075.closed', true,
                                      ('{"n": -' || pg_catalog.repeat('9', 100000) || '}')::jsonb)$$,
     '22023 config short', 'grant_tool: a 100,000-digit number below the minimum'),
    ($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't075.closed', true,
                                      ('{"n": ' || pg_catalog.repeat('9', 100000) || '}')::jsonb)$$,
     '22023 config short', 'grant_tool: a 100,000-digit number above the maximum'),
    ($$SELECT agent_state.register_tool('t075.t', '1', pg_catalog.jsonb_build_object('type', (SELECT key FROM v)))$$,
     '22023 config_schema short', 'register_tool: an unsupported type'),
    ($$SELECT agent_state.register_tool('t075.r', '1', pg_catalog.jsonb_build_object(
          'additionalProperties', false, 'required', pg_catalog.jsonb_build_array((SELECT key FROM v))))$$,
     '22023 config_schema short', 'register_tool: a required property that is not in properties'),
    ($$SELECT agent_state.register_tool('t075.k', '1', pg_catalog.jsonb_build_object((SELECT key FROM v), 1))$$,
     '22023 config_schema short', 'register_tool: an unsupported keyword')
) AS t (s, e, d);

-- A short value is still quoted whole.
SELECT throws_ok($$SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('run'), 'won')$$, '22023',
                 'outcome: ''won'' is not one of succeeded, failed, cancelled, handed_off',
                 'a short refused value is still quoted whole');

SELECT * FROM finish();
ROLLBACK;
