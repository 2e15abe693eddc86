-- A tool's current contract is one of its registrations, with the same version
-- and schema. (Not a foreign key: tool_versions already refers to tools, and
-- pg_dump loads each table in a transaction of its own.) Run at commit and by
-- verify().
CREATE FUNCTION agent_state._check_tool(tool text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (
        SELECT FROM agent_state.tools AS t
        JOIN agent_state.tool_versions AS v
          ON v.tool_name = t.tool_name AND v.revision = t.revision
        WHERE t.tool_name = tool
          AND v.version = t.version AND v.config_schema = t.config_schema
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format(
                'tools: the current contract of tool %s is not its registration %s',
                tool, (SELECT t.revision FROM agent_state.tools AS t WHERE t.tool_name = tool));
    END IF;
    RETURN;
END
$$;
