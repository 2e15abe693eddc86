-- An agent's whole state as one document (SPEC section 15): every row of every
-- table it owns (_agent_tables), with ids, revision numbers and stamps, its own
-- row, its hosting grants by role name, the tools its grants name, the version
-- that wrote it and a digest over all of it. import_agent loads it into another
-- database. Never writes: it works in a read-only transaction and on a standby.
-- The document is built in memory: an agent's state must fit in one jsonb value
-- (about 255 MB).
CREATE FUNCTION agent_state.export_agent(agent uuid)
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._bind(agent, true);
    RETURN agent_state._agent_document(agent);
END
$$;

COMMENT ON FUNCTION agent_state.export_agent(uuid) IS
'export_agent(agent) -> jsonb (operator): the agent''s whole state as one document: format, '
'version, the agent (id, handle, stamps), its hosting grants by role name, every row of every '
'table it owns (ids, revision numbers and stamps kept) and a digest over all of it. '
'import_agent loads it into another database. Never writes.';
