-- The JSON Schema subset that tool contracts use (register_tool's config_schema),
-- checked here; _validate_json validates a grant's config against a schema that
-- passed.
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
--
-- Checks that schema is a well-formed schema of the supported subset; raises 22023
-- naming path (and the keyword) otherwise. depth guards against runaway nesting.
CREATE FUNCTION agent_state._check_json_schema(schema jsonb, path text, depth integer DEFAULT 0)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    kw text;
    val jsonb;
    elem jsonb;
    prop record;
    types text [];
    rule record;
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
        -- The supported keywords, each with the JSON type its value must have and
        -- what a value of another type is told (type, required and enum take more
        -- than one type: checked below).
        SELECT k.jtype, k.refusal INTO rule
        FROM (VALUES
            ('type', NULL, NULL),
            ('properties', 'object', 'must be an object of schemas'),
            ('required', NULL, NULL),
            ('enum', NULL, NULL),
            ('minimum', 'number', 'must be a number'),
            ('maximum', 'number', 'must be a number'),
            ('items', 'object', 'must be one schema (an object); tuple form is not supported'),
            ('additionalProperties', 'boolean', 'must be true or false (schemas are not supported)'),
            ('description', 'string', 'must be a string'),
            ('title', 'string', 'must be a string')
        ) AS k (keyword, jtype, refusal)
        WHERE k.keyword = kw;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = agent_state._json_path(path, kw) || ': unsupported keyword',
                HINT = 'Supported: type, properties, required, enum, minimum, maximum, items, '
                    || 'additionalProperties, description, title.';
        END IF;
        IF pg_catalog.jsonb_typeof(val) <> rule.jtype THEN
            RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = path || '.' || kw || ': ' || rule.refusal;
        END IF;
        CASE kw
        WHEN 'type' THEN
            IF pg_catalog.jsonb_typeof(val) = 'string' THEN
                types := ARRAY[val #>> '{}'];
            ELSIF pg_catalog.jsonb_typeof(val) = 'array' AND pg_catalog.jsonb_array_length(val) > 0 THEN
                types := agent_state._json_names(val, path || '.type', 'type name');
            ELSE
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = path || '.type: must be a type name or a non-empty array of type names';
            END IF;
            IF NOT types <@ allowed_types THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023',
                    MESSAGE = pg_catalog.format('%s.type: unsupported type %s (supported: %s)', path,
                        (SELECT agent_state._json_excerpt(pg_catalog.to_jsonb(t)) FROM pg_catalog.unnest(types) AS t
                         WHERE NOT t = ANY (allowed_types) LIMIT 1),
                        pg_catalog.array_to_string(allowed_types, ', '));
            END IF;
        WHEN 'properties' THEN
            FOR prop IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(val) AS e LOOP
                PERFORM agent_state._check_json_schema(
                    prop.value, agent_state._json_path(path || '.properties', prop.key), depth + 1);
            END LOOP;
        WHEN 'required' THEN
            PERFORM agent_state._json_names(val, path || '.required', 'property name');
        WHEN 'enum' THEN
            IF pg_catalog.jsonb_typeof(val) <> 'array' OR pg_catalog.jsonb_array_length(val) = 0 THEN
                RAISE EXCEPTION USING
                    ERRCODE = '22023', MESSAGE = path || '.enum: must be a non-empty array';
            END IF;
        WHEN 'items' THEN
            PERFORM agent_state._check_json_schema(val, path || '.items', depth + 1);
        ELSE
            NULL;  -- the value's type was all there is to check
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
                    path, agent_state._json_excerpt(elem));
        END IF;
    END IF;
END
$$;
