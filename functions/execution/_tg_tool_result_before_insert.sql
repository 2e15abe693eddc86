-- Tool results written by any role but the extension's own functions (which do
-- this themselves): numbered per call, refused after a settled outcome
-- (_next_tool_result).
CREATE FUNCTION agent_state._tg_tool_result_before_insert()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.result_no := agent_state._next_tool_result(NEW.runtime_agent_id, NEW.tool_call_id);
    RETURN NEW;
END
$$;
