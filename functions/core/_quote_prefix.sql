-- A caller's value for an error message: quoted as format's %L quotes it, but
-- only its first 64 characters, followed by ... when it is longer (ASCII, as
-- _json_excerpt: the message must survive any database encoding), so that a
-- refused value of any size makes a message (and a server log line) of at most
-- a few hundred bytes. substr reads only the start of a stored (toasted) value.
-- A SQL function with no SET clause, so that it is inlined into its callers
-- (pinned functions that the owner runs: it is granted to no one).
CREATE FUNCTION agent_state._quote_prefix(val text)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE
        WHEN pg_catalog.length(pg_catalog.substr(val, 1, 65)) OPERATOR(pg_catalog.>) 64
            THEN pg_catalog.quote_literal(pg_catalog.substr(val, 1, 64)) OPERATOR(pg_catalog.||) '...'
        ELSE pg_catalog.quote_nullable(val)
    END
$$;
