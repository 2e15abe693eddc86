CREATE FUNCTION agent_state.snapshot_sources(agent uuid, snapshot uuid)
RETURNS TABLE (kind text, entry uuid, revision integer, message uuid, persona_revision integer)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(snapshot_sources.agent);
    PERFORM agent_state._need(snapshot_sources.snapshot, 'snapshot');
    PERFORM agent_state._need_ref(snapshot_sources.agent, 'snapshot', snapshot_sources.snapshot, 'snapshot');
    RETURN QUERY
    SELECT x.kind, x.entry, x.revision, x.message, x.persona_revision
    FROM (
        SELECT 'persona'::text AS kind, NULL::uuid AS entry, NULL::integer AS revision,
               NULL::uuid AS message, s.persona_revision, 1 AS part, 0 AS ordinal
        FROM agent_state.prompt_snapshots AS s
        WHERE s.runtime_agent_id = snapshot_sources.agent AND s.snapshot_id = snapshot_sources.snapshot
          AND s.persona_revision IS NOT NULL AND agent_state._chain_checked('prompt_snapshots', s)
        UNION ALL
        SELECT 'memory', m.entry_id, m.revision, NULL, NULL, 2, m.ordinal
        FROM agent_state.snapshot_memory AS m
        WHERE m.runtime_agent_id = snapshot_sources.agent AND m.snapshot_id = snapshot_sources.snapshot
          AND agent_state._chain_checked('snapshot_memory', m)
        UNION ALL
        SELECT 'message', NULL, NULL, g.message_id, NULL, 3, g.ordinal
        FROM agent_state.snapshot_messages AS g
        WHERE g.runtime_agent_id = snapshot_sources.agent AND g.snapshot_id = snapshot_sources.snapshot
          AND agent_state._chain_checked('snapshot_messages', g)
    ) AS x
    ORDER BY x.part, x.ordinal;
END
$$;

COMMENT ON FUNCTION agent_state.snapshot_sources(uuid, uuid) IS
'snapshot_sources(agent, snapshot) -> (kind, entry, revision, message, persona_revision): what '
'the agent knew for that call: kind ''persona'' (persona_revision), then ''memory'' (entry, '
'revision) and ''message'' (message) rows in prompt order. Unknown snapshot: P0002.';
