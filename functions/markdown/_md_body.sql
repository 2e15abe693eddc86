-- A body as export lines: line endings normalised to \n, trailing blanks removed
-- from every line, leading and trailing empty lines dropped.
CREATE FUNCTION agent_state._md_body(val text)
RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.rtrim(
        pg_catalog.regexp_replace(
            pg_catalog.regexp_replace(
                pg_catalog.regexp_replace(val, E'\r\n?', E'\n', 'g'),
                E'[ \t]+(?=\n|$)', '', 'g'),
            E'^\n+', ''),
        E'\n')
$$;
