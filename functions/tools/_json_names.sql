-- A JSON Schema keyword whose value lists names (the array form of type, and
-- required): an array of distinct strings, returned as text []. 22023 naming the
-- keyword's path otherwise; noun names one element ('type name'). For
-- _check_json_schema; granted to no one.
CREATE FUNCTION agent_state._json_names(val jsonb, path text, noun text)
RETURNS text []
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    names text [];
BEGIN
    IF pg_catalog.jsonb_typeof(val) <> 'array' OR EXISTS (
        SELECT FROM pg_catalog.jsonb_array_elements(val) AS e
        WHERE pg_catalog.jsonb_typeof(e) <> 'string'
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = pg_catalog.format('%s: must be an array of %ss', path, noun);
    END IF;
    names := ARRAY(SELECT e FROM pg_catalog.jsonb_array_elements_text(val) AS e);
    IF (SELECT pg_catalog.count(DISTINCT e) FROM pg_catalog.unnest(names) AS e) <> pg_catalog.cardinality(names) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = pg_catalog.format('%s: %ss must be distinct', path, noun);
    END IF;
    RETURN names;
END
$$;
