-- A JSON value for an error message, cut to 100 characters.
CREATE FUNCTION agent_state._json_excerpt(val jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN pg_catalog.length(val::text) > 100 THEN pg_catalog.left(val::text, 97) || '...'
        ELSE val::text
    END
$$;
