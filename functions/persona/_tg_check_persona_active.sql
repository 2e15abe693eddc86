-- At commit of a persona revision or activation (_check_persona).
CREATE FUNCTION agent_state._tg_check_persona_active()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_persona(NEW.runtime_agent_id);
    RETURN NULL;
END
$$;
