-- The full-text query of a text. match 'all': websearch_to_tsquery (every word,
-- quoted phrases, OR, -not); 'any': the OR of the text's lexemes
-- (_query_lexemes), so that a revision containing any of them is a candidate
-- (recall and context_for take that query with its term weights from
-- _lexeme_weights instead, which parses the text once for both). NULL when the
-- text has no lexemes (blank, stop words only, punctuation). A null match: 22004;
-- any other: 22023.
CREATE FUNCTION agent_state._match_query(query text, match text)
RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    q tsquery;
BEGIN
    IF match IS NULL THEN
        PERFORM agent_state._need(match, 'match');
    END IF;
    IF match = 'all' THEN
        IF pg_catalog.btrim(query, E' \t\r\n') <> '' THEN
            q := pg_catalog.websearch_to_tsquery('english'::regconfig, query);
        END IF;
    ELSIF match = 'any' THEN
        q := pg_catalog.array_to_string(agent_state._query_lexemes(query), ' | ')::tsquery;
    ELSE
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'match: must be ''all'' or ''any''';
    END IF;
    IF pg_catalog.numnode(q) = 0 THEN
        q := NULL;
    END IF;
    RETURN q;
END
$$;
