-- The JSON Schema subset that tool contracts use, and a validator for it.
--
-- Supported keywords: type (object, string, integer, number, boolean, array, null,
-- or a non-empty array of those), properties (object of subschemas), required
-- (array of distinct strings), enum (non-empty array), minimum, maximum (numbers),
-- items (one subschema), additionalProperties (boolean; absent means allowed, as in
-- JSON Schema), description and title (strings, ignored). Anything else is refused
-- with 22023 naming the path of the offending keyword. Semantics follow JSON
-- Schema: an integer is a number with no fractional part (1.0 is an integer);
-- minimum and maximum apply to numbers, properties/required/additionalProperties
-- to objects, items to arrays; other values pass those keywords.

-- Path of a member: .name for plain names, ["name"] (JSON-quoted) otherwise.
CREATE FUNCTION agent_state._json_path(base text, member text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN member ~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN base || '.' || member
        ELSE base || '[' || pg_catalog.to_jsonb(member)::text || ']'
    END
$$;

-- A JSON value for an error message, cut to 100 characters.
CREATE FUNCTION agent_state._json_excerpt(val jsonb)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN pg_catalog.length(val::text) > 100 THEN pg_catalog.left(val::text, 97) || '...'
        ELSE val::text
    END
$$;

-- Checks that schema is a well-formed schema of the supported subset; raises 22023
-- naming path (and the keyword) otherwise. depth guards against runaway nesting.
CREATE FUNCTION agent_state._check_json_schema(schema jsonb, path text, depth integer DEFAULT 0)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    kw text;
    val jsonb;
    elem jsonb;
    prop record;
    types text [];
    allowed_types constant text [] := ARRAY['object', 'string', 'integer', 'number', 'boolean', 'array', 'null'];
BEGIN
    IF depth > 32 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = path || ': schemas nested deeper than 32 levels are not supported';
    END IF;
    IF schema IS NULL OR pg_catalog.jsonb_typeof(schema) <> 'object' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = path || ': must be a JSON object (a schema)';
    END IF;

    FOR kw, val IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(schema) AS e LOOP
        CASE kw
        WHEN 'type' THEN
            IF pg_catalog.jsonb_typeof(val) = 'string' THEN
                types := ARRAY[val #>> '{}'];
            ELSIF pg_catalog.jsonb_typeof(val) = 'array' AND pg_catalog.jsonb_array_length(val) > 0 THEN
                IF EXISTS (
                    SELECT FROM pg_catalog.jsonb_array_elements(val) AS t
                    WHERE pg_catalog.jsonb_typeof(t) <> 'string'
                ) THEN
                    RAISE EXCEPTION USING
                        ERRCODE = '22023', MESSAGE = path || '.type: every element must be a type name string';
                END IF;
                SELECT pg_catalog.array_agg(t) INTO types FROM pg_catalog.jsonb_array_elements_text(val) AS t;
                IF (SELECT pg_catalog.count(DISTINCT t) FROM pg_catalog.unnest(types) AS t)
                    <> pg_catalog.cardinality(types) THEN
                    RAISE EXCEPTION USING
                        ERRCODE = '22023', MESSAGE = path || '.type: type names must be distinct';
                END IF;
            ELSE
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = path || '.type: must be a type name or a non-empty array of type names';
            END IF;
            IF NOT types <@ allowed_types THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = pg_catalog.format('%s.type: unsupported type %s (supported: %s)', path,
                        (SELECT pg_catalog.to_jsonb(t)::text FROM pg_catalog.unnest(types) AS t
                         WHERE NOT t = ANY (allowed_types) LIMIT 1),
                        pg_catalog.array_to_string(allowed_types, ', '));
            END IF;
        WHEN 'properties' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'object' THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023', MESSAGE = path || '.properties: must be an object of schemas';
            END IF;
            FOR prop IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(val) AS e LOOP
                PERFORM agent_state._check_json_schema(
                    prop.value, agent_state._json_path(path || '.properties', prop.key), depth + 1);
            END LOOP;
        WHEN 'required' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'array' OR EXISTS (
                SELECT FROM pg_catalog.jsonb_array_elements(val) AS r
                WHERE pg_catalog.jsonb_typeof(r) <> 'string'
            ) THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023', MESSAGE = path || '.required: must be an array of property names';
            END IF;
            IF (SELECT pg_catalog.count(DISTINCT r) FROM pg_catalog.jsonb_array_elements_text(val) AS r)
                <> pg_catalog.jsonb_array_length(val) THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023', MESSAGE = path || '.required: property names must be distinct';
            END IF;
        WHEN 'enum' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'array' OR pg_catalog.jsonb_array_length(val) = 0 THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023', MESSAGE = path || '.enum: must be a non-empty array';
            END IF;
        WHEN 'minimum', 'maximum' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'number' THEN
                RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = path || '.' || kw || ': must be a number';
            END IF;
        WHEN 'items' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'object' THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = path || '.items: must be one schema (an object); tuple form is not supported';
            END IF;
            PERFORM agent_state._check_json_schema(val, path || '.items', depth + 1);
        WHEN 'additionalProperties' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'boolean' THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = path || '.additionalProperties: must be true or false (schemas are not supported)';
            END IF;
        WHEN 'description', 'title' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'string' THEN
                RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = path || '.' || kw || ': must be a string';
            END IF;
        ELSE
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = agent_state._json_path(path, kw) || ': unsupported keyword',
                HINT = 'Supported: type, properties, required, enum, minimum, maximum, items, '
                    || 'additionalProperties, description, title.';
        END CASE;
    END LOOP;

    IF (schema -> 'minimum')::text::numeric > (schema -> 'maximum')::text::numeric THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = path || '.minimum: greater than maximum';
    END IF;
    -- A required property that additionalProperties: false forbids can never be
    -- supplied: refuse the contradiction when the schema is registered.
    IF schema -> 'additionalProperties' = 'false' THEN
        SELECT r INTO elem
        FROM pg_catalog.jsonb_array_elements(coalesce(schema -> 'required', '[]')) AS r
        WHERE NOT coalesce(schema -> 'properties', '{}') ? (r #>> '{}')
        LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format(
                    '%s.required: %s is not in properties and additionalProperties is false',
                    path, elem::text);
        END IF;
    END IF;
END
$$;

-- Validates val against a schema already checked by _check_json_schema; raises
-- 22023 naming the path of the first offending value.
CREATE FUNCTION agent_state._validate_json(val jsonb, schema jsonb, path text)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    jtype text := pg_catalog.jsonb_typeof(val);
    types text [];
    ok boolean;
    num numeric;
    bound numeric;
    member record;
    missing text;
    extra text;
    i integer;
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
        IF schema ? 'minimum' THEN
            bound := (schema ->> 'minimum')::numeric;
            IF num < bound THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = pg_catalog.format('%s: %s is less than minimum %s', path, num, bound);
            END IF;
        END IF;
        IF schema ? 'maximum' THEN
            bound := (schema ->> 'maximum')::numeric;
            IF num > bound THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = pg_catalog.format('%s: %s is greater than maximum %s', path, num, bound);
            END IF;
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
