-- At commit of a tool registration (_check_tool).
CREATE FUNCTION agent_state._tg_check_tool_current()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_tool(NEW.tool_name);
    RETURN NULL;
END
$$;
