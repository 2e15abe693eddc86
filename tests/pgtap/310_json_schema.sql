-- The JSON Schema subset of tool contracts: every supported keyword accepted when
-- well-formed and refused (22023, naming the keyword path) when not; unsupported
-- keywords refused; configs validated with errors naming the field.
BEGIN;
SELECT plan(124);

\ir _setup.sql
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t310-a'));

-- 'ok', or 'SQLSTATE: message' of the error registering a tool with this schema.
CREATE FUNCTION pg_temp.schema_result(schema jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM agent_state.register_tool('t310.schema', pg_catalog.md5(schema::text), schema);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- 'ok', or 'SQLSTATE: message' of the error granting config under schema.
CREATE FUNCTION pg_temp.config_result(schema jsonb, config jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM agent_state.register_tool('t310.config', pg_catalog.md5(schema::text), schema);
    PERFORM agent_state.grant_tool(pg_temp.id('a'), 't310.config', true, config);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

-- ---------------------------------------------------------------- well-formed schemas
SELECT is(pg_temp.schema_result(s::jsonb), 'ok', 'accepted: ' || s)
FROM pg_catalog.unnest(ARRAY[
    '{}',
    '{"type": "object"}', '{"type": "string"}', '{"type": "integer"}', '{"type": "number"}',
    '{"type": "boolean"}', '{"type": "array"}', '{"type": "null"}',
    '{"type": ["string", "null"]}',
    '{"properties": {"a": {}, "b c": {"type": "string"}}}',
    '{"type": "object", "required": ["a", "b"]}',
    '{"required": []}',
    '{"enum": ["x", 1, null, {"k": [1]}]}',
    '{"minimum": -1.5, "maximum": 1e3}',
    '{"minimum": 2, "maximum": 2}',
    '{"type": "array", "items": {"type": "integer", "minimum": 0}}',
    '{"additionalProperties": true}',
    '{"properties": {"a": {}}, "required": ["a"], "additionalProperties": false}',
    '{"title": "T", "description": "D ü 😀"}',
    '{"type": "object", "properties": {"o": {"type": "object", "properties": {"p": {"type": "array", "items": {"enum": [1]}}}}}}'
]) AS s;

-- ---------------------------------------------------------------- malformed schemas
SELECT is(pg_temp.schema_result(c.schema::jsonb), '22023: ' || c.msg, 'refused: ' || c.schema)
FROM (VALUES
    ('"object"', 'config_schema: must be a JSON object (a schema)'),
    ('[{"type": "object"}]', 'config_schema: must be a JSON object (a schema)'),
    ('{"type": 42}', 'config_schema.type: must be a type name or a non-empty array of type names'),
    ('{"type": []}', 'config_schema.type: must be a type name or a non-empty array of type names'),
    ('{"type": ["string", 1]}', 'config_schema.type: must be an array of type names'),
    ('{"type": ["string", "string"]}', 'config_schema.type: type names must be distinct'),
    ('{"type": "objet"}', 'config_schema.type: unsupported type "objet" (supported: object, string, integer, number, boolean, array, null)'),
    ('{"type": ["string", "date"]}', 'config_schema.type: unsupported type "date" (supported: object, string, integer, number, boolean, array, null)'),
    ('{"properties": []}', 'config_schema.properties: must be an object of schemas'),
    ('{"properties": {"a": 1}}', 'config_schema.properties.a: must be a JSON object (a schema)'),
    ('{"properties": {"a": {"type": "strin"}}}', 'config_schema.properties.a.type: unsupported type "strin" (supported: object, string, integer, number, boolean, array, null)'),
    ('{"properties": {"limit": {"minimum": "1"}}}', 'config_schema.properties.limit.minimum: must be a number'),
    ('{"properties": {"my key": {"pattern": "x"}}}', 'config_schema.properties["my key"].pattern: unsupported keyword'),
    ('{"required": "a"}', 'config_schema.required: must be an array of property names'),
    ('{"required": [1]}', 'config_schema.required: must be an array of property names'),
    ('{"required": ["a", "a"]}', 'config_schema.required: property names must be distinct'),
    ('{"enum": []}', 'config_schema.enum: must be a non-empty array'),
    ('{"enum": "a"}', 'config_schema.enum: must be a non-empty array'),
    ('{"minimum": "1"}', 'config_schema.minimum: must be a number'),
    ('{"maximum": null}', 'config_schema.maximum: must be a number'),
    ('{"minimum": 5, "maximum": 1}', 'config_schema.minimum: greater than maximum'),
    ('{"items": [{}]}', 'config_schema.items: must be one schema (an object); tuple form is not supported'),
    ('{"items": {"minLength": 1}}', 'config_schema.items.minLength: unsupported keyword'),
    ('{"additionalProperties": {}}', 'config_schema.additionalProperties: must be true or false (schemas are not supported)'),
    ('{"description": 1}', 'config_schema.description: must be a string'),
    ('{"title": []}', 'config_schema.title: must be a string'),
    ('{"additionalProperties": false, "required": ["a"]}', 'config_schema.required: "a" is not in properties and additionalProperties is false')
) AS c (schema, msg);

-- Every keyword outside the subset is refused, naming it.
SELECT is(pg_temp.schema_result(pg_catalog.jsonb_build_object('type', 'object', k, 1)),
          '22023: ' || agent_state._json_path('config_schema', k) || ': unsupported keyword',
          'unsupported keyword refused: ' || k)
FROM pg_catalog.unnest(ARRAY['$ref', '$schema', '$id', 'default', 'const', 'format', 'pattern',
    'minLength', 'maxLength', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems',
    'maxItems', 'uniqueItems', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'patternProperties',
    'propertyNames', 'dependencies', 'examples', 'Type']) AS k;

SELECT ok(pg_temp.schema_result(
              (pg_catalog.repeat('{"items": ', 40) || '{}' || pg_catalog.repeat('}', 40))::jsonb)
          ~ '^22023: config_schema(\.items)+: schemas nested deeper than 32 levels are not supported$',
          'runaway nesting is refused with 22023, not a stack overflow');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tools AS t WHERE t.tool_name = 't310.schema'),
          1::bigint, 'only well-formed schemas were registered (one tool row)');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_versions AS v WHERE v.tool_name = 't310.schema'),
          20::bigint, 'one registration per accepted schema, none for refused ones');

-- ---------------------------------------------------------------- configs
CREATE TEMP TABLE s (schema jsonb);
INSERT INTO s VALUES ('{
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "who"},
    "count": {"type": "integer", "minimum": 0, "maximum": 10},
    "ratio": {"type": "number", "minimum": -1.5, "maximum": 1.5},
    "flag": {"type": "boolean"},
    "nothing": {"type": "null"},
    "maybe": {"type": ["string", "null"]},
    "mode": {"enum": ["fast", "slow", 1]},
    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    "nested": {"type": "object", "properties": {"depth": {"type": "integer", "maximum": 3}},
               "required": ["depth"], "additionalProperties": false},
    "loose": {"minimum": 5},
    "ünï": {"type": "string"}
  },
  "required": ["name"]
}');

SELECT is(pg_temp.config_result((SELECT s.schema FROM s), c::jsonb), 'ok', 'valid config: ' || c)
FROM pg_catalog.unnest(ARRAY[
    '{"name": "x"}',
    '{"name": "", "count": 0}',
    '{"name": "x", "count": 10}',
    '{"name": "x", "count": 5.0}',
    '{"name": "x", "count": 1e1}',
    '{"name": "x", "ratio": 1.5}',
    '{"name": "x", "ratio": -1.5}',
    '{"name": "x", "ratio": 0}',
    '{"name": "x", "flag": false}',
    '{"name": "x", "nothing": null}',
    '{"name": "x", "maybe": null}',
    '{"name": "x", "maybe": "s"}',
    '{"name": "x", "mode": "fast"}',
    '{"name": "x", "mode": 1.0}',
    '{"name": "x", "tags": []}',
    '{"name": "x", "tags": ["a", "b", "a"]}',
    '{"name": "x", "nested": {"depth": 3}}',
    '{"name": "x", "loose": "not a number: minimum applies to numbers only"}',
    '{"name": "x", "other": [1, {"k": 2}]}',
    '{"name": "x", "ünï": "ok 😀"}'
]) AS c;

SELECT is(pg_temp.config_result((SELECT s.schema FROM s), c.config::jsonb), '22023: ' || c.msg,
          'bad config: ' || c.config)
FROM (VALUES
    ('{}', 'config.name: required'),
    ('[]', 'config: [] is not of type object'),
    ('"s"', 'config: "s" is not of type object'),
    ('null', 'config: null is not of type object'),
    ('{"name": 1}', 'config.name: 1 is not of type string'),
    ('{"name": "x", "count": 11}', 'config.count: 11 is greater than maximum 10'),
    ('{"name": "x", "count": -1}', 'config.count: -1 is less than minimum 0'),
    ('{"name": "x", "count": 1.5}', 'config.count: 1.5 is not of type integer'),
    ('{"name": "x", "count": "1"}', 'config.count: "1" is not of type integer'),
    ('{"name": "x", "ratio": 1.51}', 'config.ratio: 1.51 is greater than maximum 1.5'),
    ('{"name": "x", "ratio": -2}', 'config.ratio: -2 is less than minimum -1.5'),
    ('{"name": "x", "flag": "true"}', 'config.flag: "true" is not of type boolean'),
    ('{"name": "x", "nothing": 0}', 'config.nothing: 0 is not of type null'),
    ('{"name": "x", "maybe": 1}', 'config.maybe: 1 is not of type string or null'),
    ('{"name": "x", "mode": "medium"}', 'config.mode: "medium" is not one of ["fast", "slow", 1]'),
    ('{"name": "x", "tags": "a"}', 'config.tags: "a" is not of type array'),
    ('{"name": "x", "tags": ["a", "c"]}', 'config.tags[1]: "c" is not one of ["a", "b"]'),
    ('{"name": "x", "tags": ["a", 1]}', 'config.tags[1]: 1 is not of type string'),
    ('{"name": "x", "nested": {}}', 'config.nested.depth: required'),
    ('{"name": "x", "nested": {"depth": 4}}', 'config.nested.depth: 4 is greater than maximum 3'),
    ('{"name": "x", "nested": {"depth": 1, "x y": 1}}', 'config.nested["x y"]: not allowed (additionalProperties is false)'),
    ('{"name": "x", "loose": 4}', 'config.loose: 4 is less than minimum 5'),
    ('{"name": "x", "ünï": 1}', 'config["ünï"]: 1 is not of type string')
) AS c (config, msg);

SELECT ok(pg_temp.config_result((SELECT s.schema FROM s),
              pg_catalog.jsonb_build_object('name', pg_catalog.repeat('x', 5000)::text, 'count', pg_catalog.repeat('y', 5000)))
          ~ '^22023: config\.count: "y{90,}\.\.\. is not of type integer$',
          'a long offending value is cut short in the message');
SELECT is(pg_temp.config_result('{}', pg_catalog.jsonb_build_object('big', pg_catalog.repeat('x', 1100000))),
          '22023: config: larger than 1,000,000 bytes', 'a config over 1,000,000 bytes: 22023');
SELECT is(pg_temp.config_result('{}', (pg_catalog.repeat('[', 5000) || pg_catalog.repeat(']', 5000))::jsonb),
          '22023: config: nested deeper than 32 levels', 'a config nested 5000 levels deep: 22023');
SELECT is(pg_temp.config_result('{}', (pg_catalog.repeat('{"k": ', 32) || '1' || pg_catalog.repeat('}', 32))::jsonb),
          'ok', 'a config nested 32 levels deep is accepted');
SELECT is(pg_temp.schema_result(pg_catalog.jsonb_build_object('description', pg_catalog.repeat('x', 1100000))),
          '22023: config_schema: larger than 1,000,000 bytes', 'a schema over 1,000,000 bytes: 22023');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.tool_grants AS g
           WHERE g.runtime_agent_id = pg_temp.id('a')),
          21::bigint, 'one grant per valid config, none for a refused one');

SELECT * FROM finish();
ROLLBACK;
