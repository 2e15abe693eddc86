-- Every invariant the triggers hold, checked over the stored rows: for a DBA after
-- a restore (whose rows the triggers do not check: see _restoring), after a crash,
-- or at any time. The per-row checks are the functions the triggers call, so a
-- rule has one source; a row that fails is reported, not raised, so one run lists
-- every problem. Each object names its agent first ("agent <id>: ..."), except a
-- tool's, which is deployment-wide. verify() is its caller. With scope, only
-- that agent's rows are read (each query probes the agent's key), and tools not
-- at all.
CREATE FUNCTION agent_state._verify_invariants(scope uuid)
RETURNS TABLE (check_name text, object text, detail text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item record;
    rev agent_state.memory_revisions;
    msg agent_state.messages;
    snap agent_state.prompt_snapshots;
    what text;
    failed text;
BEGIN
    -- The per-row rules: each row's check (the trigger's own function) runs in
    -- one place, and whatever it raises becomes a finding, so that one run lists
    -- every problem. r holds the columns of the row a check needs beyond its keys
    -- (read back as the table's row type).
    FOR item IN
        SELECT 'memory_entry' AS c, e.runtime_agent_id AS agent, e.entry_id::text AS id, NULL::jsonb AS r
        FROM agent_state.memory_entries AS e
        WHERE scope IS NULL OR e.runtime_agent_id = scope
        UNION ALL
        SELECT 'memory_redaction', d.runtime_agent_id, d.entry_id::text, NULL::jsonb
        FROM agent_state.memory_redactions AS d
        WHERE scope IS NULL OR d.runtime_agent_id = scope
        UNION ALL
        SELECT DISTINCT 'persona', p.runtime_agent_id, p.runtime_agent_id::text, NULL::jsonb
        FROM agent_state.persona_revisions AS p
        WHERE scope IS NULL OR p.runtime_agent_id = scope
        UNION ALL
        SELECT 'memory_revision', v.runtime_agent_id,
               pg_catalog.format('entry %s revision %s', v.entry_id, v.revision),
               pg_catalog.jsonb_build_object(
                   'entry_id', v.entry_id, 'revision', v.revision, 'source_message_id', v.source_message_id,
                   'source_actor_id', v.source_actor_id, 'evidence_observers', v.evidence_observers,
                   'evidence_conversations', v.evidence_conversations, 'visibility', v.visibility,
                   'created_at', v.created_at)
        FROM agent_state.memory_revisions AS v
        WHERE scope IS NULL OR v.runtime_agent_id = scope
        UNION ALL
        SELECT 'message_audience', m.runtime_agent_id, 'message ' || m.message_id,
               pg_catalog.jsonb_build_object('conversation_id', m.conversation_id, 'audience', m.audience)
        FROM agent_state.messages AS m
        WHERE scope IS NULL OR m.runtime_agent_id = scope
        UNION ALL
        SELECT 'snapshot_sources', s.runtime_agent_id, 'snapshot ' || s.snapshot_id,
               pg_catalog.jsonb_build_object('snapshot_id', s.snapshot_id, 'memory_count', s.memory_count,
                                             'message_count', s.message_count)
        FROM agent_state.prompt_snapshots AS s
        WHERE scope IS NULL OR s.runtime_agent_id = scope
        UNION ALL
        SELECT 'tool', NULL::uuid, t.tool_name, NULL::jsonb
        FROM agent_state.tools AS t
        WHERE scope IS NULL
        ORDER BY 1, 2, 3
    LOOP
        BEGIN
            CASE item.c
                WHEN 'memory_entry' THEN PERFORM agent_state._check_entry_state(item.agent, item.id::uuid);
                WHEN 'memory_redaction' THEN PERFORM agent_state._check_redaction(item.agent, item.id::uuid);
                WHEN 'persona' THEN PERFORM agent_state._check_persona(item.agent);
                WHEN 'memory_revision' THEN
                    rev := pg_catalog.jsonb_populate_record(NULL::agent_state.memory_revisions, item.r);
                    PERFORM agent_state._check_revision(
                        item.agent, rev.entry_id, rev.revision, rev.source_message_id, rev.source_actor_id,
                        rev.evidence_observers, rev.evidence_conversations, rev.visibility, rev.created_at);
                WHEN 'message_audience' THEN
                    msg := pg_catalog.jsonb_populate_record(NULL::agent_state.messages, item.r);
                    PERFORM agent_state._check_audience(item.agent, msg.conversation_id, msg.audience);
                WHEN 'snapshot_sources' THEN
                    snap := pg_catalog.jsonb_populate_record(NULL::agent_state.prompt_snapshots, item.r);
                    PERFORM agent_state._check_snapshot(item.agent, snap.snapshot_id, snap.memory_count,
                                                        snap.message_count);
                ELSE PERFORM agent_state._check_tool(item.id);
            END CASE;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, what = RETURNED_SQLSTATE;
            check_name := item.c;
            -- A tool is deployment-wide: its object is its name alone.
            object := CASE
                WHEN item.agent IS NULL THEN item.id
                ELSE pg_catalog.format('agent %s: %s', item.agent, item.id)
            END;
            detail := what || ': ' || failed;
            RETURN NEXT;
        END;
    END LOOP;

    -- Set-based rules: what the insert triggers derive.
    RETURN QUERY
    SELECT 'snapshot_hash', pg_catalog.format('agent %s: snapshot %s', s.runtime_agent_id, s.snapshot_id),
           'prompt_sha256 is not the sha256 of the prompt (and the snapshot is not redacted)'
    FROM agent_state.prompt_snapshots AS s
    WHERE (scope IS NULL OR s.runtime_agent_id = scope) AND s.redacted_at IS NULL
      AND s.prompt_sha256 <> pg_catalog.encode(
          pg_catalog.sha256(pg_catalog.convert_to(s.prompt, 'UTF8')), 'hex')
    ORDER BY s.runtime_agent_id, s.snapshot_id;

    -- A run's spending is what the run it continues had spent plus its own charges.
    RETURN QUERY
    SELECT 'run_budget', pg_catalog.format('agent %s: run %s', x.runtime_agent_id, x.run_id),
           pg_catalog.format('spent (%s tokens, %s usd, %s tool calls) is not the sum of its charges '
                             '(%s, %s, %s)', x.spent_tokens, x.spent_cost_usd, x.spent_tool_calls,
                             x.tokens, x.cost_usd, x.tool_calls)
    FROM (
        SELECT u.runtime_agent_id, u.run_id, u.spent_tokens, u.spent_cost_usd, u.spent_tool_calls,
               coalesce(p.spent_tokens, 0) + coalesce(mc.tokens, 0) AS tokens,
               coalesce(p.spent_cost_usd, 0) + coalesce(mc.cost_usd, 0) AS cost_usd,
               coalesce(p.spent_tool_calls, 0) + coalesce(tc.n, 0) AS tool_calls
        FROM agent_state.runs AS u
        LEFT JOIN agent_state.runs AS p
          ON p.runtime_agent_id = u.runtime_agent_id AND p.run_id = u.continued_from
        LEFT JOIN LATERAL (
            SELECT pg_catalog.sum(m.tokens) AS tokens, pg_catalog.sum(m.cost_usd) AS cost_usd
            FROM agent_state.model_calls AS m
            WHERE m.runtime_agent_id = u.runtime_agent_id AND m.run_id = u.run_id
        ) AS mc ON true
        LEFT JOIN LATERAL (
            SELECT pg_catalog.count(*) AS n
            FROM agent_state.tool_calls AS t
            WHERE t.runtime_agent_id = u.runtime_agent_id AND t.run_id = u.run_id
        ) AS tc ON true
        WHERE scope IS NULL OR u.runtime_agent_id = scope
    ) AS x
    WHERE (x.spent_tokens, x.spent_cost_usd, x.spent_tool_calls)
        IS DISTINCT FROM (x.tokens, x.cost_usd, x.tool_calls)
    ORDER BY x.runtime_agent_id, x.run_id;

    -- The numbered streams, each numbered 1 to n without a gap: a run's
    -- checkpoints, a tool call's results.
    RETURN QUERY
    SELECT x.kind || '_numbering', pg_catalog.format('agent %s: %s %s', x.agent, x.owner, x.stream),
           pg_catalog.format('%s %s numbered %s to %s', pg_catalog.count(*), x.items,
                             pg_catalog.min(x.n), pg_catalog.max(x.n))
    FROM (
        SELECT 'checkpoint', c.runtime_agent_id, 'run', c.run_id, 'checkpoints', c.checkpoint
        FROM agent_state.checkpoints AS c
        WHERE scope IS NULL OR c.runtime_agent_id = scope
        UNION ALL
        SELECT 'tool_result', t.runtime_agent_id, 'tool call', t.tool_call_id, 'results', t.result_no
        FROM agent_state.tool_results AS t
        WHERE scope IS NULL OR t.runtime_agent_id = scope
    ) AS x (kind, agent, owner, stream, items, n)
    GROUP BY x.kind, x.agent, x.owner, x.stream, x.items
    HAVING pg_catalog.min(x.n) <> 1 OR pg_catalog.max(x.n) <> pg_catalog.count(*)
    ORDER BY x.kind, x.agent, x.stream;

    -- Hosting that grants nothing: its role was dropped (or renamed) after the grant.
    RETURN QUERY
    SELECT 'hosting', pg_catalog.format('agent %s: host %s', h.runtime_agent_id, h.host_name),
           pg_catalog.format('role %s no longer has this name (now %s): the row grants nothing',
                             h.host::oid, pg_catalog.pg_get_userbyid(h.host))
    FROM agent_state.agent_hosts AS h
    WHERE (scope IS NULL OR h.runtime_agent_id = scope)
      AND pg_catalog.pg_get_userbyid(h.host) OPERATOR(pg_catalog.<>) h.host_name
    ORDER BY h.runtime_agent_id, h.host_name;

    -- Erasure follows the data: a copy (fork_agent) of a redacted entry in any
    -- agent of its lineage is redacted too.
    RETURN QUERY
    SELECT DISTINCT 'lineage_redaction', pg_catalog.format('agent %s: entry %s', e.runtime_agent_id, e.entry_id),
           pg_catalog.format('entry is redacted in agent %s of its lineage but not here', d.runtime_agent_id)
    FROM agent_state.memory_redactions AS d
    CROSS JOIN LATERAL agent_state._lineage(d.runtime_agent_id) AS l (id)
    JOIN agent_state.memory_entries AS e ON e.runtime_agent_id = l.id AND e.entry_id = d.entry_id
    -- With scope: the redactions of its lineage only (the lineage is symmetric),
    -- each condition on one table so that it filters that table's scan.
    WHERE (scope IS NULL OR d.runtime_agent_id IN (SELECT agent_state._lineage(scope)))
      AND (scope IS NULL OR e.runtime_agent_id = scope)
      AND NOT EXISTS (
        SELECT FROM agent_state.memory_redactions AS x
        WHERE x.runtime_agent_id = e.runtime_agent_id AND x.entry_id = e.entry_id)
    ORDER BY 2, 3;
END
$$;
