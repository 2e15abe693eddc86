-- Validates val against a schema already checked by _check_json_schema; raises
-- 22023 naming the path of the first offending value.
CREATE FUNCTION agent_state._validate_json(val jsonb, schema jsonb, path text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    jtype text := pg_catalog.jsonb_typeof(val);
    types text [];
    ok boolean;
    num numeric;
    bound text;
    member record;
    missing text;
    extra text;
BEGIN
    IF schema ? 'type' THEN
        IF pg_catalog.jsonb_typeof(schema -> 'type') = 'string' THEN
            types := ARRAY[schema ->> 'type'];
        ELSE
            SELECT pg_catalog.array_agg(t) INTO types
            FROM pg_catalog.jsonb_array_elements_text(schema -> 'type') AS t;
        END IF;
        ok := jtype = ANY (types)
            OR (jtype = 'number' AND 'integer' = ANY (types)
                AND (val #>> '{}')::numeric = pg_catalog.trunc((val #>> '{}')::numeric));
        IF NOT ok THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format('%s: %s is not of type %s', path,
                    agent_state._json_excerpt(val), pg_catalog.array_to_string(types, ' or '));
        END IF;
    END IF;

    IF schema ? 'enum' AND NOT EXISTS (
        SELECT FROM pg_catalog.jsonb_array_elements(schema -> 'enum') AS e WHERE e = val
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: %s is not one of %s', path,
                agent_state._json_excerpt(val), agent_state._json_excerpt(schema -> 'enum'));
    END IF;

    IF jtype = 'number' THEN
        num := (val #>> '{}')::numeric;
        -- The minimum first; a bound the schema does not have compares as null.
        bound := CASE
            WHEN num < (schema ->> 'minimum')::numeric THEN 'minimum'
            WHEN num > (schema ->> 'maximum')::numeric THEN 'maximum'
        END;
        IF bound IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format('%s: %s is %s %s %s', path, agent_state._json_excerpt(val),
                                            CASE bound WHEN 'minimum' THEN 'less than' ELSE 'greater than' END,
                                            bound, agent_state._json_excerpt(schema -> bound));
        END IF;
    ELSIF jtype = 'object' THEN
        IF schema ? 'required' THEN
            SELECT r INTO missing
            FROM pg_catalog.jsonb_array_elements_text(schema -> 'required') WITH ORDINALITY AS q (r, n)
            WHERE NOT val ? r
            ORDER BY q.n
            LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023', MESSAGE = agent_state._json_path(path, missing) || ': required';
            END IF;
        END IF;
        IF schema -> 'additionalProperties' = 'false' THEN
            SELECT k INTO extra
            FROM pg_catalog.jsonb_object_keys(val) AS k
            WHERE NOT coalesce(schema -> 'properties', '{}') ? k
            LIMIT 1;
            IF FOUND THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = agent_state._json_path(path, extra)
                        || ': not allowed (additionalProperties is false)';
            END IF;
        END IF;
        IF schema ? 'properties' THEN
            FOR member IN
                SELECT p.key, p.value AS subschema, val -> p.key AS item
                FROM pg_catalog.jsonb_each(schema -> 'properties') AS p
                WHERE val ? p.key
            LOOP
                PERFORM agent_state._validate_json(
                    member.item, member.subschema, agent_state._json_path(path, member.key));
            END LOOP;
        END IF;
    ELSIF jtype = 'array' AND schema ? 'items' THEN
        FOR i IN 0 .. pg_catalog.jsonb_array_length(val) - 1 LOOP
            PERFORM agent_state._validate_json(val -> i, schema -> 'items', path || '[' || i || ']');
        END LOOP;
    END IF;
END
$$;
