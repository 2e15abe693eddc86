-- The words of match 'any': the distinct lexemes of a text (english), each as a
-- one-lexeme tsquery, in lexeme order; NULL when the text has none (blank, stop
-- words only, punctuation). The text is parsed here only: _match_query ORs them
-- into the query, _lexeme_weights ORs and weighs them.
CREATE FUNCTION agent_state._query_lexemes(query text)
RETURNS tsquery []
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.array_agg(
               ('''' || pg_catalog.replace(pg_catalog.replace(l.lexeme, '\', '\\'), '''', '''''')
                || '''')::tsquery ORDER BY l.lexeme)
    FROM pg_catalog.unnest(pg_catalog.to_tsvector('english'::regconfig, query)) AS l
$$;
