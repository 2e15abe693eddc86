-- The number of a tool call's next result, after locking the call so that
-- concurrent results queue. A call whose believed outcome is ok or error is
-- settled: a further result raises 55000. While the outcome is unknown (no
-- result yet, or the latest is unconfirmed) a result may arrive at any time,
-- also after the run finished: reality arrives late. Used by record_tool_result
-- and, for every other writer, by the tool_results insert trigger.
CREATE FUNCTION agent_state._next_tool_result(agent uuid, tool_call uuid)
RETURNS integer
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    last_no integer;
    last_status text;
BEGIN
    PERFORM FROM agent_state.tool_calls AS c
    WHERE c.runtime_agent_id = agent AND c.tool_call_id = tool_call
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._not_in_perspective('tool call', 'tool_call', tool_call);
    END IF;
    SELECT r.result_no, r.status INTO last_no, last_status
    FROM agent_state.tool_results AS r
    WHERE r.runtime_agent_id = agent AND r.tool_call_id = tool_call
    ORDER BY r.result_no DESC
    LIMIT 1;
    IF last_status IN ('ok', 'error') THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('tool_call: tool call %s already has a final result (%s)',
                                        tool_call, last_status);
    END IF;
    RETURN coalesce(last_no, 0) + 1;
END
$$;
