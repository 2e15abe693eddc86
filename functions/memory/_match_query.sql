-- The full-text query of recall and context_for. match 'all': websearch_to_tsquery
-- (every word, quoted phrases, OR, -not); 'any': the OR of the text's lexemes, so
-- that a revision containing any of them is a candidate, and ts_rank ranks those
-- covering more of them higher. NULL when the text has no lexemes (blank, stop
-- words only, punctuation). Any other match: 22023.
CREATE FUNCTION agent_state._match_query(query text, match text)
RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    q tsquery;
BEGIN
    IF match IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'match: must not be null';
    END IF;
    IF match = 'all' THEN
        IF pg_catalog.btrim(query, E' \t\r\n') <> '' THEN
            q := pg_catalog.websearch_to_tsquery('english'::regconfig, query);
        END IF;
    ELSIF match = 'any' THEN
        SELECT pg_catalog.string_agg(
                   '''' || pg_catalog.replace(pg_catalog.replace(l.lexeme, '\', '\\'), '''', '''''')
                   || '''', ' | ')::tsquery
        INTO q
        FROM pg_catalog.unnest(pg_catalog.to_tsvector('english'::regconfig, query)) AS l;
    ELSE
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'match: must be ''all'' or ''any''';
    END IF;
    IF pg_catalog.numnode(q) = 0 THEN
        q := NULL;
    END IF;
    RETURN q;
END
$$;
