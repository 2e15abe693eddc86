-- verify()'s per-row rules (SPEC section 14): every kind of row it checks one by
-- one, broken with the triggers off (a restore, a superuser's repair gone wrong),
-- is reported with its check and the row it names, all in one run: one broken
-- row does not hide the next (_verify_invariants catches each in one place).
BEGIN;
SELECT plan(8);
\ir _setup.sql

DO $roles$
BEGIN
    CREATE ROLE agent_state_lifecycle_host;
EXCEPTION WHEN duplicate_object THEN
    NULL;
END
$roles$;
\ir ../lifecycle/realistic_state.sql
INSERT INTO pg_temp.ids
SELECT 'a', a.runtime_agent_id FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
SELECT is_empty($$ SELECT * FROM agent_state.verify(pg_temp.id('a')) $$, 'the fixture is whole');

-- Which rows are broken, by name.
INSERT INTO pg_temp.ids
SELECT 'entry', e.entry_id FROM agent_state.memory_entries AS e
WHERE e.runtime_agent_id = pg_temp.id('a') AND e.live AND NOT EXISTS (
    SELECT FROM agent_state.memory_redactions AS d WHERE d.entry_id = e.entry_id)
ORDER BY e.entry_id LIMIT 1;
INSERT INTO pg_temp.ids
SELECT 'redacted', d.entry_id FROM agent_state.memory_redactions AS d
WHERE d.runtime_agent_id = pg_temp.id('a') ORDER BY d.entry_id LIMIT 1;
INSERT INTO pg_temp.ids
SELECT 'sourced', v.entry_id FROM agent_state.memory_revisions AS v
WHERE v.runtime_agent_id = pg_temp.id('a') AND v.source_message_id IS NOT NULL
  AND v.entry_id NOT IN (pg_temp.id('entry'), pg_temp.id('redacted'))
ORDER BY v.entry_id LIMIT 1;
INSERT INTO pg_temp.ids
SELECT 'message', m.message_id FROM agent_state.messages AS m
JOIN agent_state.conversations AS c
  ON c.runtime_agent_id = m.runtime_agent_id AND c.conversation_id = m.conversation_id
WHERE m.runtime_agent_id = pg_temp.id('a') AND c.kind <> 'public'
ORDER BY m.message_id LIMIT 1;
INSERT INTO pg_temp.ids
SELECT 'snapshot', s.snapshot_id FROM agent_state.prompt_snapshots AS s
WHERE s.runtime_agent_id = pg_temp.id('a') ORDER BY s.snapshot_id LIMIT 1;

SET LOCAL session_replication_role = replica;
UPDATE agent_state.memory_entries SET body = 'changed behind its revision'
WHERE entry_id = pg_temp.id('entry');
UPDATE agent_state.memory_revisions SET body = 'the erased text, back'
WHERE entry_id = pg_temp.id('redacted') AND revision = 1;
UPDATE agent_state.memory_revisions SET source_actor_id = '00000000-0000-4000-8000-000000000535'
WHERE entry_id = pg_temp.id('sourced') AND source_message_id IS NOT NULL;
UPDATE agent_state.persona_revisions SET is_active = false WHERE runtime_agent_id = pg_temp.id('a');
UPDATE agent_state.messages SET audience = NULL WHERE message_id = pg_temp.id('message');
UPDATE agent_state.prompt_snapshots SET memory_count = memory_count + 1
WHERE snapshot_id = pg_temp.id('snapshot');
INSERT INTO agent_state.tools (tool_name, version, config_schema) VALUES ('t535_unregistered', '1', '{}');
RESET session_replication_role;

CREATE TEMP TABLE found AS
SELECT v.check_name, v.object, v.detail FROM agent_state.verify() AS v
WHERE v.check_name NOT LIKE 'chain\_%';

SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'memory_entry'
                  AND object = pg_catalog.format('agent %s: %s', pg_temp.id('a'), pg_temp.id('entry'))),
          'an entry that is not its latest revision');
SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'memory_redaction'
                  AND object = pg_catalog.format('agent %s: %s', pg_temp.id('a'), pg_temp.id('redacted'))),
          'a redacted entry whose text came back');
SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'memory_revision'
                  AND object LIKE pg_catalog.format('agent %s: entry %s revision %%', pg_temp.id('a'),
                                                    pg_temp.id('sourced'))
                  AND detail LIKE '23514: memory_revisions: revision %'),
          'a revision whose source actor is not its message''s author');
SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'persona'
                  AND object = pg_catalog.format('agent %s: %s', pg_temp.id('a'), pg_temp.id('a'))),
          'an agent without an active persona');
SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'message_audience'
                  AND object = pg_catalog.format('agent %s: message %s', pg_temp.id('a'), pg_temp.id('message'))
                  AND detail LIKE '22004: %'),
          'a message of a private conversation without an audience');
SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'snapshot_sources'
                  AND object = pg_catalog.format('agent %s: snapshot %s', pg_temp.id('a'), pg_temp.id('snapshot'))),
          'a snapshot that declares more sources than it has');
SELECT ok(EXISTS (SELECT FROM pg_temp.found WHERE check_name = 'tool' AND object = 't535_unregistered'),
          'a tool without its registration (named alone: tools are deployment-wide)');

SELECT * FROM finish();
ROLLBACK;
