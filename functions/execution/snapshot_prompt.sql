-- Prompt snapshots: what the agent knew for one model call.
CREATE FUNCTION agent_state.snapshot_prompt(
    agent uuid,
    run uuid,
    prompt text,
    persona_revision integer DEFAULT NULL,
    memory jsonb DEFAULT '[]',
    messages uuid [] DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    bad record;
    mem_entries uuid [] := '{}'::uuid [];
    mem_revisions integer [] := '{}'::integer [];
    n_memory integer := 0;
    n_messages integer := 0;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(memory, 'memory');
    -- Hot path: well-formed arguments pass one inline check; otherwise the
    -- helpers, in argument order, raise the error of the first bad one.
    IF NOT coalesce(run IS NOT NULL AND pg_catalog.jsonb_typeof(memory) = 'array' AND messages IS NOT NULL
                    AND pg_catalog.octet_length(prompt) <= 10000000 AND prompt ~ '[^ \t\r\n]',
                    false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need_text(prompt, 'prompt', 10000000);
        PERFORM agent_state._need_json(memory, 'memory', ARRAY['array']);
        PERFORM agent_state._need(messages, 'messages');
    END IF;
    IF pg_catalog.array_position(messages, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'messages: must not contain null';
    END IF;

    IF memory <> '[]'::jsonb AND agent_state._memory_canonical(memory) THEN
        -- Hot path: every element in the usual form; the casts cannot fail.
        SELECT pg_catalog.array_agg((e.elem ->> 'entry')::uuid ORDER BY e.ord),
               pg_catalog.array_agg((e.elem ->> 'revision')::integer ORDER BY e.ord)
        INTO mem_entries, mem_revisions
        FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord);
    ELSIF memory <> '[]'::jsonb THEN
        -- Each element is exactly {"entry": uuid, "revision": positive integer}: the
        -- first malformed one is named (CASE branches in order: a cast is reached
        -- only for a well-formed value), else the parsed arrays come back.
        SELECT pg_catalog.min(p.ord) FILTER (WHERE p.problem IS NOT NULL) AS ord,
               (pg_catalog.array_agg(p.problem ORDER BY p.ord) FILTER (WHERE p.problem IS NOT NULL))[1] AS problem,
               pg_catalog.array_agg(p.entry ORDER BY p.ord) AS entries,
               pg_catalog.array_agg(p.rev ORDER BY p.ord) AS revs
        INTO bad
        FROM (
            SELECT e.ord, c.problem,
                   CASE WHEN c.problem IS NULL THEN (e.elem ->> 'entry')::uuid END AS entry,
                   CASE WHEN c.problem IS NULL THEN (e.elem ->> 'revision')::numeric::integer END AS rev
            FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord)
            CROSS JOIN LATERAL (
                SELECT CASE
                    WHEN pg_catalog.jsonb_typeof(e.elem) <> 'object'
                        THEN 'must be an object {"entry": uuid, "revision": n}'
                    WHEN NOT e.elem ? 'entry' THEN 'entry is missing'
                    WHEN NOT e.elem ? 'revision' THEN 'revision is missing'
                    WHEN (e.elem - ARRAY['entry', 'revision']) <> '{}'::jsonb
                        THEN 'unknown key; an element has only entry and revision'
                    WHEN pg_catalog.jsonb_typeof(e.elem -> 'entry') <> 'string' THEN 'entry must be a uuid'
                    WHEN (e.elem ->> 'entry') !~ (
                        '^(\{[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}'
                        '|[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})$')
                        THEN 'entry must be a uuid'
                    WHEN pg_catalog.jsonb_typeof(e.elem -> 'revision') <> 'number'
                        THEN 'revision must be a positive integer'
                    WHEN (e.elem ->> 'revision')::numeric NOT BETWEEN 1 AND 2147483647
                        OR (e.elem ->> 'revision')::numeric
                        <> pg_catalog.trunc((e.elem ->> 'revision')::numeric)
                        THEN 'revision must be a positive integer'
                END AS problem
            ) AS c
        ) AS p;
        IF bad.ord IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = pg_catalog.format('memory[%s]: %s', bad.ord - 1, bad.problem);
        END IF;
        mem_entries := bad.entries;
        mem_revisions := bad.revs;
    END IF;

    -- Every source must be this perspective's, and no memory entry redacted.
    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_ref(agent, 'run', run, 'run');
    END IF;
    IF persona_revision IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.persona_revisions AS p
        WHERE p.runtime_agent_id = agent AND p.revision = persona_revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('persona_revision: agent %s has no persona revision %s',
                                        agent, persona_revision);
    END IF;
    IF pg_catalog.cardinality(mem_entries) > 0 THEN
        SELECT u.ord - 1 AS ix, u.entry, u.rev, v.revision IS NULL AS missing INTO bad
        FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
             WITH ORDINALITY AS u (entry, rev, ord)
        LEFT JOIN agent_state.memory_revisions AS v
          ON v.runtime_agent_id = agent AND v.entry_id = u.entry AND v.revision = u.rev
        WHERE v.revision IS NULL OR EXISTS (
            SELECT FROM agent_state.memory_redactions AS d
            WHERE d.runtime_agent_id = agent AND d.entry_id = u.entry
        )
        ORDER BY u.ord
        LIMIT 1;
        IF FOUND AND NOT bad.missing THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = pg_catalog.format('memory[%s]: memory entry %s is redacted', bad.ix, bad.entry);
        ELSIF FOUND THEN
            -- Another perspective's entry: 23503 from _missing (which finds it there); else
            -- unknown here (P0002, naming the revision asked for).
            IF EXISTS (
                SELECT FROM agent_state.memory_revisions AS v
                WHERE v.entry_id = bad.entry AND v.runtime_agent_id <> agent
            ) THEN
                PERFORM agent_state._missing('memory entry', pg_catalog.format('memory[%s]', bad.ix), bad.entry);
            END IF;
            RAISE EXCEPTION USING
                ERRCODE = 'P0002',
                MESSAGE = pg_catalog.format('memory[%s]: unknown memory entry %s revision %s',
                                            bad.ix, bad.entry, bad.rev);
        END IF;
        -- Repeated sources are stored once, at their first position.
        SELECT pg_catalog.count(DISTINCT (u.entry, u.rev)) INTO n_memory
        FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions)) AS u (entry, rev);
    END IF;
    IF pg_catalog.cardinality(messages) > 0 THEN
        SELECT u.ord - 1 AS ix, u.id INTO bad
        FROM pg_catalog.unnest(messages) WITH ORDINALITY AS u (id, ord)
        WHERE NOT EXISTS (
            SELECT FROM agent_state.messages AS m WHERE m.runtime_agent_id = agent AND m.message_id = u.id
        )
        ORDER BY u.ord
        LIMIT 1;
        IF FOUND THEN
            PERFORM agent_state._missing('message', pg_catalog.format('messages[%s]', bad.ix), bad.id);
        END IF;
        n_messages := pg_catalog.cardinality(ARRAY(SELECT DISTINCT u.id FROM pg_catalog.unnest(messages) AS u (id)));
    END IF;

    -- What the insert trigger does for other writers (it skips the extension's
    -- own): lock the run, refuse a finished one (55000); the helper hashes.
    PERFORM agent_state._run_writable(agent, run);
    RETURN agent_state._insert_snapshot(agent, run, prompt, persona_revision, mem_entries, mem_revisions,
                                        messages, n_memory, n_messages);
END
$$;

COMMENT ON FUNCTION agent_state.snapshot_prompt(uuid, uuid, text, integer, jsonb, uuid []) IS
'snapshot_prompt(agent, run, prompt, persona_revision => null, memory => ''[]'', messages => ''{}'') '
'-> uuid: the audit record of what the agent knew for one model call: the prompt (required, at most '
'10,000,000 characters, else 22023), its sha256 (hex), and the sources used: persona revision, '
'memory revisions as [{"entry": uuid, "revision": n}] (malformed: 22023 naming memory[i]) and '
'messages. Sources must be this agent''s (P0002 unknown, 23503 another agent''s; enforced by '
'composite foreign keys); a redacted entry cannot be used (55000). The run must be unfinished '
'(55000). Snapshots are immutable; only redact blanks the prompt of a snapshot that used a '
'redacted entry.';
