-- One model call of a run and what came of it, in one bound call: the prompt
-- snapshot, the model call (charged to the budget), its tool calls with their
-- results, and a checkpoint; all or nothing.
--
-- The common case is written directly: every argument well-formed, every source
-- and tool this agent's and usable (read after the run's lock, as the five calls
-- read them), and a charge that leaves the run open until its last part (so no
-- part of the turn would be refused for the budget). The run is charged once for
-- the whole turn, then the rows are inserted; the insert triggers that lock and
-- charge the run, hash the prompt and number checkpoints and results skip the
-- extension's own writes, so this function does their work
-- (tests/pgtap/520_own_writes.sql). Anything else takes the composed path: the
-- five functions one after another, with their checks, errors and SQLSTATEs.
-- The fast path only decides before it writes, so the two paths never mix.
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
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
    fast boolean;
    tokens numeric;
    cost_usd numeric;
    n_tools integer;
    n_memory integer := 0;
    n_messages integer := 0;
    mem_entries uuid [] := '{}'::uuid [];
    mem_revisions integer [] := '{}'::integer [];
    tool_names text [];
    grant_revs integer [];
    tool_ids uuid [];
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
    n_tools := i;

    -- The fast path's argument checks: what the five functions accept on their
    -- own hot paths (anything unusual, valid or not, goes the composed way).
    IF agent_state._usage_plain(usage) THEN
        tokens := coalesce((usage ->> 'tokens')::numeric, 0);
        cost_usd := coalesce((usage ->> 'cost_usd')::numeric, 0);
    END IF;
    fast := coalesce(
        run IS NOT NULL AND messages IS NOT NULL AND request IS NOT NULL
        AND pg_catalog.octet_length(prompt) <= 10000000 AND prompt ~ '[^ \t\r\n]'
        AND agent_state._text_fits(provider, 200) AND agent_state._text_fits(model, 200)
        AND agent_state._usage_fits(tokens, cost_usd)
        AND status = ANY (agent_state._model_call_statuses())
        AND (frontier IS NULL OR pg_catalog.jsonb_typeof(frontier) IN ('object', 'array'))
        AND agent_state._json_fits(memory)
        AND (memory = '[]'::jsonb OR agent_state._memory_canonical(memory))
        AND agent_state._json_fits(request) AND agent_state._json_fits(response)
        AND agent_state._json_fits(usage, 1000000) AND agent_state._json_fits(frontier),
        false);
    -- Only now: on a multidimensional array it raises (0A000), as snapshot_prompt's
    -- same test does once the arguments before it passed.
    IF fast THEN
        fast := pg_catalog.array_position(messages, NULL) IS NULL;
    END IF;
    IF fast THEN
        -- The run's lock first, as the composed path takes it first: the grants
        -- and sources below are then read after any concurrent change we waited
        -- for (a grant revoked meanwhile is seen). An unknown run locks nothing;
        -- the charge below then finds no row and the composed path reports it.
        PERFORM FROM agent_state.runs AS r
        WHERE r.runtime_agent_id = agent AND r.run_id = run
        FOR NO KEY UPDATE;
    END IF;
    IF fast AND n_tools > 0 THEN
        -- Every tool call well-formed, under the tool's current enabled grant.
        SELECT pg_catalog.count(*) = n_tools, pg_catalog.array_agg(t.tool ORDER BY t.ord),
               pg_catalog.array_agg(g.revision ORDER BY t.ord)
        INTO fast, tool_names, grant_revs
        FROM (
            SELECT e.ord, e.elem ->> 'tool' AS tool, e.elem
            FROM pg_catalog.jsonb_array_elements(tool_calls) WITH ORDINALITY AS e (elem, ord)
        ) AS t
        CROSS JOIN LATERAL (
            SELECT g.revision, g.enabled
            FROM agent_state.tool_grants AS g
            WHERE g.runtime_agent_id = agent AND g.tool_name = t.tool
            ORDER BY g.revision DESC
            LIMIT 1
        ) AS g
        WHERE g.enabled
          AND agent_state._text_fits(t.tool, 200)
          AND pg_catalog.jsonb_typeof(t.elem -> 'input') <> 'null'
          AND agent_state._json_fits(t.elem -> 'input')
          AND (NOT t.elem ? 'output' OR (
              pg_catalog.jsonb_typeof(t.elem -> 'output') <> 'null'
              AND agent_state._json_fits(t.elem -> 'output')
              AND t.elem ->> 'status' = ANY (agent_state._tool_result_statuses())));
    END IF;
    IF fast AND memory <> '[]'::jsonb THEN
        -- The canonical text of the array was matched above: the casts cannot fail.
        SELECT pg_catalog.array_agg((e.elem ->> 'entry')::uuid ORDER BY e.ord),
               pg_catalog.array_agg((e.elem ->> 'revision')::integer ORDER BY e.ord)
        INTO mem_entries, mem_revisions
        FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord);
    END IF;
    IF fast THEN
        -- Every source this agent's and no memory entry of them redacted, in one
        -- query; repeated sources count once, as they are stored.
        SELECT s.n_memory, s.n_messages, s.memory_ok AND s.messages_found = s.n_messages AND s.persona_ok
        INTO n_memory, n_messages, fast
        FROM (
            SELECT
                (SELECT pg_catalog.count(DISTINCT (u.entry, u.rev))
                 FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
                      AS u (entry, rev)) AS n_memory,
                (SELECT pg_catalog.count(DISTINCT u.id) FROM pg_catalog.unnest(messages) AS u (id)) AS n_messages,
                (SELECT pg_catalog.count(*) FROM agent_state.messages AS m
                 WHERE m.runtime_agent_id = agent AND m.message_id = ANY (messages)) AS messages_found,
                NOT EXISTS (
                    SELECT
                    FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
                         AS u (entry, rev)
                    WHERE NOT EXISTS (
                        SELECT FROM agent_state.memory_revisions AS v
                        WHERE v.runtime_agent_id = agent AND v.entry_id = u.entry AND v.revision = u.rev
                    ) OR EXISTS (
                        SELECT FROM agent_state.memory_redactions AS d
                        WHERE d.runtime_agent_id = agent AND d.entry_id = u.entry
                    )
                ) AS memory_ok,
                (persona_revision IS NULL OR EXISTS (
                    SELECT FROM agent_state.persona_revisions AS p
                    WHERE p.runtime_agent_id = agent AND p.revision = persona_revision
                )) AS persona_ok
        ) AS s;
    END IF;
    IF fast THEN
        -- The whole turn's charge in one update, which also locks the run. Only
        -- when no part but the last could reach a limit: otherwise a later part
        -- would be refused (53400), which the composed path reports.
        UPDATE agent_state.runs AS r
        SET spent_tokens = r.spent_tokens + tokens,
            spent_cost_usd = r.spent_cost_usd + cost_usd,
            spent_tool_calls = r.spent_tool_calls + n_tools
        WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open'
          AND (n_tools = 0 OR (
              (r.limit_tokens IS NULL OR r.spent_tokens + tokens < r.limit_tokens)
              AND (r.limit_cost_usd IS NULL OR r.spent_cost_usd + cost_usd < r.limit_cost_usd)
              AND (r.limit_tool_calls IS NULL OR r.spent_tool_calls + n_tools - 1 < r.limit_tool_calls)
              AND r.limit_wall_time_seconds IS NULL));
        fast := FOUND;
    END IF;

    IF NOT fast THEN
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
    ELSE
        -- The run is charged and locked: the rows.
        snap := agent_state._insert_snapshot(agent, run, prompt, persona_revision, mem_entries, mem_revisions,
                                             messages, n_memory, n_messages);
        INSERT INTO agent_state.model_calls AS c (
            runtime_agent_id, run_id, snapshot_id, provider, model, request, response, tokens, cost_usd, status
        )
        VALUES (agent, run, snap, provider, model, request, response, tokens, cost_usd, status)
        RETURNING c.model_call_id INTO call_id;
        IF n_tools > 0 THEN
            -- Ids made here, so that they come back in the order of tool_calls.
            -- Ascending: the calls share one statement, so two may share a created_at
            -- microsecond, and recover_run breaks such ties by id.
            tool_ids := ARRAY(SELECT g.id
                              FROM (SELECT pg_catalog.gen_random_uuid() AS id
                                    FROM pg_catalog.generate_series(1, n_tools)) AS g
                              ORDER BY g.id);
            INSERT INTO agent_state.tool_calls (
                runtime_agent_id, run_id, tool_call_id, model_call_id, tool_name, grant_revision, input
            )
            SELECT agent, run, tool_ids[e.ord], call_id, tool_names[e.ord], grant_revs[e.ord], e.elem -> 'input'
            FROM pg_catalog.jsonb_array_elements(tool_calls) WITH ORDINALITY AS e (elem, ord)
            ORDER BY e.ord;
            -- The first result of each call just written (no other transaction can
            -- see the calls yet, so nothing can queue before it).
            INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
            SELECT agent, tool_ids[e.ord], 1, e.elem ->> 'status', e.elem -> 'output'
            FROM pg_catalog.jsonb_array_elements(tool_calls) WITH ORDINALITY AS e (elem, ord)
            WHERE e.elem ? 'output'
            ORDER BY e.ord;
            calls := pg_catalog.to_jsonb(tool_ids);
        END IF;
        IF frontier IS NOT NULL THEN
            -- Numbered under the run's lock, which the charge above holds.
            cp := agent_state._append_checkpoint(agent, run, frontier);
        END IF;
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
