CREATE FUNCTION agent_state.import_markdown(agent uuid, document text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    bodies text [];
    subjects uuid [];
    long_line integer;
    imp bigint;
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
