-- Tool grants: register_tool, grant_tool, authorize_tool, tool_grant_history and
-- _tool_grant_for_use; who may call them, isolation between agents, and direct
-- DML attacks on the tables.
BEGIN;
SELECT plan(104);

-- Fixture. Roles are transactional, so they vanish with the ROLLBACK.
CREATE ROLE t300_op IN ROLE agent_state_operator;
CREATE ROLE t300_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t300_rb LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t300_out LOGIN;
\ir _setup.sql

SET ROLE t300_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t300-a', 'Agent A')),
    ('b', agent_state.create_agent('t300-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't300_ra');
SELECT agent_state.grant_hosting(pg_temp.id('b'), 't300_rb');
RESET ROLE;

-- ---------------------------------------------------------------- catalog
SELECT has_table('agent_state', t, 'table agent_state.' || t || ' exists')
FROM pg_catalog.unnest(ARRAY['tools', 'tool_versions', 'tool_grants']) AS t;
SELECT col_is_pk('agent_state', 'tool_grants', ARRAY['runtime_agent_id', 'tool_name', 'revision'],
                 'tool_grants key is (runtime_agent_id, tool_name, revision)');
SELECT policies_are('agent_state', 'tool_grants',
    ARRAY['agent_scope', 'owner_bypass', 'operator_writes_insert', 'operator_writes_update',
          'operator_writes_delete'],
    'tool_grants: agent scope, owner bypass and operator-only writes');
SELECT policy_roles_are('agent_state', 'tool_grants', 'operator_writes_insert',
    ARRAY['agent_state_runtime'], 'operator-only insert policy applies to runtimes');
SELECT policies_are('agent_state', 'tools', ARRAY['owner_bypass'],
                    'tools: only the owner reads or writes rows');
SELECT ok(NOT pg_catalog.has_function_privilege('agent_state_runtime', p.sig, 'EXECUTE'),
          'runtimes may not execute ' || p.sig)
FROM pg_catalog.unnest(ARRAY['agent_state.register_tool(text,text,jsonb)',
                             'agent_state.grant_tool(uuid,text,boolean,jsonb)']) AS p (sig);
SELECT ok(pg_catalog.has_function_privilege('agent_state_runtime', p.sig, 'EXECUTE'),
          'runtimes may execute ' || p.sig)
FROM pg_catalog.unnest(ARRAY['agent_state.authorize_tool(uuid,text)',
                             'agent_state.tool_grant_history(uuid,text)']) AS p (sig);
SELECT ok(NOT pg_catalog.has_function_privilege('agent_state_operator',
              'agent_state._tool_grant_for_use(uuid,text)', 'EXECUTE'),
          '_tool_grant_for_use is internal (not granted)');
SELECT is_definer('agent_state', f, 'agent_state.' || f || ' is SECURITY DEFINER')
FROM pg_catalog.unnest(ARRAY['register_tool', 'grant_tool', 'authorize_tool', 'tool_grant_history',
                             '_tool_grant_for_use']) AS f;

-- ---------------------------------------------------------------- register_tool
SET ROLE t300_ra;
SELECT throws_ok($$SELECT agent_state.register_tool('t300.search', '1', '{}')$$, '42501',
                 NULL, 'a runtime cannot register a tool');
RESET ROLE;
SET ROLE t300_out;
SELECT throws_ok($$SELECT agent_state.register_tool('t300.search', '1', '{}')$$, '42501',
                 NULL, 'a role outside both groups cannot register a tool');
RESET ROLE;
-- Even given EXECUTE, the function checks the caller itself.
GRANT EXECUTE ON FUNCTION agent_state.register_tool(text, text, jsonb) TO t300_ra;
GRANT EXECUTE ON FUNCTION agent_state.grant_tool(uuid, text, boolean, jsonb) TO t300_ra;
SET ROLE t300_ra;
SELECT throws_ok($$SELECT agent_state.register_tool('t300.search', '1', '{}')$$, '42501',
                 'role t300_ra is not an agent_state operator',
                 'a runtime granted EXECUTE is still refused, naming the argument');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tools AS t WHERE t.tool_name = 't300.search'),
          0::bigint, 'refused registrations wrote nothing');

SET ROLE t300_op;
SELECT lives_ok($$SELECT agent_state.register_tool('t300.search', '1.0',
    '{"type": "object",
      "properties": {"region": {"type": "string", "enum": ["eu", "us"]},
                     "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
      "required": ["region"]}')$$, 'an operator registers a tool');
RESET ROLE;
SELECT results_eq(
    $$SELECT t.version, t.revision, t.created_by::text COLLATE "default", t.config_schema -> 'required'
      FROM agent_state.tools AS t WHERE t.tool_name = 't300.search'$$,
    $$VALUES ('1.0', 1, 't300_op', '["region"]'::jsonb)$$,
    'the contract is stored with its registration number and who registered it');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_versions AS v WHERE v.tool_name = 't300.search'),
          1::bigint, 'the registration is in the history');
SET ROLE t300_op;
SELECT agent_state.register_tool('t300.search', '1.0',
    '{"type": "object",
      "properties": {"region": {"type": "string", "enum": ["eu", "us"]},
                     "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
      "required": ["region"]}');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_versions AS v WHERE v.tool_name = 't300.search'),
          1::bigint, 'registering the same version and schema again is a no-op');

SET ROLE t300_op;
SELECT agent_state.register_tool('t300.fetch', '1', '{"type": "object"}');
SELECT agent_state.register_tool('t300.fetch', '2',
    '{"type": "object", "properties": {"timeout": {"type": "number", "maximum": 60}},
      "additionalProperties": false}');
RESET ROLE;
SELECT results_eq(
    $$SELECT t.version, t.revision, t.config_schema ? 'additionalProperties'
      FROM agent_state.tools AS t WHERE t.tool_name = 't300.fetch'$$,
    $$VALUES ('2', 2, true)$$,
    'a new version replaces the contract');
SELECT results_eq(
    $$SELECT v.revision, v.version FROM agent_state.tool_versions AS v
      WHERE v.tool_name = 't300.fetch' ORDER BY v.revision$$,
    $$VALUES (1, '1'), (2, '2')$$,
    'every registration is kept in tool_versions');

SET ROLE t300_op;
SELECT throws_ok($$SELECT agent_state.register_tool(NULL, '1', '{}')$$, '22004', NULL, 'name null: 22004');
SELECT throws_ok($$SELECT agent_state.register_tool('  ', '1', '{}')$$, '22023', NULL, 'name blank: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool(pg_catalog.repeat('x', 201), '1', '{}')$$, '22023',
                 NULL, 'name longer than 200: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool(E't300.a\nb', '1', '{}')$$, '22023',
                 'name: must not contain control characters', 'name with a newline: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.x', NULL, '{}')$$, '22004', NULL, 'version null: 22004');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.x', '', '{}')$$, '22023', NULL, 'version empty: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.x', '1', NULL)$$, '22004', NULL,
                 'config_schema null: 22004');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.x', '1', '[]')$$, '22023',
                 'config_schema: must be a JSON object (a schema)', 'config_schema an array: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.x', '1', 'null')$$, '22023',
                 NULL, 'config_schema JSON null: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.x', '1', '{"type": "object", "oneOf": []}')$$,
                 '22023', 'config_schema.oneOf: unsupported keyword', 'unsupported keyword: 22023');
SELECT throws_ok($$SELECT agent_state.register_tool('t300.fetch', '3', '{"format": "uri"}')$$,
                 '22023', NULL, 'a bad schema for an existing tool: 22023');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tools AS t WHERE t.tool_name = 't300.x'),
          0::bigint, 'refused registrations wrote no tool');
SELECT is((SELECT t.version FROM agent_state.tools AS t WHERE t.tool_name = 't300.fetch'),
          '2', 'a refused re-registration left the contract unchanged');

-- ---------------------------------------------------------------- grant_tool
SET ROLE t300_op;
SELECT is(agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "eu"}'), 1,
          'the first grant is revision 1');
SELECT is(agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "us", "limit": 5}'), 2,
          'the next grant is revision 2');
SELECT is(agent_state.grant_tool(agent => pg_temp.id('b'), tool => 't300.search', enabled => true,
                                 config => '{"region": "eu", "limit": 50}'), 1,
          'revisions are numbered per agent (named notation)');
SELECT is(agent_state.grant_tool(pg_temp.id('a'), 't300.fetch', true), 1,
          'revisions are numbered per tool; config defaults to {}');
RESET ROLE;
SELECT results_eq(
    $$SELECT g.revision, g.enabled, g.config, g.tool_version, g.tool_revision, g.created_by::text COLLATE "default"
      FROM agent_state.tool_grants AS g
      WHERE g.runtime_agent_id = pg_temp.id('a') AND g.tool_name IN ('t300.search', 't300.fetch')
      ORDER BY g.tool_name, g.revision$$,
    $$VALUES (1, true, '{}'::jsonb, '2', 2, 't300_op'),
             (1, true, '{"region": "eu"}'::jsonb, '1.0', 1, 't300_op'),
             (2, true, '{"region": "us", "limit": 5}'::jsonb, '1.0', 1, 't300_op')$$,
    'grants record config, the contract they were validated against and who granted');

SET ROLE t300_op;
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.nope', true)$$, 'P0002',
                 'tool: unknown tool ''t300.nope''', 'an unregistered tool: P0002');
SELECT throws_ok($$SELECT agent_state.grant_tool(NULL, 't300.search', true, '{"region": "eu"}')$$, '22004',
                 NULL, 'agent null: 22004');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_catalog.gen_random_uuid(), 't300.search', true,
                   '{"region": "eu"}')$$, 'P0002', NULL, 'an unknown agent: P0002');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), NULL, true)$$, '22004',
                 NULL, 'tool null: 22004');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', NULL, '{"region": "eu"}')$$,
                 '22004', 'enabled: must not be null', 'enabled null: 22004');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, NULL)$$, '22004',
                 'config: must not be null', 'config null: 22004');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{}')$$, '22023',
                 'config.region: required', 'a missing required field: 22023 naming it');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true,
                   '{"region": "eu", "limit": 150}')$$, '22023',
                 'config.limit: 150 is greater than maximum 100', 'above maximum: 22023 naming the field');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "mars"}')$$,
                 '22023', 'config.region: "mars" is not one of ["eu", "us"]', 'not in enum: 22023 naming the field');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.fetch', true, '{"timeout": 1, "x": 2}')$$,
                 '22023', 'config.x: not allowed (additionalProperties is false)',
                 'an unknown property with additionalProperties false: 22023');
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', false, '{"region": 7}')$$,
                 '22023', NULL, 'a disabled grant with a config still has it validated');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_grants AS g
           WHERE g.runtime_agent_id = pg_temp.id('a') AND g.tool_name = 't300.search'),
          2::bigint, 'refused grants wrote nothing');

SET ROLE t300_ra;
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "eu"}')$$,
                 '42501', NULL, 'a runtime (granted EXECUTE) cannot grant a tool to the agent it hosts');
RESET ROLE;
SET ROLE t300_rb;
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "eu"}')$$,
                 '42501', NULL, 'a runtime cannot grant a tool to an agent it does not host');
RESET ROLE;
SET ROLE t300_out;
SELECT throws_ok($$SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "eu"}')$$,
                 '42501', NULL, 'an outsider cannot grant tools');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_grants AS g
           WHERE g.runtime_agent_id = pg_temp.id('a') AND g.tool_name = 't300.search'),
          2::bigint, 'refused callers wrote nothing');

-- ---------------------------------------------------------------- authorize_tool
SET ROLE t300_ra;
SELECT results_eq($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('a'), 't300.search')$$,
                  $$VALUES (2, '{"region": "us", "limit": 5}'::jsonb)$$,
                  'authorize_tool returns the current grant revision and config');
SELECT results_eq($$SELECT * FROM agent_state.authorize_tool(agent => pg_temp.id('a'), tool => 't300.fetch')$$,
                  $$VALUES (1, '{}'::jsonb)$$, 'authorize_tool with named arguments');
SELECT throws_ok($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('b'), 't300.search')$$, '42501',
                 NULL, 'a runtime cannot authorize a tool for an agent it does not host');
SELECT throws_ok($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('a'), 't300.unknown')$$, '42501',
                 NULL, 'an unknown tool: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('a'), NULL)$$, '22004',
                 NULL, 'tool null: 22004');
SELECT throws_ok($$SELECT * FROM agent_state.authorize_tool(NULL, 't300.search')$$, '22004',
                 NULL, 'agent null: 22004');
RESET ROLE;

-- Agent B's grant never authorizes agent A.
SET ROLE t300_op;
SELECT agent_state.register_tool('t300.only_b', '1', '{}');
SELECT agent_state.grant_tool(pg_temp.id('b'), 't300.only_b', true);
RESET ROLE;
SET ROLE t300_ra;
SELECT throws_ok($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('a'), 't300.only_b')$$, '42501',
                 NULL, 'a tool granted only to another agent: 42501');
RESET ROLE;
SET ROLE t300_rb;
SELECT results_eq($$SELECT r.revision FROM agent_state.authorize_tool(pg_temp.id('b'), 't300.only_b') AS r$$,
                  ARRAY[1], 'the other agent is authorized');
RESET ROLE;

SET ROLE t300_op;
SELECT is(agent_state.grant_tool(pg_temp.id('a'), 't300.search', false), 3,
          'a disabled grant accepts the empty config whatever the schema requires');
RESET ROLE;
SET ROLE t300_ra;
SELECT throws_ok($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('a'), 't300.search')$$, '42501',
                 NULL, 'a disabled current grant: 42501');
RESET ROLE;
SET ROLE t300_rb;
SELECT results_eq($$SELECT r.revision FROM agent_state.authorize_tool(pg_temp.id('b'), 't300.search') AS r$$,
                  ARRAY[1], 'disabling for one agent leaves the other agent''s grant alone');
RESET ROLE;
SET ROLE t300_op;
SELECT is(agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"region": "eu", "limit": 1}'), 4,
          'a tool is enabled again by a new revision');
RESET ROLE;
SET ROLE t300_ra;
SELECT results_eq($$SELECT * FROM agent_state.authorize_tool(pg_temp.id('a'), 't300.search')$$,
                  $$VALUES (4, '{"region": "eu", "limit": 1}'::jsonb)$$,
                  're-enabled: authorized under the new revision');
RESET ROLE;

-- The helper that tool calls use.
SELECT is(agent_state._tool_grant_for_use(pg_temp.id('a'), 't300.search'), 4,
          '_tool_grant_for_use returns the current revision');
SELECT throws_matching($$SELECT agent_state._tool_grant_for_use(pg_temp.id('a'), 't300.only_b')$$,
                       '^tool: ''t300\.only_b'' is not granted', '_tool_grant_for_use names the tool');
SELECT throws_ok($$SELECT agent_state._tool_grant_for_use(pg_temp.id('a'), 't300.only_b')$$, '42501',
                 NULL, '_tool_grant_for_use: not granted is 42501');
SELECT throws_ok($$SELECT agent_state._tool_grant_for_use(pg_temp.id('a'), 'never registered')$$, '42501',
                 NULL, '_tool_grant_for_use: unknown tool is 42501');
SET ROLE t300_op;
SELECT agent_state.grant_tool(pg_temp.id('a'), 't300.fetch', false);
RESET ROLE;
SELECT throws_matching($$SELECT agent_state._tool_grant_for_use(pg_temp.id('a'), 't300.fetch')$$,
                       '^tool: ''t300\.fetch'' is disabled', '_tool_grant_for_use: disabled names the tool');

-- A grant validated against an old contract stays as it was granted.
SET ROLE t300_op;
SELECT agent_state.register_tool('t300.search', '2.0', '{"type": "object"}');
SELECT is(agent_state.grant_tool(pg_temp.id('a'), 't300.search', true, '{"anything": 1}'), 5,
          'a grant after a new registration is validated against the new contract');
RESET ROLE;
SELECT results_eq(
    $$SELECT g.revision, g.tool_version, g.tool_revision FROM agent_state.tool_grants AS g
      WHERE g.runtime_agent_id = pg_temp.id('a') AND g.tool_name = 't300.search' AND g.revision IN (4, 5)
      ORDER BY g.revision$$,
    $$VALUES (4, '1.0', 1), (5, '2.0', 2)$$,
    'each grant records the tool version it was validated against');

-- ---------------------------------------------------------------- tool_grant_history
SET ROLE t300_ra;
SELECT results_eq(
    $$SELECT h.revision, h.enabled, h.config, h.created_by FROM agent_state.tool_grant_history(pg_temp.id('a'), 't300.search') AS h$$,
    $$VALUES (1, true, '{"region": "eu"}'::jsonb, 't300_op'),
             (2, true, '{"region": "us", "limit": 5}'::jsonb, 't300_op'),
             (3, false, '{}'::jsonb, 't300_op'),
             (4, true, '{"region": "eu", "limit": 1}'::jsonb, 't300_op'),
             (5, true, '{"anything": 1}'::jsonb, 't300_op')$$,
    'tool_grant_history lists every revision, oldest first (a hosting runtime reads it)');
SELECT ok((SELECT pg_catalog.bool_and(h.created_at IS NOT NULL)
           FROM agent_state.tool_grant_history(pg_temp.id('a'), 't300.search') AS h),
          'history rows carry created_at');
SELECT is_empty($$SELECT * FROM agent_state.tool_grant_history(pg_temp.id('a'), 't300.only_b')$$,
                'a registered tool never granted to this agent: no rows (the other agent''s grant is not shown)');
SELECT throws_ok($$SELECT * FROM agent_state.tool_grant_history(pg_temp.id('a'), 't300.none')$$, 'P0002',
                 NULL, 'history of an unregistered tool: P0002');
SELECT throws_ok($$SELECT * FROM agent_state.tool_grant_history(pg_temp.id('b'), 't300.search')$$, '42501',
                 NULL, 'history of an agent not hosted: 42501');
SELECT throws_ok($$SELECT * FROM agent_state.tool_grant_history(pg_temp.id('a'), NULL)$$, '22004',
                 NULL, 'history: tool null is 22004');
RESET ROLE;

-- ---------------------------------------------------------------- direct DML
-- A DBA grants table privileges: policies and triggers still hold.
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON agent_state.tool_grants, agent_state.tools,
    agent_state.tool_versions TO t300_ra, t300_op;
SET ROLE t300_ra;
SELECT throws_ok($$INSERT INTO agent_state.tool_grants
        (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision)
    VALUES (pg_temp.id('a'), 't300.only_b', 1, true, '{}', '1', 1)$$, '42501',
    NULL, 'a runtime with table privileges cannot insert a grant for the agent it hosts');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_grants AS g
           WHERE g.runtime_agent_id = pg_temp.id('a')), 7::bigint,
          'a runtime with table privileges sees the grants of the agent it hosts');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_grants AS g
           WHERE g.runtime_agent_id <> pg_temp.id('a')), 0::bigint,
          'and no grant of any other agent');
SELECT is_empty($$SELECT * FROM agent_state.tools$$, 'a runtime with table privileges sees no tools rows');
UPDATE agent_state.tool_grants SET enabled = true WHERE tool_name = 't300.fetch';
DELETE FROM agent_state.tool_grants WHERE tool_name = 't300.fetch';
SELECT throws_ok($$TRUNCATE agent_state.tool_grants CASCADE$$, '42501', NULL, 'a runtime cannot truncate tool_grants');
RESET ROLE;
SELECT results_eq(
    $$SELECT g.revision, g.enabled FROM agent_state.tool_grants AS g
      WHERE g.runtime_agent_id = pg_temp.id('a') AND g.tool_name = 't300.fetch' ORDER BY g.revision$$,
    $$VALUES (1, true), (2, false)$$,
    'a runtime''s UPDATE and DELETE changed nothing');

SET ROLE t300_op;
SELECT throws_ok($$UPDATE agent_state.tool_grants SET enabled = true
                   WHERE runtime_agent_id = pg_temp.id('a') AND tool_name = 't300.fetch'$$, '42501',
                 NULL, 'an operator cannot update a grant');
SELECT throws_ok($$DELETE FROM agent_state.tool_grants WHERE runtime_agent_id = pg_temp.id('a')$$, '42501',
                 NULL, 'an operator cannot delete a grant');
RESET ROLE;
SELECT throws_ok($$UPDATE agent_state.tool_grants SET config = '{"region": "mars"}'
                   WHERE runtime_agent_id = pg_temp.id('a')$$, '42501',
                 NULL, 'the owner cannot update a grant');
SELECT throws_ok($$DELETE FROM agent_state.tool_grants$$, '42501', NULL, 'the owner cannot delete grants');
SELECT throws_ok($$TRUNCATE agent_state.tool_grants CASCADE$$, '42501', NULL, 'the owner cannot truncate grants');
SELECT throws_ok($$UPDATE agent_state.tool_versions SET config_schema = '{}'$$, '42501',
                 NULL, 'registration history cannot be updated');
SELECT throws_ok($$DELETE FROM agent_state.tool_versions$$, '42501', NULL, 'registration history cannot be deleted');
SELECT throws_ok($$DELETE FROM agent_state.tools WHERE tool_name = 't300.only_b'$$, '42501',
                 NULL, 'a registered tool cannot be deleted');
SELECT throws_ok($$UPDATE agent_state.tools SET created_by = 'someone' WHERE tool_name = 't300.only_b'$$,
                 '42501', NULL, 'only the contract columns of tools may change');
SELECT throws_ok($$INSERT INTO agent_state.tool_grants
        (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision)
    VALUES (pg_temp.id('a'), 't300.never', 1, true, '{}', '1', 1)$$, '23503',
    NULL, 'a grant of an unregistered tool is refused by the database');
INSERT INTO agent_state.tool_grants
    (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision, created_by, created_at)
VALUES (pg_temp.id('a'), 't300.only_b', 1, true, '{}', '1', 1, 'forged', '2000-01-01');
SELECT results_eq(
    $$SELECT g.created_by::text COLLATE "default", g.created_at > '2001-01-01' FROM agent_state.tool_grants AS g
      WHERE g.runtime_agent_id = pg_temp.id('a') AND g.tool_name = 't300.only_b'$$,
    $$VALUES (current_user::text COLLATE "default", true)$$,
    'direct inserts cannot forge created_by or created_at');

SELECT * FROM finish();
ROLLBACK;
