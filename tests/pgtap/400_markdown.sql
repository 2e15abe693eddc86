-- Markdown views: export_markdown (deterministic, read-only, one perspective only)
-- and import_markdown (operator; one import-sourced entry per list item, the file
-- kept as evidence), including the import -> export round trip.
BEGIN;
SELECT plan(65);

CREATE ROLE t400_op IN ROLE agent_state_operator;
CREATE ROLE t400_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t400_out LOGIN;
\ir _setup.sql
CREATE TEMP TABLE docs (k text PRIMARY KEY, v text NOT NULL);
CREATE FUNCTION pg_temp.doc(key text) RETURNS text LANGUAGE sql STABLE
AS $$ SELECT d.v FROM pg_temp.docs AS d WHERE d.k = key $$;
GRANT ALL ON pg_temp.docs TO PUBLIC;

SET ROLE t400_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t400-a', 'Agent Ä "quoted"')),
    ('b', agent_state.create_agent('t400-b')),
    ('c', agent_state.create_agent('t400-c', 'Exact')),
    ('d', agent_state.create_agent('t400-d'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't400_ra');
INSERT INTO pg_temp.ids VALUES
    ('alice', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1', 'Alice')),
    ('zed', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U2', 'Zed')),
    ('b_actor', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1', 'Alice seen by B')),
    ('conv', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1'));
RESET ROLE;

-- ---------------------------------------------------------------- import_markdown: refusals
SET ROLE t400_ra;
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'), '- x')$$, '42501',
                 NULL, 'a runtime cannot import');
RESET ROLE;
GRANT EXECUTE ON FUNCTION agent_state.import_markdown(uuid, text) TO t400_ra;
SET ROLE t400_ra;
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'), '- x')$$, '42501',
                 NULL, 'a runtime granted EXECUTE is still refused');
RESET ROLE;
SET ROLE t400_out;
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'), '- x')$$, '42501',
                 NULL, 'an outsider cannot import');
RESET ROLE;
SET ROLE t400_op;
SELECT throws_ok($$SELECT agent_state.import_markdown(NULL, '- x')$$, '22004', NULL, 'agent null: 22004');
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_catalog.gen_random_uuid(), '- x')$$, 'P0002',
                 NULL, 'unknown agent: P0002');
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'), NULL)$$, '22004',
                 'document: must not be null', 'document null: 22004');
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'), '')$$, '22023',
                 'document: must not be empty', 'empty document: 22023');
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'), E'  \n\t\r\n ')$$, '22023',
                 'document: must not be empty', 'blank document: 22023');
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'),
                   '- ok' || pg_catalog.repeat('x', 1000000))$$, '22023',
                 'document: longer than 1000000 characters', 'a document over 1,000,000 characters: 22023');
SELECT throws_ok($$SELECT agent_state.import_markdown(pg_temp.id('a'),
                   E'- fine\n\n- ' || pg_catalog.repeat('y', 100001))$$, '22023',
                 'document: the list item at line 3 is longer than 100000 characters',
                 'an item over 100,000 characters: 22023 naming its line');
SELECT is(agent_state.import_markdown(pg_temp.id('a'), E'# Notes\n\nOnly prose here.\n\n- \n-\n'), 0,
          'a document without (non-blank) list items imports nothing and returns 0');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_imports AS i
           WHERE i.runtime_agent_id = pg_temp.id('a')), 0::bigint,
          'refused and empty imports stored no document');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_entries AS e
           WHERE e.runtime_agent_id = pg_temp.id('a')), 0::bigint,
          'refused and empty imports created no entry');

-- ---------------------------------------------------------------- import_markdown
INSERT INTO pg_temp.docs VALUES ('memory',
    E'# MEMORY.md\r\n'
    || E'\r\n'
    || E'Intro prose is not a memory.\r\n'
    || E'- Prefers tea over coffee 🍵\r\n'
    || E'- Works on the infra team\r\n'
    || E'  and owns the deploy pipeline.\r\n'
    || E'  - nested: on call in March\r\n'
    || E'* Star bullets count too\r\n'
    || E'\r\n'
    || E'```\r\n- inside a code fence, not an item\r\n```\r\n'
    || E'---\r\n'
    || E'## People\r\n'
    || E'### Alice (' || pg_temp.id('alice') || E')\r\n'
    || E'- Alice likes Ünïcode and "quotes" \\ backslashes\r\n'
    || E'### Other perspective (' || pg_temp.id('b_actor') || E')\r\n'
    || E'- A heading naming another agent''s actor sets no subject\r\n'
    || E'### Carol\r\n'
    || E'- A name alone creates no actor\r\n');
SET ROLE t400_op;
SELECT is(agent_state.import_markdown(agent => pg_temp.id('a'), document => pg_temp.doc('memory')), 6,
          'import_markdown returns the number of entries created (one per list item)');
RESET ROLE;
SELECT results_eq(
    $$SELECT i.document = pg_temp.doc('memory'),
             i.document_sha256 = pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(pg_temp.doc('memory'), 'UTF8')), 'hex'),
             i.created_by::text COLLATE "default"
      FROM agent_state.memory_imports AS i WHERE i.runtime_agent_id = pg_temp.id('a')$$,
    $$VALUES (true, true, 't400_op')$$,
    'the document is stored verbatim with its sha256 and who imported it');
SELECT results_eq(
    $$SELECT e.body, e.subject_id, e.visibility, e.source_type, r.source_import_id = i.import_id,
             r.operation, r.source_actor_id IS NULL AND r.source_message_id IS NULL
      FROM agent_state.memory_entries AS e
      JOIN agent_state.memory_revisions AS r
        ON r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id AND r.revision = 1
      JOIN agent_state.memory_imports AS i ON i.runtime_agent_id = e.runtime_agent_id
      WHERE e.runtime_agent_id = pg_temp.id('a')
      ORDER BY e.created_at$$,
    $$VALUES
      ('Prefers tea over coffee 🍵', NULL::uuid, 'perspective', 'import', true, 'create', true),
      (E'Works on the infra team\nand owns the deploy pipeline.\n- nested: on call in March', NULL, 'perspective', 'import', true, 'create', true),
      ('Star bullets count too', NULL, 'perspective', 'import', true, 'create', true),
      ('Alice likes Ünïcode and "quotes" \ backslashes', pg_temp.id('alice'), 'perspective', 'import', true, 'create', true),
      ('A heading naming another agent''s actor sets no subject', NULL, 'perspective', 'import', true, 'create', true),
      ('A name alone creates no actor', NULL, 'perspective', 'import', true, 'create', true)$$,
    'one import-sourced entry per item: continuation lines joined, fences and prose skipped, '
    || 'subject only from an actor of this perspective');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actors AS a WHERE a.runtime_agent_id = pg_temp.id('a')),
          2::bigint, 'headings created no actors');
SELECT results_eq(
    $$SELECT h.operation, h.source_type, h.source_actor, h.source_messages
      FROM agent_state.memory_entries AS e,
           agent_state.memory_history(pg_temp.id('a'), e.entry_id) AS h
      WHERE e.runtime_agent_id = pg_temp.id('a') AND e.body LIKE 'Prefers tea%'$$,
    $$VALUES ('create', 'import', NULL::uuid, '{}'::uuid [])$$,
    'memory_history shows the import provenance');
SET ROLE t400_ra;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.recall(pg_temp.id('a'), 'deploy pipeline')),
          1::bigint, 'an imported entry is recalled (imports restrict nobody)');
RESET ROLE;

-- ---------------------------------------------------------------- build agent A's state
SET ROLE t400_op;
SELECT agent_state.revise_persona(pg_temp.id('a'), E'You are Agent A.\n\nBe precise.\n');
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Draft persona, never activated.', false);
INSERT INTO pg_temp.ids
SELECT 'note_zed', n.entry FROM agent_state.note(pg_temp.id('a'), 'Zed runs the Tuesday standup', pg_temp.id('zed')) AS n;
INSERT INTO pg_temp.ids
SELECT 'note_amended', n.entry FROM agent_state.note(pg_temp.id('a'), 'Office moves in May (old text)') AS n;
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('note_amended'), 'Office moves in June', 1);
INSERT INTO pg_temp.ids
SELECT 'note_forgotten', n.entry FROM agent_state.note(pg_temp.id('a'), 'Forgotten fact about parking') AS n;
SELECT agent_state.forget(pg_temp.id('a'), pg_temp.id('note_forgotten'));
INSERT INTO pg_temp.ids
SELECT 'note_redacted', n.entry FROM agent_state.note(pg_temp.id('a'), 'Redacted secret about Alice', pg_temp.id('alice')) AS n;
SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('note_redacted'), 'erasure request');
SELECT agent_state.register_tool('t400.search', '1.0',
    '{"type": "object", "properties": {"b": {"type": "array"}, "a": {"type": "integer"}}}');
SELECT agent_state.grant_tool(pg_temp.id('a'), 't400.search', true, '{"b": [1, 2], "a": 1}');
SELECT agent_state.grant_tool(pg_temp.id('a'), 't400.search', true, '{"b": [{"y": true, "x": null}], "a": 2}');
SELECT agent_state.register_tool('t400.alpha', '0.1', '{}');
SELECT agent_state.grant_tool(pg_temp.id('a'), 't400.alpha', false);
RESET ROLE;
SET ROLE t400_ra;
INSERT INTO pg_temp.ids VALUES ('msg', agent_state.record_message(
    pg_temp.id('a'), pg_temp.id('conv'), pg_temp.id('alice'), 'I am allergic to peanuts',
    ARRAY[pg_temp.id('alice')]));
SELECT agent_state.remember(pg_temp.id('a'), 'Alice is allergic to peanuts', pg_temp.id('msg'),
                            pg_temp.id('alice'), 'conversation');
RESET ROLE;

-- ---------------------------------------------------------------- export_markdown
SET ROLE t400_ra;
INSERT INTO pg_temp.docs VALUES ('export_a', agent_state.export_markdown(pg_temp.id('a')));
SELECT is(agent_state.export_markdown(agent => pg_temp.id('a')), pg_temp.doc('export_a'),
          'exporting twice gives identical text');
SELECT throws_ok($$SELECT agent_state.export_markdown(pg_temp.id('b'))$$, '42501',
                 NULL, 'a runtime cannot export an agent it does not host');
SELECT throws_ok($$SELECT agent_state.export_markdown(NULL)$$, '22004', NULL, 'agent null: 22004');
RESET ROLE;
SET ROLE t400_out;
SELECT throws_ok($$SELECT agent_state.export_markdown(pg_temp.id('a'))$$, '42501',
                 NULL, 'an outsider cannot export');
RESET ROLE;
SET ROLE t400_op;
SELECT is(agent_state.export_markdown(pg_temp.id('a')), pg_temp.doc('export_a'),
          'an operator gets the same text as the hosting runtime');
SELECT throws_ok($$SELECT agent_state.export_markdown(pg_catalog.gen_random_uuid())$$, 'P0002',
                 NULL, 'unknown agent: P0002');
RESET ROLE;
SELECT volatility_is('agent_state', 'export_markdown', ARRAY['uuid', 'timestamp with time zone'], 'stable',
                     'export_markdown is STABLE: it cannot write');

SELECT ok(pg_temp.doc('export_a') LIKE E'# Agent Ä "quoted"\n\n%', 'the export starts with the display name');
SELECT ok(pg_temp.doc('export_a') LIKE E'%\n## Persona (revision 1)\n\n> You are Agent A.\n>\n> Be precise.\n\n## Memories\n%',
          'the active persona revision and its body, quoted (not the newer inactive draft)');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%Draft persona%', 'an inactive persona revision is not exported');
SELECT ok(pg_temp.doc('export_a') LIKE E'%\n' AND pg_temp.doc('export_a') NOT LIKE E'%\n\n',
          'the export ends with exactly one newline');
SELECT ok(pg_temp.doc('export_a') NOT LIKE E'%\r%', 'no carriage returns in the export');
SELECT ok(pg_temp.doc('export_a') !~ E'[ \t]\n', 'no trailing whitespace on any line');

-- every imported item appears with import provenance
SELECT ok(pg_catalog.strpos(pg_temp.doc('export_a'),
              '- (entry ' || e.entry_id || ', revision 1, perspective, source import, import '
              || r.source_import_id || E')\n  ' || pg_catalog.replace(e.body, E'\n', E'\n  ')) > 0,
          'imported item exported with its provenance: ' || pg_catalog.left(pg_catalog.split_part(e.body, E'\n', 1), 30))
FROM agent_state.memory_entries AS e
JOIN agent_state.memory_revisions AS r
  ON r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id AND r.revision = 1
WHERE e.runtime_agent_id = pg_temp.id('a') AND e.source_type = 'import'
ORDER BY e.created_at;

SELECT ok(pg_catalog.strpos(pg_temp.doc('export_a'),
              '- (entry ' || pg_temp.id('note_amended') || E', revision 2, perspective, source operator)\n  Office moves in June') > 0,
          'an amended entry shows its current body and revision');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%Office moves in May%', 'an earlier revision''s body is not exported');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%Forgotten fact%', 'a forgotten entry is not exported');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%Redacted secret%'
          AND pg_temp.doc('export_a') NOT LIKE '%' || pg_temp.id('note_redacted') || '%',
          'a redacted entry is not exported at all');
SELECT ok(pg_temp.doc('export_a') ~ ('\n- \(entry [0-9a-f-]{36}, revision 1, conversation, source agent, actor Alice \('
                                      || pg_temp.id('alice') || '\), 1 evidence message\)\n  Alice is allergic to peanuts\n'),
          'an agent-authored entry shows visibility, source actor and evidence count');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%I am allergic%', 'message text is not exported');

-- grouping: subjects by display name, unattributed last
SELECT ok(pg_catalog.strpos(pg_temp.doc('export_a'), '### Alice (' || pg_temp.id('alice') || ')') > 0
          AND pg_catalog.strpos(pg_temp.doc('export_a'), '### Alice (' || pg_temp.id('alice') || ')')
              < pg_catalog.strpos(pg_temp.doc('export_a'), '### Zed (' || pg_temp.id('zed') || ')')
          AND pg_catalog.strpos(pg_temp.doc('export_a'), '### Zed (' || pg_temp.id('zed') || ')')
              < pg_catalog.strpos(pg_temp.doc('export_a'), '### Unattributed')
          AND pg_catalog.strpos(pg_temp.doc('export_a'), '### Unattributed')
              < pg_catalog.strpos(pg_temp.doc('export_a'), '## Tool grants'),
          'memories grouped by subject display name, unattributed last, before tool grants');
SELECT ok(pg_catalog.strpos(pg_temp.doc('export_a'), 'Alice likes Ünïcode')
              BETWEEN pg_catalog.strpos(pg_temp.doc('export_a'), '### Alice (')
                  AND pg_catalog.strpos(pg_temp.doc('export_a'), '### Zed (')
          AND pg_catalog.strpos(pg_temp.doc('export_a'), 'Zed runs the Tuesday standup')
              BETWEEN pg_catalog.strpos(pg_temp.doc('export_a'), '### Zed (')
                  AND pg_catalog.strpos(pg_temp.doc('export_a'), '### Unattributed'),
          'entries sit under their subject heading');
SELECT ok(pg_temp.doc('export_a') LIKE
          E'%\n## Tool grants\n\n'
          || E'- t400.alpha: revision 1, disabled, config {}, tool version 0.1\n'
          || E'- t400.search: revision 2, enabled, config {"a":2,"b":[{"x":null,"y":true}]}, tool version 1.0\n',
          'tool grants: current revision per tool, sorted by name, config as compact key-sorted JSON');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%"a":1%', 'an earlier grant revision is not exported');

-- ---------------------------------------------------------------- isolation
SET ROLE t400_op;
SELECT agent_state.note(pg_temp.id('b'), 'B only knows this');
INSERT INTO pg_temp.docs VALUES ('export_b', agent_state.export_markdown(pg_temp.id('b')));
RESET ROLE;
SELECT is_empty(
    $$SELECT e.body FROM agent_state.memory_entries AS e
      WHERE e.runtime_agent_id = pg_temp.id('a')
        AND pg_catalog.strpos(pg_temp.doc('export_b'), pg_catalog.split_part(e.body, E'\n', 1)) > 0$$,
    'the export of another agent contains none of this agent''s memory text');
SELECT ok(pg_temp.doc('export_b') NOT LIKE '%t400.search%' AND pg_temp.doc('export_b') NOT LIKE '%Agent A%'
          AND pg_temp.doc('export_b') NOT LIKE '%' || pg_temp.id('a') || '%',
          'nor its grants, persona or id');
SELECT ok(pg_temp.doc('export_a') NOT LIKE '%B only knows this%', 'and the other way round');

-- ---------------------------------------------------------------- exact format
SET ROLE t400_op;
SELECT agent_state.revise_persona(pg_temp.id('c'), 'Persona C');
INSERT INTO pg_temp.ids SELECT 'c_note', n.entry FROM agent_state.note(pg_temp.id('c'), E'\nLine one  \r\nline two\t\n') AS n;
SELECT agent_state.grant_tool(pg_temp.id('c'), 't400.alpha', true, '{"z": "ü", "a": [true]}');
SELECT is(agent_state.export_markdown(pg_temp.id('c')),
    E'# Exact\n'
    || E'\n'
    || E'Agent `t400-c` (' || pg_temp.id('c') || E'), exported from agent_state. This file is a view; the database is canonical.\n'
    || E'\n'
    || E'## Persona (revision 1)\n'
    || E'\n'
    || E'> Persona C\n'
    || E'\n'
    || E'## Memories\n'
    || E'\n'
    || E'### Unattributed\n'
    || E'\n'
    || E'- (entry ' || pg_temp.id('c_note') || E', revision 1, perspective, source operator)\n'
    || E'  Line one\n'
    || E'  line two\n'
    || E'\n'
    || E'## Tool grants\n'
    || E'\n'
    || E'- t400.alpha: revision 1, enabled, config {"a":[true],"z":"ü"}, tool version 0.1\n',
    'the exact export format (line endings normalised, no trailing blanks)');
SELECT is(agent_state.export_markdown(pg_temp.id('d')),
    E'# t400-d\n\nAgent `t400-d` (' || pg_temp.id('d') || E'), exported from agent_state. '
    || E'This file is a view; the database is canonical.\n\n'
    || E'## Persona (none)\n\nNo persona revision is active.\n\n'
    || E'## Memories\n\nNo live memories.\n\n'
    || E'## Tool grants\n\nNo tool grants.\n',
    'an empty agent: handle as title, every section present');

RESET ROLE;

-- ---------------------------------------------------------------- round trip
-- An export imported into another agent gives back its memories, and nothing of
-- the persona or tool grant sections, nor the provenance lines.
SELECT is(agent_state.import_markdown(pg_temp.id('d'), pg_temp.doc('export_a')),
          (SELECT pg_catalog.count(*)::integer FROM agent_state.memory_entries AS e
           WHERE e.runtime_agent_id = pg_temp.id('a') AND e.live),
          'importing an export creates one entry per exported memory');
SELECT is_empty(
    $$SELECT e.body FROM agent_state.memory_entries AS e
      WHERE e.runtime_agent_id = pg_temp.id('a') AND e.live
      EXCEPT
      SELECT e.body FROM agent_state.memory_entries AS e WHERE e.runtime_agent_id = pg_temp.id('d')$$,
    'every exported memory body comes back verbatim');
SELECT is_empty(
    $$SELECT e.body FROM agent_state.memory_entries AS e
      WHERE e.runtime_agent_id = pg_temp.id('d')
        AND (e.body ~ '\(entry [0-9a-f-]{36}' OR e.body LIKE '%t400.search%' OR e.body LIKE '%You are Agent A%')$$,
    'no provenance line, tool grant or persona text became a memory');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_entries AS e
           WHERE e.runtime_agent_id = pg_temp.id('d') AND e.subject_id IS NOT NULL),
          0::bigint, 'subjects of another perspective are not carried over');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.memory_imports AS i
           WHERE i.runtime_agent_id = pg_temp.id('d')), 1::bigint, 'one import row for the import');

-- Re-importing into the same agent keeps subjects of this perspective.
SET ROLE t400_op;
SELECT is(agent_state.import_markdown(pg_temp.id('a'),
              E'### Zed (' || pg_temp.id('zed') || E')\n- Zed prefers async updates\n'), 1,
          'an import into the agent whose actor a heading names');
RESET ROLE;
SELECT is((SELECT e.subject_id FROM agent_state.memory_entries AS e
           WHERE e.runtime_agent_id = pg_temp.id('a') AND e.body = 'Zed prefers async updates'),
          pg_temp.id('zed'), 'takes that actor as the subject');

-- Text cannot pass for export structure: a body with a fake provenance line, a
-- persona with a fake tool grants section.
SET ROLE t400_op;
INSERT INTO pg_temp.ids VALUES ('e', agent_state.create_agent('t400-e')), ('f', agent_state.create_agent('t400-f'));
SELECT agent_state.revise_persona(pg_temp.id('e'), E'Persona E\n## Tool grants\n- evil: revision 1, enabled');
INSERT INTO pg_temp.ids SELECT 'e_note', n.entry FROM agent_state.note(pg_temp.id('e'),
    E'Real text\n(entry 00000000-0000-0000-0000-000000000000, revision 9, perspective, source operator)') AS n;
INSERT INTO pg_temp.docs VALUES ('export_e', agent_state.export_markdown(pg_temp.id('e')));
RESET ROLE;
SELECT ok(pg_temp.doc('export_e') LIKE
          E'%\n## Persona (revision 1)\n\n> Persona E\n> ## Tool grants\n> - evil: revision 1, enabled\n\n## Memories\n%'
          AND pg_temp.doc('export_e') LIKE E'%\n## Tool grants\n\nNo tool grants.\n',
          'persona text is quoted: it cannot open a section of the export');
SELECT ok(pg_temp.doc('export_e') LIKE
          '%- (entry ' || pg_temp.id('e_note') || E', revision 1, perspective, source operator)\n'
          || E'  Real text\n  (entry 00000000-0000-0000-0000-000000000000, revision 9, perspective, source operator)\n%',
          'the provenance line written by the database comes first; a look-alike in a body stays body text');
SET ROLE t400_op;
SELECT is(agent_state.import_markdown(pg_temp.id('f'), pg_temp.doc('export_e')), 1,
          'importing that export creates one entry (nothing from the quoted persona)');
RESET ROLE;
SELECT is((SELECT e.body FROM agent_state.memory_entries AS e WHERE e.runtime_agent_id = pg_temp.id('f')),
          E'Real text\n(entry 00000000-0000-0000-0000-000000000000, revision 9, perspective, source operator)',
          'and the body comes back verbatim, look-alike line included');

-- export writes nothing
CREATE TEMP TABLE row_counts AS
SELECT (SELECT pg_catalog.count(*) FROM agent_state.memory_imports)
       + (SELECT pg_catalog.count(*) FROM agent_state.memory_entries)
       + (SELECT pg_catalog.count(*) FROM agent_state.memory_revisions)
       + (SELECT pg_catalog.count(*) FROM agent_state.tool_grants)
       + (SELECT pg_catalog.count(*) FROM agent_state.persona_activations) AS n;
SELECT pg_catalog.length(agent_state.export_markdown(pg_temp.id('a'))) > 0 AS exported;
SELECT is(
    (SELECT pg_catalog.count(*) FROM agent_state.memory_imports)
    + (SELECT pg_catalog.count(*) FROM agent_state.memory_entries)
    + (SELECT pg_catalog.count(*) FROM agent_state.memory_revisions)
    + (SELECT pg_catalog.count(*) FROM agent_state.tool_grants)
    + (SELECT pg_catalog.count(*) FROM agent_state.persona_activations),
    (SELECT c.n FROM row_counts AS c),
    'calling export_markdown adds no rows');

SELECT * FROM finish();
ROLLBACK;
