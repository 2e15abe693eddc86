-- Compact JSON with object keys in byte order, the same text for equal values
-- (export_markdown writes each tool grant's config with it).
CREATE FUNCTION agent_state._json_canonical(val jsonb)
RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    CASE pg_catalog.jsonb_typeof(val)
    WHEN 'object' THEN
        RETURN '{' || coalesce((
            SELECT pg_catalog.string_agg(
                pg_catalog.to_jsonb(e.key)::text || ':' || agent_state._json_canonical(e.value), ','
                ORDER BY e.key COLLATE "C")
            FROM pg_catalog.jsonb_each(val) AS e
        ), '') || '}';
    WHEN 'array' THEN
        RETURN '[' || coalesce((
            SELECT pg_catalog.string_agg(agent_state._json_canonical(e.value), ',' ORDER BY e.n)
            FROM pg_catalog.jsonb_array_elements(val) WITH ORDINALITY AS e (value, n)
        ), '') || ']';
    ELSE
        RETURN val::text;
    END CASE;
END
$$;
