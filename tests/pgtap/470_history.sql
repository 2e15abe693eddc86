-- The whole state as of a moment, and its timeline (SPEC section 13):
-- tool_grants(as_of), export_markdown(as_of) and timeline().
BEGIN;
SELECT plan(20);

\ir _setup.sql

CREATE ROLE t470_op IN ROLE agent_state_operator;
CREATE ROLE t470_rt IN ROLE agent_state_runtime;
CREATE ROLE t470_other IN ROLE agent_state_runtime;

SET ROLE t470_op;
SELECT pg_temp.mark('start');
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t470-a', 'Old name'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't470_rt') \g /dev/null
SELECT agent_state.register_tool('t470_search', '1', '{}') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Persona one') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't470_search', true, '{}') \g /dev/null
INSERT INTO pg_temp.ids SELECT 'e', n.entry FROM agent_state.note(pg_temp.id('a'), 'likes green tea') AS n;
INSERT INTO pg_temp.ids SELECT 'gone', n.entry FROM agent_state.note(pg_temp.id('a'), 'secret plan') AS n;
SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('gone'), 'test') \g /dev/null
SELECT pg_temp.mark('tuesday');
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Persona two') \g /dev/null
SELECT agent_state.revise_profile(pg_temp.id('a'), display_name => 'New name') \g /dev/null
SELECT agent_state.grant_tool(pg_temp.id('a'), 't470_search', false, '{}') \g /dev/null
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e'), 'likes black coffee', 1) \g /dev/null
INSERT INTO pg_temp.ids SELECT 'later', n.entry FROM agent_state.note(pg_temp.id('a'), 'joined later') AS n;
SELECT pg_temp.mark('end');
RESET ROLE;

-- ---------------------------------------------------------------- tool_grants
SET ROLE t470_rt;
SELECT results_eq($$SELECT tool, revision, enabled FROM agent_state.tool_grants(pg_temp.id('a'))$$,
                  $$VALUES ('t470_search'::text, 2, false)$$, 'tool_grants: the current grant');
SELECT results_eq($$SELECT tool, revision, enabled
                    FROM agent_state.tool_grants(pg_temp.id('a'), pg_temp.t('tuesday'))$$,
                  $$VALUES ('t470_search'::text, 1, true)$$, 'tool_grants(as_of): the grant of then');
SELECT is_empty($$SELECT * FROM agent_state.tool_grants(pg_temp.id('a'), pg_temp.t('start'))$$,
                'tool_grants before any grant: none');
SELECT results_eq($$SELECT revision FROM agent_state.tool_grants(pg_temp.id('a'), 'infinity')$$,
                  $$VALUES (2)$$, 'a moment after now: the state now');

-- ---------------------------------------------------------------- export_markdown
SELECT ok(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) LIKE '# Old name%',
          'export_markdown(as_of): the profile of then');
SELECT ok(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) LIKE '%Persona one%'
          AND agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) NOT LIKE '%Persona two%',
          'the persona active then');
SELECT ok(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) LIKE '%likes green tea%'
          AND agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) NOT LIKE '%joined later%',
          'each memory as its revision of then, none created since');
SELECT ok(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) LIKE '%t470_search: revision 1, enabled%',
          'the grant of then');
SELECT ok(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('tuesday')) NOT LIKE '%secret plan%'
          AND agent_state.export_markdown(pg_temp.id('a')) NOT LIKE '%secret plan%',
          'a redacted entry shows at no moment');
SELECT ok(agent_state.export_markdown(pg_temp.id('a')) LIKE '# New name%'
          AND agent_state.export_markdown(pg_temp.id('a')) LIKE '%likes black coffee%'
          AND agent_state.export_markdown(pg_temp.id('a')) LIKE '%Persona two%',
          'export_markdown without as_of: now');
SELECT is(agent_state.export_markdown(pg_temp.id('a'), pg_temp.t('end')),
          agent_state.export_markdown(pg_temp.id('a')), 'as of the last change it equals now');

-- ---------------------------------------------------------------- timeline
SELECT results_eq(
    $$SELECT kind, operation, revision FROM agent_state.timeline(pg_temp.id('a'), pg_temp.t('tuesday'))$$,
    $$VALUES ('persona'::text, 'revise'::text, 2), ('persona', 'activate', 2), ('profile', 'revise', 2),
             ('tool', 'grant', 2), ('memory', 'amend', 2), ('memory', 'create', 1)$$,
    'timeline(since): the changes since, oldest first');
SELECT is((SELECT count(*) FROM agent_state.timeline(pg_temp.id('a'))), 13::bigint,
          'timeline(): every change (profile, persona x2, grant, two notes, redaction, and the rest)');
SELECT ok((SELECT bool_and(t.changed_by = 't470_op') FROM agent_state.timeline(pg_temp.id('a')) AS t),
          'with who made each change');
SELECT results_eq(
    $$SELECT object FROM agent_state.timeline(pg_temp.id('a'), until => pg_temp.t('tuesday'))
      WHERE operation = 'redact'$$,
    $$SELECT pg_temp.id('gone')::text$$, 'a redaction is a change of its entry');
SELECT is((SELECT count(*) FROM agent_state.timeline(pg_temp.id('a'), max_results => 2)), 2::bigint,
          'max_results caps the rows');
SELECT throws_ok($$SELECT * FROM agent_state.timeline(pg_temp.id('a'), max_results => 0)$$, '22023', NULL,
                 'max_results below 1: 22023');
SELECT throws_ok($$SELECT * FROM agent_state.timeline(pg_temp.id('a'), max_results => NULL)$$, '22004', NULL,
                 'max_results null: 22004');
RESET ROLE;
SET ROLE t470_other;
SELECT throws_ok($$SELECT * FROM agent_state.timeline(pg_temp.id('a'))$$, '42501', NULL,
                 'a runtime not hosting the agent cannot read its timeline');
SELECT throws_ok($$SELECT * FROM agent_state.tool_grants(pg_temp.id('a'))$$, '42501', NULL,
                 'nor its grants');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
