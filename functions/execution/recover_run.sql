-- Recovery: everything a fresh process needs to resume a run, from the database.
CREATE FUNCTION agent_state.recover_run(agent uuid, run uuid)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    r agent_state.runs;
    cp record;
    unknown jsonb;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(run, 'run');
    SELECT x.* INTO r FROM agent_state.runs AS x WHERE x.runtime_agent_id = agent AND x.run_id = run;
    IF NOT FOUND THEN
        PERFORM agent_state._need_ref(agent, 'run', run, 'run');
    END IF;
    -- Refusal on read (SPEC section 14): every record served is checked.
    PERFORM agent_state._chain_checked('runs', r);

    SELECT k.checkpoint, k.frontier, agent_state._chain_checked('checkpoints', k) INTO cp
    FROM agent_state.checkpoints AS k
    WHERE k.runtime_agent_id = agent AND k.run_id = run
    ORDER BY k.checkpoint DESC
    LIMIT 1;

    -- Tool calls of this run and of the runs it continues whose outcome is unknown:
    -- the latest result is unconfirmed, or there is no result at all.
    WITH RECURSIVE chain AS (
        SELECT r.run_id, r.continued_from
        UNION ALL
        SELECT p.run_id, p.continued_from
        FROM agent_state.runs AS p
        JOIN chain AS c ON p.runtime_agent_id = agent AND p.run_id = c.continued_from
    )
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'tool_call', t.tool_call_id,
               'run', t.run_id,
               'tool', t.tool_name,
               'input', t.input,
               'grant_revision', t.grant_revision,
               'model_call', t.model_call_id,
               'recorded_at', t.created_at,
               'result', coalesce(l.status, 'none'),
               'output', l.output,
               'result_at', l.created_at
           ) ORDER BY t.created_at, t.tool_call_id), '[]')
    INTO unknown
    FROM chain AS c
    JOIN agent_state.tool_calls AS t ON t.runtime_agent_id = agent AND t.run_id = c.run_id
    LEFT JOIN LATERAL (
        SELECT x.status, x.output, x.created_at, agent_state._chain_checked('tool_results', x) AS checked
        FROM agent_state.tool_results AS x
        WHERE x.runtime_agent_id = agent AND x.tool_call_id = t.tool_call_id
        ORDER BY x.result_no DESC
        LIMIT 1
    ) AS l ON true
    WHERE (l.status IS NULL OR l.status = 'unconfirmed') AND agent_state._chain_checked('tool_calls', t);

    RETURN pg_catalog.jsonb_build_object(
        'run', r.run_id,
        'status', r.status,
        'conversation', r.conversation_id,
        'trigger_message', r.trigger_message_id,
        'continued_from', r.continued_from,
        'continued_by', (
            SELECT n.run_id FROM agent_state.runs AS n
            WHERE n.runtime_agent_id = agent AND n.continued_from = run
        ),
        'task_context', r.task_context,
        'started_at', r.created_at,
        'finished_at', r.finished_at,
        'detail', r.detail,
        'checkpoint', cp.checkpoint,
        'frontier', cp.frontier,
        'budget', agent_state._run_budget(agent, run),
        'unconfirmed_tool_calls', unknown,
        'persona', (
            SELECT pg_catalog.jsonb_build_object('revision', p.revision, 'body', p.body)
            FROM agent_state.persona_revisions AS p
            WHERE p.runtime_agent_id = agent AND p.is_active
              AND agent_state._chain_checked('persona_revisions', p)
        ),
        'tool_grants', (
            SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                       'tool', g.tool_name, 'revision', g.revision,
                       'enabled', g.enabled, 'config', g.config) ORDER BY g.tool_name), '[]')
            FROM (
                SELECT DISTINCT ON (x.tool_name) x.tool_name, x.revision, x.enabled, x.config, x
                FROM agent_state.tool_grants AS x
                WHERE x.runtime_agent_id = agent
                ORDER BY x.tool_name, x.revision DESC
            ) AS g
            WHERE agent_state._chain_checked('tool_grants', g.x)
        )
    );
END
$$;

COMMENT ON FUNCTION agent_state.recover_run(uuid, uuid) IS
'recover_run(agent, run) -> jsonb with keys run, status, checkpoint (latest number or null), '
'frontier (its frontier or null), budget {limits, spent, remaining} (each with tokens, cost_usd, '
'tool_calls, wall_time_seconds; null = no limit; remaining = limit - spent), '
'unconfirmed_tool_calls (calls of this run and the runs it continues whose outcome is unknown: '
'[{tool_call, run, tool, input, grant_revision, model_call, recorded_at, result: '
'''unconfirmed'' or ''none'', output, result_at}]), persona (the CURRENT active {revision, body} '
'or null, never old prompt text), tool_grants (current grants [{tool, revision, enabled, config}]), '
'and conversation, trigger_message, continued_from, continued_by, task_context, started_at, '
'finished_at, detail. Unknown run: P0002.';
