-- At commit of a new snapshot (_check_snapshot).
CREATE FUNCTION agent_state._tg_check_snapshot_sources()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_snapshot(NEW.runtime_agent_id, NEW.snapshot_id, NEW.memory_count, NEW.message_count);
    RETURN NULL;
END
$$;
