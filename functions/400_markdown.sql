-- Markdown views of an agent's state: export_markdown (a deterministic, read-only
-- rendering) and import_markdown (migrates a markdown memory file into entries
-- whose evidence is the stored file).

-- Compact JSON with object keys in byte order, the same text for equal values.
CREATE FUNCTION agent_state._json_canonical(val jsonb)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    CASE pg_catalog.jsonb_typeof(val)
    WHEN 'object' THEN
        RETURN '{' || coalesce((
            SELECT pg_catalog.string_agg(
                pg_catalog.to_jsonb(e.key)::text || ':' || agent_state._json_canonical(e.value), ','
                ORDER BY e.key COLLATE "C")
            FROM pg_catalog.jsonb_each(val) AS e
        ), '') || '}';
    WHEN 'array' THEN
        RETURN '[' || coalesce((
            SELECT pg_catalog.string_agg(agent_state._json_canonical(e.value), ',' ORDER BY e.n)
            FROM pg_catalog.jsonb_array_elements(val) WITH ORDINALITY AS e (value, n)
        ), '') || ']';
    ELSE
        RETURN val::text;
    END CASE;
END
$$;

-- One line of heading text: control characters (newlines, tabs) become spaces,
-- surrounding spaces are dropped.
CREATE FUNCTION agent_state._md_line(val text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.btrim(pg_catalog.regexp_replace(val, '[[:cntrl:]]', ' ', 'g'))
$$;

-- A body as export lines: line endings normalised to \n, trailing blanks removed
-- from every line, leading and trailing empty lines dropped.
CREATE FUNCTION agent_state._md_body(val text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.rtrim(
        pg_catalog.regexp_replace(
            pg_catalog.regexp_replace(
                pg_catalog.regexp_replace(val, E'\r\n?', E'\n', 'g'),
                E'[ \t]+(?=\n|$)', '', 'g'),
            E'^\n+', ''),
        E'\n')
$$;

-- The list items of a markdown document, in document order: line_no of the item's
-- first line, its text, and the actor id named by the enclosing "### Name (<uuid>)"
-- heading (null when there is none).
--
-- An item starts at a line "- text" or "* text" (indented at most 3 spaces). Lines
-- that follow it belong to it when indented (nested lists, continuation paragraphs,
-- also after blank lines) or, without a blank line in between, when they are plain
-- text (lazy continuation); they are joined with newlines, leading whitespace
-- removed. Everything else (headings, paragraphs, fenced code blocks, thematic
-- breaks) ends the item and is not an item itself. Blank items are skipped.
-- So that an export can be imported again, an item whose first line is a
-- provenance line written by export_markdown ("(entry <uuid>, revision n, ...)")
-- keeps only the lines after it, and the export's own "## Persona (revision n)" /
-- "## Persona (none)" and "## Tool grants" sections are skipped.
CREATE FUNCTION agent_state._markdown_items(document text)
RETURNS TABLE (line_no integer, body text, subject_ref uuid)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    ln text;
    n integer := 0;
    in_fence boolean := false;
    skipping boolean := false;
    prev_blank boolean := true;
    cur text;
    cur_line integer;
    subj uuid;
    m text [];
    heading text;
BEGIN
    FOREACH ln IN ARRAY pg_catalog.string_to_array(
        pg_catalog.replace(document, E'\r\n', E'\n'), E'\n') LOOP
        n := n + 1;
        ln := pg_catalog.replace(ln, E'\r', '');
        IF in_fence THEN
            IF ln ~ '^ {0,3}(```|~~~)' THEN
                in_fence := false;
            END IF;
            CONTINUE;
        END IF;
        IF pg_catalog.btrim(ln, E' \t') = '' THEN
            prev_blank := true;
            CONTINUE;
        END IF;

        -- Inside an item: lines indented two spaces or a tab (nested lists too)
        -- continue it; one space continues it unless the line is a sibling item.
        IF cur IS NOT NULL AND (ln ~ E'^(  |\t)' OR (ln ~ '^ ' AND ln !~ E'^ [-*]([ \t]|$)')) THEN
            cur := CASE WHEN cur = '' THEN '' ELSE cur || E'\n' END || pg_catalog.btrim(ln, E' \t');
            prev_blank := false;
            CONTINUE;
        END IF;

        m := pg_catalog.regexp_match(ln, E'^ {0,3}[-*](?:[ \t]+(.*))?$');
        IF m IS NOT NULL AND ln !~ E'^ {0,3}([-*])([ \t]*\\1){2,}[ \t]*$' THEN
            IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(cur, E' \t\n') <> '' THEN
                line_no := cur_line; body := cur; subject_ref := subj;
                RETURN NEXT;
            END IF;
            cur := pg_catalog.btrim(coalesce(m[1], ''), E' \t');
            IF cur ~ '^\(entry [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}, revision [0-9]+, .*\)$' THEN
                cur := '';
            END IF;
            cur_line := n;
            prev_blank := false;
            CONTINUE;
        END IF;

        -- Any other line: lazy continuation of an item, or the item ends here.
        IF cur IS NOT NULL AND NOT prev_blank
            AND ln !~ '^ {0,3}(#{1,6}([ \t]|$)|```|~~~)'
            AND ln !~ E'^ {0,3}([-*_])([ \t]*\\1){2,}[ \t]*$' THEN
            cur := CASE WHEN cur = '' THEN '' ELSE cur || E'\n' END || pg_catalog.btrim(ln, E' \t');
            CONTINUE;
        END IF;
        IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(cur, E' \t\n') <> '' THEN
            line_no := cur_line; body := cur; subject_ref := subj;
            RETURN NEXT;
        END IF;
        cur := NULL;
        prev_blank := false;

        IF ln ~ '^ {0,3}(```|~~~)' THEN
            in_fence := true;
            CONTINUE;
        END IF;
        m := pg_catalog.regexp_match(ln, E'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$');
        IF m IS NOT NULL THEN
            heading := pg_catalog.btrim(pg_catalog.regexp_replace(coalesce(m[2], ''), E'[ \t]+#+$', ''), E' \t');
            IF pg_catalog.length(m[1]) <= 2 THEN
                skipping := pg_catalog.length(m[1]) = 2
                    AND heading ~ '^(Persona \((revision [0-9]+|none)\)|Tool grants)$';
                subj := NULL;
            ELSIF pg_catalog.length(m[1]) = 3 THEN
                subj := pg_catalog.substring(heading,
                    '\(([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\)$')::uuid;
            END IF;
        END IF;
    END LOOP;
    IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(cur, E' \t\n') <> '' THEN
        line_no := cur_line; body := cur; subject_ref := subj;
        RETURN NEXT;
    END IF;
END
$$;

CREATE FUNCTION agent_state.export_markdown(agent uuid)
RETURNS text
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    title text;
    handle text;
    persona text;
    memories text;
    grants text;
BEGIN
    PERFORM agent_state._bind(agent);

    SELECT agent_state._md_line(coalesce(a.display_name, a.handle)), agent_state._md_line(a.handle)
    INTO title, handle
    FROM agent_state.agents AS a
    WHERE a.runtime_agent_id = agent;

    -- The persona is quoted, so its text can never read as a section of the export.
    SELECT '## Persona (revision ' || r.revision || E')\n\n'
        || pg_catalog.regexp_replace(
            '> ' || pg_catalog.replace(agent_state._md_body(r.body), E'\n', E'\n> '), '> $', '>', 'gn')
    INTO persona
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = agent AND r.is_active;

    -- Live entries grouped by subject (by display name, then actor id; unattributed
    -- last), each group oldest entry first. Each item's first line is its
    -- provenance (entry, current revision, visibility, source), written by the
    -- database, so no body text can pass for it; the body follows, indented.
    WITH e AS (
        SELECT m.entry_id, m.current_revision, m.body, m.subject_id, m.visibility, m.created_at,
               r.source_type, r.source_actor_id, r.source_import_id,
               subj.display_name AS subject_name,
               src.display_name AS source_name,
               (SELECT pg_catalog.count(*) FROM agent_state.memory_evidence AS ev
                WHERE ev.runtime_agent_id = m.runtime_agent_id AND ev.entry_id = m.entry_id
                  AND ev.revision = m.current_revision) AS evidence_count
        FROM agent_state.memory_entries AS m
        JOIN agent_state.memory_revisions AS r
          ON r.runtime_agent_id = m.runtime_agent_id AND r.entry_id = m.entry_id
         AND r.revision = m.current_revision
        LEFT JOIN agent_state.actors AS subj
          ON subj.runtime_agent_id = m.runtime_agent_id AND subj.actor_id = m.subject_id
        LEFT JOIN agent_state.actors AS src
          ON src.runtime_agent_id = r.runtime_agent_id AND src.actor_id = r.source_actor_id
        WHERE m.runtime_agent_id = agent AND m.live
          AND NOT EXISTS (
              SELECT FROM agent_state.memory_redactions AS x
              WHERE x.runtime_agent_id = m.runtime_agent_id AND x.entry_id = m.entry_id
          )
    ),
    groups AS (
        SELECT e.subject_id, e.subject_name,
               CASE WHEN e.subject_id IS NULL THEN '### Unattributed'
                   ELSE '### ' || agent_state._md_line(coalesce(e.subject_name, 'Unnamed actor'))
                       || ' (' || e.subject_id || ')'
               END || E'\n\n' || pg_catalog.string_agg(
                   '- (entry ' || e.entry_id || ', revision ' || e.current_revision
                   || ', ' || e.visibility || ', source ' || e.source_type
                   || CASE WHEN e.source_actor_id IS NOT NULL
                       THEN ', actor ' || agent_state._md_line(coalesce(e.source_name, 'Unnamed actor'))
                           || ' (' || e.source_actor_id || ')'
                       ELSE '' END
                   || CASE WHEN e.source_import_id IS NOT NULL
                       THEN ', import ' || e.source_import_id ELSE '' END
                   || CASE WHEN e.evidence_count = 1 THEN ', 1 evidence message'
                       WHEN e.evidence_count > 1 THEN ', ' || e.evidence_count || ' evidence messages'
                       ELSE '' END
                   || E')\n  ' || pg_catalog.regexp_replace(
                       agent_state._md_body(e.body), E'\n(?=[^\n])', E'\n  ', 'g'),
                   E'\n' ORDER BY e.created_at, e.entry_id) AS txt
        FROM e
        GROUP BY e.subject_id, e.subject_name
    )
    SELECT pg_catalog.string_agg(g.txt, E'\n\n'
        ORDER BY g.subject_id IS NULL, g.subject_name COLLATE "C" NULLS LAST, g.subject_id)
    INTO memories
    FROM groups AS g;

    SELECT pg_catalog.string_agg(
        '- ' || agent_state._md_line(g.tool_name) || ': revision ' || g.revision
        || CASE WHEN g.enabled THEN ', enabled' ELSE ', disabled' END
        || ', config ' || agent_state._json_canonical(g.config)
        || ', tool version ' || agent_state._md_line(g.tool_version),
        E'\n' ORDER BY g.tool_name COLLATE "C")
    INTO grants
    FROM (
        SELECT DISTINCT ON (tg.tool_name) tg.tool_name, tg.revision, tg.enabled, tg.config, tg.tool_version
        FROM agent_state.tool_grants AS tg
        WHERE tg.runtime_agent_id = agent
        ORDER BY tg.tool_name, tg.revision DESC
    ) AS g;

    RETURN pg_catalog.array_to_string(ARRAY[
        '# ' || title,
        'Agent `' || handle || '` (' || agent || '), exported from agent_state. '
        || 'This file is a view; the database is canonical.',
        coalesce(persona, E'## Persona (none)\n\nNo persona revision is active.'),
        '## Memories',
        coalesce(memories, 'No live memories.'),
        '## Tool grants',
        coalesce(grants, 'No tool grants.')
    ], E'\n\n') || E'\n';
END
$$;

COMMENT ON FUNCTION agent_state.export_markdown(uuid) IS
'export_markdown(agent) -> text: deterministic markdown view of the agent: active persona with '
'its revision, live memories grouped by subject with revision, visibility and provenance, and '
'the current grant of each tool. Reads only; the same state gives the same text.';

CREATE FUNCTION agent_state.import_markdown(agent uuid, document text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    bodies text [];
    subjects uuid [];
    long_line integer;
    imp bigint;
    i integer;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(document, 'document', 1000000);

    -- Parse and check everything before the first write. A heading's actor id is
    -- used as the subject only when it names an actor of this perspective.
    SELECT pg_catalog.array_agg(it.body ORDER BY it.line_no),
           pg_catalog.array_agg(a.actor_id ORDER BY it.line_no),
           pg_catalog.min(it.line_no) FILTER (WHERE pg_catalog.length(it.body) > 100000)
    INTO bodies, subjects, long_line
    FROM agent_state._markdown_items(document) AS it
    LEFT JOIN agent_state.actors AS a
      ON a.runtime_agent_id = agent AND a.actor_id = it.subject_ref;
    IF long_line IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format(
                'document: the list item at line %s is longer than 100000 characters', long_line);
    END IF;
    IF bodies IS NULL THEN
        RETURN 0;
    END IF;

    INSERT INTO agent_state.memory_imports AS mi (runtime_agent_id, document, document_sha256)
    VALUES (agent, document,
            pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(document, 'UTF8')), 'hex'))
    RETURNING mi.import_id INTO imp;

    FOR i IN 1 .. pg_catalog.cardinality(bodies) LOOP
        PERFORM agent_state._insert_memory(
            agent, bodies[i], subjects[i], 'perspective', 'import', NULL, NULL, imp);
    END LOOP;
    RETURN pg_catalog.cardinality(bodies);
END
$$;

COMMENT ON FUNCTION agent_state.import_markdown(uuid, text) IS
'import_markdown(agent, document) -> int (operator): stores the document as an import and '
'makes one memory entry (source_type import, visibility perspective) per list item; returns '
'the number created (0 when the document has no list items). Headings create no actors: a '
'"### Name (<actor id>)" heading sets the subject only for an actor of this agent. '
'Blank document or longer than 1,000,000 characters, or an item over 100,000: 22023.';
