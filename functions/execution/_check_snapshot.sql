-- A snapshot has exactly the sources it declares. Run at commit of a new
-- snapshot and by verify().
CREATE FUNCTION agent_state._check_snapshot(agent uuid, snapshot uuid, declared_memory integer, declared_messages integer)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory AS m
        WHERE m.runtime_agent_id = agent AND m.snapshot_id = snapshot)
        <> declared_memory
        OR (SELECT pg_catalog.count(*) FROM agent_state.snapshot_messages AS m
            WHERE m.runtime_agent_id = agent AND m.snapshot_id = snapshot)
        <> declared_messages THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format('prompt_snapshots: snapshot %s does not have the sources it declares',
                                        snapshot);
    END IF;
    RETURN;
END
$$;
