CREATE FUNCTION agent_state.record_tool_result(
    agent uuid,
    tool_call uuid,
    output jsonb,
    status text
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(output, 'output');
    IF NOT coalesce(tool_call IS NOT NULL AND output IS NOT NULL
                    AND status = ANY (agent_state._tool_result_statuses()), false) THEN
        PERFORM agent_state._need(tool_call, 'tool_call');
        PERFORM agent_state._need(output, 'output');
        PERFORM agent_state._need_one_of(status, 'status', agent_state._tool_result_statuses());
    END IF;
    PERFORM agent_state._need_ref(agent, 'tool call', tool_call, 'tool_call');
    -- What the insert trigger does for other writers (it skips the extension's
    -- own): lock the call, refuse a result after a final one (55000), number it.
    INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
    VALUES (agent, tool_call, agent_state._next_tool_result(agent, tool_call), status, output);
END
$$;

COMMENT ON FUNCTION agent_state.record_tool_result(uuid, uuid, jsonb, text) IS
'record_tool_result(agent, tool_call, output, status): appends a result; status ok, error or '
'unconfirmed (effect unknown). What is believed is the latest result. While the outcome is '
'unknown (no result, or latest unconfirmed) a result may be recorded at any time, also after '
'the run finished; after ok or error the outcome is settled and a further result raises 55000.';
