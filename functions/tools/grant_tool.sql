CREATE FUNCTION agent_state.grant_tool(
    agent uuid,
    tool text,
    enabled boolean,
    config jsonb DEFAULT '{}'
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
    -- Bounded nesting keeps every later walk over a grant's config (validation,
    -- export) far from the stack limit.
    PERFORM agent_state._json_within(config, 'config', 1000000, 32);

    -- FOR SHARE: the contract cannot be replaced while this grant is validated
    -- against it.
    SELECT t.version, t.config_schema, t.revision INTO contract
    FROM agent_state.tools AS t
    WHERE t.tool_name = tool
    FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('tool: unknown tool %s', agent_state._quote_prefix(tool)),
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
