-- One model call of a run and what came of it, in one bound call: the prompt
-- snapshot, the model call (charged to the budget), its tool calls with their
-- results, and a checkpoint. Each part is written by the function that writes it
-- on its own (snapshot_prompt, record_model_call, record_tool_call,
-- record_tool_result, checkpoint), with their checks; all or nothing.
CREATE FUNCTION agent_state.record_turn(
    agent uuid,
    run uuid,
    prompt text,
    provider text,
    model text,
    request jsonb,
    response jsonb DEFAULT NULL,
    usage jsonb DEFAULT '{}',
    status text DEFAULT 'ok',
    persona_revision integer DEFAULT NULL,
    memory jsonb DEFAULT '[]',
    messages uuid [] DEFAULT '{}',
    tool_calls jsonb DEFAULT '[]',
    frontier jsonb DEFAULT NULL
)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    snap uuid;
    call_id uuid;
    tc jsonb;
    tc_id uuid;
    calls jsonb := '[]'::jsonb;
    i integer := 0;
    cp integer;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(tool_calls, 'tool_calls');
    PERFORM agent_state._need_json(tool_calls, 'tool_calls', ARRAY['array']);
    FOR tc IN SELECT e.value FROM pg_catalog.jsonb_array_elements(tool_calls) AS e LOOP
        IF pg_catalog.jsonb_typeof(tc) <> 'object' OR NOT tc ? 'tool' OR NOT tc ? 'input'
            OR (tc - ARRAY['tool', 'input', 'output', 'status']) <> '{}'::jsonb
            OR (tc ? 'output') <> (tc ? 'status') THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format(
                    'tool_calls[%s]: must be {"tool", "input"} with optional "output" and "status" '
                    'together', i);
        END IF;
        i := i + 1;
    END LOOP;
    snap := agent_state.snapshot_prompt(agent, run, prompt, persona_revision, memory, messages);
    call_id := agent_state.record_model_call(agent, run, snap, provider, model, request, response,
                                             usage, status);
    FOR tc IN SELECT e.value FROM pg_catalog.jsonb_array_elements(tool_calls) AS e LOOP
        tc_id := agent_state.record_tool_call(agent, run, tc ->> 'tool', tc -> 'input', call_id);
        IF tc ? 'output' THEN
            PERFORM agent_state.record_tool_result(agent, tc_id, tc -> 'output', tc ->> 'status');
        END IF;
        calls := calls || pg_catalog.to_jsonb(tc_id);
    END LOOP;
    IF frontier IS NOT NULL THEN
        cp := agent_state.checkpoint(agent, run, frontier);
    END IF;
    RETURN pg_catalog.jsonb_build_object('snapshot', snap, 'model_call', call_id, 'tool_calls', calls,
                                         'checkpoint', cp);
END
$$;

COMMENT ON FUNCTION agent_state.record_turn(uuid, uuid, text, text, text, jsonb, jsonb, jsonb, text, integer, jsonb, uuid [], jsonb, jsonb) IS
'record_turn(agent, run, prompt, provider, model, request, response => null, usage => ''{}'', '
'status => ''ok'', persona_revision => null, memory => ''[]'', messages => ''{}'', tool_calls => '
'''[]'', frontier => null) -> {"snapshot", "model_call", "tool_calls": [ids], "checkpoint"}: one '
'model call and what came of it in one call, each part as snapshot_prompt, record_model_call, '
'record_tool_call, record_tool_result and checkpoint write it (same checks and SQLSTATEs); all '
'or nothing. tool_calls: [{"tool", "input", "output" and "status" (optional, together)}].';
