-- A tool call of a run under the agent's current enabled grant of the tool,
-- charged as one unit of the run's tool_calls budget; its results are
-- appended by record_tool_result.
CREATE FUNCTION agent_state.record_tool_call(
    agent uuid,
    run uuid,
    tool text,
    input jsonb,
    model_call uuid DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    call_run uuid;
    grant_rev integer;
    call_id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(input, 'input');
    -- Hot path: well-formed arguments pass one inline check; otherwise the
    -- helpers, in argument order, raise the error of the first bad one.
    IF NOT coalesce(run IS NOT NULL AND input IS NOT NULL
                    AND agent_state._text_fits(tool, 200), false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need_text(tool, 'tool', 200);
        PERFORM agent_state._need(input, 'input');
    END IF;

    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_ref(agent, 'run', run, 'run');
    END IF;
    IF model_call IS NOT NULL THEN
        SELECT c.run_id INTO call_run
        FROM agent_state.model_calls AS c
        WHERE c.runtime_agent_id = agent AND c.model_call_id = model_call;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('model call', 'model_call', model_call);
        END IF;
        IF call_run <> run THEN
            PERFORM agent_state._wrong_run('model call', 'model_call', model_call, call_run, run);
        END IF;
    END IF;
    -- The current grant, enabled (the helper raises 42501 otherwise).
    SELECT g.revision INTO grant_rev
    FROM (
        SELECT g.revision, g.enabled
        FROM agent_state.tool_grants AS g
        WHERE g.runtime_agent_id = agent AND g.tool_name = tool
        ORDER BY g.revision DESC
        LIMIT 1
    ) AS g
    WHERE g.enabled;
    IF NOT FOUND THEN
        grant_rev := agent_state._tool_grant_for_use(agent, tool);
    END IF;

    -- What the insert trigger does for other writers (it skips the extension's
    -- own): the grant check above, and one tool call charged to the run (53400
    -- when the run was already exhausted, 55000 when finished).
    PERFORM agent_state._charge_run(agent, run, 0, 0, 1);
    INSERT INTO agent_state.tool_calls AS c (
        runtime_agent_id, run_id, model_call_id, tool_name, grant_revision, input
    )
    VALUES (agent, run, model_call, tool, grant_rev, input)
    RETURNING c.tool_call_id INTO call_id;
    RETURN call_id;
END
$$;

COMMENT ON FUNCTION agent_state.record_tool_call(uuid, uuid, text, jsonb, uuid) IS
'record_tool_call(agent, run, tool, input, model_call => null) -> uuid: a tool call under the '
'agent''s current enabled grant of tool (42501 unknown, not granted or disabled), recording the '
'grant revision. model_call must be of the same run (23503). Charges one unit of tool_calls: '
'run already budget_exhausted 53400, finished 55000, nothing written.';
