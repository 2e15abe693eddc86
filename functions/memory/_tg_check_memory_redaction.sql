-- At commit of a redaction (_check_redaction).
CREATE FUNCTION agent_state._tg_check_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_redaction(NEW.runtime_agent_id, NEW.entry_id);
    RETURN NULL;
END
$$;
