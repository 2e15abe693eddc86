-- One line of heading text: control characters (newlines, tabs) become spaces,
-- surrounding spaces are dropped.
CREATE FUNCTION agent_state._md_line(val text)
RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.btrim(pg_catalog.regexp_replace(val, '[[:cntrl:]]', ' ', 'g'))
$$;
