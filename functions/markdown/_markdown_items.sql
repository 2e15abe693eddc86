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
--
-- Linear in the document: an item's lines are collected in an array (PL/pgSQL
-- appends to an array variable in place) and joined once, when the item ends;
-- appending to a string would copy it for every line.
CREATE FUNCTION agent_state._markdown_items(document text)
RETURNS TABLE (line_no integer, body text, subject_ref uuid)
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    ln text;
    n integer := 0;
    in_fence boolean := false;
    skipping boolean := false;
    prev_blank boolean := true;
    cur text [];
    cur_line integer;
    subj uuid;
    m text [];
    heading text;
    first_line text;
    starts_item boolean;
BEGIN
    -- The document's end ends its last item as a heading would: one more line,
    -- "#", returns it with the others.
    FOREACH ln IN ARRAY pg_catalog.string_to_array(
        pg_catalog.replace(document, E'\r\n', E'\n'), E'\n') || '#'::text LOOP
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
            cur := cur || pg_catalog.btrim(ln, E' \t');
            prev_blank := false;
            CONTINUE;
        END IF;

        m := pg_catalog.regexp_match(ln, E'^ {0,3}[-*](?:[ \t]+(.*))?$');
        starts_item := m IS NOT NULL AND ln !~ E'^ {0,3}([-*])([ \t]*\\1){2,}[ \t]*$';
        -- Any other line: lazy continuation of an item, or the item ends here.
        IF NOT starts_item AND cur IS NOT NULL AND NOT prev_blank
            AND ln !~ '^ {0,3}(#{1,6}([ \t]|$)|```|~~~)'
            AND ln !~ E'^ {0,3}([-*_])([ \t]*\\1){2,}[ \t]*$' THEN
            cur := cur || pg_catalog.btrim(ln, E' \t');
            CONTINUE;
        END IF;
        -- The item ends here (the one place an item is returned).
        body := pg_catalog.array_to_string(cur, E'\n');
        IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(body, E' \t\n') <> '' THEN
            line_no := cur_line; subject_ref := subj;
            RETURN NEXT;
        END IF;
        cur := NULL;
        prev_blank := false;

        IF starts_item THEN
            first_line := pg_catalog.btrim(coalesce(m[1], ''), E' \t');
            -- Empty, or a provenance line of an export: the item is its other lines.
            cur := CASE
                WHEN first_line = ''
                  OR first_line ~ '^\(entry [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}, revision [0-9]+, .*\)$'
                THEN '{}'::text []
                ELSE ARRAY[first_line]
            END;
            cur_line := n;
            CONTINUE;
        END IF;
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
END
$$;
