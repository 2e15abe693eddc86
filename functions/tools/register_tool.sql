CREATE FUNCTION agent_state.register_tool(name text, version text, config_schema jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    cur record;
BEGIN
    PERFORM agent_state._need_operator();
    PERFORM agent_state._need_text(name, 'name', 200);
    IF name ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'name: must not contain control characters';
    END IF;
    PERFORM agent_state._need_text(version, 'version', 200);
    PERFORM agent_state._need(config_schema, 'config_schema');
    PERFORM agent_state._json_within(config_schema, 'config_schema', 1000000);
    PERFORM agent_state._check_json_schema(config_schema, 'config_schema');

    INSERT INTO agent_state.tools AS t (tool_name, version, config_schema, revision)
    VALUES (name, version, config_schema, 1)
    ON CONFLICT ON CONSTRAINT tools_pkey DO NOTHING;
    IF FOUND THEN
        INSERT INTO agent_state.tool_versions (tool_name, revision, version, config_schema)
        VALUES (name, 1, version, config_schema);
        RETURN;
    END IF;

    -- Already registered: the row lock serialises registrations of one tool and
    -- waits for grants being validated against the current contract.
    SELECT t.version, t.config_schema, t.revision INTO cur
    FROM agent_state.tools AS t
    WHERE t.tool_name = name
    FOR UPDATE;
    IF cur.version = version AND cur.config_schema = config_schema THEN
        RETURN;
    END IF;
    UPDATE agent_state.tools AS t
    SET version = register_tool.version, config_schema = register_tool.config_schema,
        revision = cur.revision + 1
    WHERE t.tool_name = name;
    INSERT INTO agent_state.tool_versions (tool_name, revision, version, config_schema)
    VALUES (name, cur.revision + 1, version, config_schema);
END
$$;

COMMENT ON FUNCTION agent_state.register_tool(text, text, jsonb) IS
'register_tool(name, version, config_schema) (operator): registers a tool or replaces its '
'contract (every registration is kept). config_schema: JSON Schema subset (type, properties, '
'required, enum, minimum, maximum, items, additionalProperties, description, title); '
'anything else or malformed: 22023. Same version and schema again: no-op. Not operator: 42501.';
