-- Tool results: numbered per call after locking the call, so concurrent results
-- queue. A call whose believed outcome is ok or error is settled: a further
-- result raises 55000. While the outcome is unknown (no result yet, or the latest
-- is unconfirmed) a result may arrive at any time, also after the run finished:
-- reality arrives late.
CREATE FUNCTION agent_state._tool_result_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    last_no integer;
    last_status text;
BEGIN
    PERFORM FROM agent_state.tool_calls AS c
    WHERE c.runtime_agent_id = NEW.runtime_agent_id AND c.tool_call_id = NEW.tool_call_id
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('tool_call: unknown tool call %s in this perspective', NEW.tool_call_id);
    END IF;
    SELECT r.result_no, r.status INTO last_no, last_status
    FROM agent_state.tool_results AS r
    WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.tool_call_id = NEW.tool_call_id
    ORDER BY r.result_no DESC
    LIMIT 1;
    IF last_status IN ('ok', 'error') THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('tool_call: tool call %s already has a final result (%s)',
                                        NEW.tool_call_id, last_status);
    END IF;
    NEW.result_no := coalesce(last_no, 0) + 1;
    RETURN NEW;
END
$$;
