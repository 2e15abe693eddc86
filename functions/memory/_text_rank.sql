-- text_rank, the lexical factor of a revision's score (_memory_score), written
-- once for every eligibility function: ts_rank of the query against the
-- revision's text (tsv); with lexemes and weights (match 'any', term rarity,
-- see _lexeme_weights) the sum of the weights of the query lexemes it holds; 1
-- without a query (every eligible revision ranks alike).
--
-- A one-row table function without FROM or WHERE, as _memory_admits is: the
-- callers join it LATERAL and the planner replaces it by its expression, so
-- there is no call per row (a scalar SQL function holding a subquery would not
-- be inlined).
CREATE FUNCTION agent_state._text_rank(
    tsv tsvector,
    query tsquery,
    lexemes tsquery [],
    weights double precision []
)
RETURNS TABLE (text_rank double precision)
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN _text_rank.query IS NULL THEN 1::double precision
               WHEN _text_rank.lexemes IS NULL
               THEN pg_catalog.ts_rank(_text_rank.tsv, _text_rank.query)::double precision
               ELSE (SELECT coalesce(pg_catalog.sum(u.w), 0::double precision)
                     FROM ROWS FROM (pg_catalog.unnest(_text_rank.lexemes),
                                     pg_catalog.unnest(_text_rank.weights)) AS u (q, w)
                     WHERE _text_rank.tsv OPERATOR(pg_catalog.@@) u.q)
           END
$$;
