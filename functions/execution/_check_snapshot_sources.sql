-- At commit: a new snapshot has exactly the sources it declares.
CREATE FUNCTION agent_state._check_snapshot_sources()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory AS m
        WHERE m.runtime_agent_id = NEW.runtime_agent_id AND m.snapshot_id = NEW.snapshot_id)
        <> NEW.memory_count
        OR (SELECT pg_catalog.count(*) FROM agent_state.snapshot_messages AS m
            WHERE m.runtime_agent_id = NEW.runtime_agent_id AND m.snapshot_id = NEW.snapshot_id)
        <> NEW.message_count THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format('prompt_snapshots: snapshot %s does not have the sources it declares',
                                        NEW.snapshot_id);
    END IF;
    RETURN NULL;
END
$$;
