-- The document export_agent returns, for an agent already bound (export_agent)
-- or frozen for a move (move_step). Not granted to anyone.
CREATE FUNCTION agent_state._agent_document(agent uuid)
RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    t record;
    rows jsonb;
    tables jsonb := '{}';
    doc jsonb;
BEGIN
    FOR t IN SELECT * FROM agent_state._agent_tables() ORDER BY ord LOOP
        EXECUTE pg_catalog.format(
            'SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(%s) ORDER BY %s), ''[]'') '
            'FROM %s AS r WHERE r.runtime_agent_id = $1',
            (SELECT pg_catalog.string_agg(pg_catalog.format('%L, r.%I', c, c), ', ')
             FROM pg_catalog.unnest(t.cols) AS c WHERE c <> 'runtime_agent_id'),
            (SELECT pg_catalog.string_agg(pg_catalog.format('r.%I', c), ', ') FROM pg_catalog.unnest(t.pkey) AS c),
            t.tbl)
        INTO rows USING agent;
        tables := tables || pg_catalog.jsonb_build_object(t.name, rows);
    END LOOP;
    SELECT pg_catalog.jsonb_build_object(
        'format', 'agent_state.agent',
        'version', agent_state.version(),
        'agent', pg_catalog.jsonb_build_object(
            'id', a.runtime_agent_id, 'handle', a.handle, 'created_at', a.created_at,
            'created_by', a.created_by),
        'hosting', coalesce((
            SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                       'host', h.host_name, 'created_at', h.created_at, 'created_by', h.created_by)
                   ORDER BY h.host_name)
            FROM agent_state.agent_hosts AS h WHERE h.runtime_agent_id = agent), '[]'),
        'tables', tables)
    INTO doc
    FROM agent_state.agents AS a
    WHERE a.runtime_agent_id = agent;
    RETURN doc || pg_catalog.jsonb_build_object('digest', agent_state._agent_document_digest(doc));
END
$$;
