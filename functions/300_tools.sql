-- Tool grants: registration (operators, deployment-wide), per-agent grant
-- revisions (operators), and the runtime check before a tool is used.

-- The current grant of tool for agent, for use right now: its revision. Raises
-- 42501 naming tool when the tool is unknown, was never granted to this agent, or
-- its current (highest) grant revision is disabled. The caller must have bound the
-- call to agent (_bind) first; this helper reads only that agent's grants.
CREATE FUNCTION agent_state._tool_grant_for_use(agent uuid, tool text)
RETURNS integer
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    rev integer;
    is_enabled boolean;
BEGIN
    SELECT g.revision, g.enabled INTO rev, is_enabled
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = agent AND g.tool_name = tool
    ORDER BY g.revision DESC
    LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('tool: %L is not granted to agent %s', tool, agent),
            HINT = 'An operator grants tools with agent_state.grant_tool.';
    END IF;
    IF NOT is_enabled THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('tool: %L is disabled for agent %s (grant revision %s)',
                                        tool, agent, rev),
            HINT = 'An operator grants tools with agent_state.grant_tool.';
    END IF;
    RETURN rev;
END
$$;

CREATE FUNCTION agent_state.register_tool(name text, version text, config_schema jsonb)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    cur record;
BEGIN
    IF NOT agent_state._caller_is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('name: role %I is not an agent_state operator',
                                        agent_state._caller()),
            HINT = 'Only members of agent_state_operator may do this.';
    END IF;
    PERFORM agent_state._need_text(name, 'name', 200);
    IF name ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'name: must not contain control characters';
    END IF;
    PERFORM agent_state._need_text(version, 'version', 200);
    PERFORM agent_state._need(config_schema, 'config_schema');
    IF pg_catalog.pg_column_size(config_schema) > 1000000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'config_schema: larger than 1,000,000 bytes';
    END IF;
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

CREATE FUNCTION agent_state.grant_tool(
    agent uuid,
    tool text,
    enabled boolean,
    config jsonb DEFAULT '{}'
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    contract record;
    next_rev integer;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(tool, 'tool', 200);
    PERFORM agent_state._need(enabled, 'enabled');
    PERFORM agent_state._need(config, 'config');
    IF pg_catalog.pg_column_size(config) > 1000000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'config: larger than 1,000,000 bytes';
    END IF;
    -- Bounded nesting keeps every later walk over a grant's config (validation,
    -- export) far from the stack limit.
    IF pg_catalog.jsonb_path_exists(config, 'strict $.**{33}') THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'config: nested deeper than 32 levels';
    END IF;

    -- FOR SHARE: the contract cannot be replaced while this grant is validated
    -- against it.
    SELECT t.version, t.config_schema, t.revision INTO contract
    FROM agent_state.tools AS t
    WHERE t.tool_name = tool
    FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('tool: unknown tool %L', tool),
            HINT = 'An operator registers tools with agent_state.register_tool.';
    END IF;
    -- A disabled grant needs no configuration: the empty object is accepted
    -- whatever the contract requires. Any other config is validated in full.
    IF enabled OR config <> '{}'::jsonb THEN
        PERFORM agent_state._validate_json(config, contract.config_schema, 'config');
    END IF;

    PERFORM agent_state._lock_agent(agent);
    SELECT coalesce(pg_catalog.max(g.revision), 0) + 1 INTO next_rev
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = agent AND g.tool_name = tool;

    INSERT INTO agent_state.tool_grants
        (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision)
    VALUES (agent, tool, next_rev, enabled, config, contract.version, contract.revision);
    RETURN next_rev;
END
$$;

COMMENT ON FUNCTION agent_state.grant_tool(uuid, text, boolean, jsonb) IS
'grant_tool(agent, tool, enabled, config => ''{}'') -> int (operator): appends grant revision '
'n+1 for agent and tool, config validated against the tool''s config_schema (22023 naming the '
'field, e.g. config.limit; over 1,000,000 bytes or nested deeper than 32 levels: 22023). '
'A disabled grant accepts config ''{}'' whatever the schema requires. '
'Unregistered tool: P0002; enabled or config null: 22004.';

CREATE FUNCTION agent_state.authorize_tool(agent uuid, tool text)
RETURNS TABLE (revision integer, config jsonb)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    rev integer;
BEGIN
    PERFORM agent_state._bind(authorize_tool.agent);
    PERFORM agent_state._need(authorize_tool.tool, 'tool');
    rev := agent_state._tool_grant_for_use(authorize_tool.agent, authorize_tool.tool);
    RETURN QUERY
    SELECT g.revision, g.config
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = authorize_tool.agent AND g.tool_name = authorize_tool.tool
      AND g.revision = rev;
END
$$;

COMMENT ON FUNCTION agent_state.authorize_tool(uuid, text) IS
'authorize_tool(agent, tool) -> (revision, config): the current grant, checked before use. '
'Tool unknown, not granted to agent, or its current grant disabled: 42501.';

CREATE FUNCTION agent_state.tool_grant_history(agent uuid, tool text)
RETURNS TABLE (
    revision integer, enabled boolean, config jsonb, created_at timestamptz, created_by text
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(tool_grant_history.agent);
    PERFORM agent_state._need(tool_grant_history.tool, 'tool');
    IF NOT EXISTS (SELECT FROM agent_state.tools AS t WHERE t.tool_name = tool_grant_history.tool) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('tool: unknown tool %L', tool_grant_history.tool);
    END IF;
    RETURN QUERY
    SELECT g.revision, g.enabled, g.config, g.created_at, g.created_by::text
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = tool_grant_history.agent AND g.tool_name = tool_grant_history.tool
    ORDER BY g.revision;
END
$$;

COMMENT ON FUNCTION agent_state.tool_grant_history(uuid, text) IS
'tool_grant_history(agent, tool) -> (revision, enabled, config, created_at, created_by), '
'oldest first. Unregistered tool: P0002; registered but never granted to agent: no rows.';
