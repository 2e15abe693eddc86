-- What a router compares across its shards (shard_check): the agents of this
-- database with their move state, and every tool registration. Operator only.
CREATE FUNCTION agent_state.shard_inventory()
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need_operator();
    RETURN pg_catalog.jsonb_build_object(
        'version', agent_state.version(),
        'agents', coalesce((
            SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                       'agent', a.runtime_agent_id, 'handle', a.handle,
                       'state', coalesce(m.state, 'live'), 'peer', m.peer)
                   ORDER BY a.runtime_agent_id)
            FROM agent_state.agents AS a
            LEFT JOIN agent_state.agent_moves AS m ON m.agent = a.runtime_agent_id), '[]'),
        'tools', coalesce((
            SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                       'name', v.tool_name, 'revision', v.revision, 'version', v.version,
                       'config_schema', v.config_schema)
                   ORDER BY v.tool_name, v.revision)
            FROM agent_state.tool_versions AS v), '[]'));
END
$$;

COMMENT ON FUNCTION agent_state.shard_inventory() IS
'shard_inventory() -> jsonb (operator): this database''s agents (id, handle, move state: live, '
'out, in, gone) and tool registrations (name, revision, version, config_schema), which a '
'router''s shard_check compares across shards.';
