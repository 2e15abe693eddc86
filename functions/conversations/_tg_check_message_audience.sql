-- After a message insert (_check_audience).
CREATE FUNCTION agent_state._tg_check_message_audience()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_audience(NEW.runtime_agent_id, NEW.conversation_id, NEW.audience);
    RETURN NULL;
END
$$;
