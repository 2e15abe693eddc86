-- Runs: one execution of a task by an agent, with its budget.
--
-- A run is open, budget_exhausted, or finished (succeeded, failed, cancelled,
-- handed_off). continue_run starts a new run that continues a task: the chain is
-- linked through continued_from (at most one continuation per run, so a budget can
-- never be forked), and chain_root / chain_started_at name the first run of the
-- chain, from whose start wall time is measured.
--
-- Budget limits (NULL = no limit) and spent amounts are columns of the run row.
-- The row is the one mutable record of execution state: status, spent_* and the
-- finish columns may change, and a trigger makes sure, for every role, that spent
-- never decreases, that a finished run never changes again, that nothing else is
-- ever rewritten, and that a run whose spending reaches a limit is marked
-- budget_exhausted.
CREATE TABLE agent_state.runs (
    runtime_agent_id uuid NOT NULL,
    run_id uuid NOT NULL DEFAULT gen_random_uuid(),
    conversation_id uuid,
    trigger_message_id uuid,
    continued_from uuid,
    chain_root uuid NOT NULL,
    chain_started_at timestamptz NOT NULL,
    task_context jsonb,
    limit_tokens numeric,
    limit_cost_usd numeric,
    limit_tool_calls bigint,
    limit_wall_time_seconds numeric,
    status text NOT NULL DEFAULT 'open',
    spent_tokens numeric NOT NULL DEFAULT 0,
    spent_cost_usd numeric NOT NULL DEFAULT 0,
    spent_tool_calls bigint NOT NULL DEFAULT 0,
    detail jsonb,
    finished_at timestamptz,
    finished_by name,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT runs_pkey PRIMARY KEY (runtime_agent_id, run_id),
    CONSTRAINT runs_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT runs_conversation_fkey FOREIGN KEY (runtime_agent_id, conversation_id)
    REFERENCES agent_state.conversations (runtime_agent_id, conversation_id),
    CONSTRAINT runs_trigger_message_fkey FOREIGN KEY (runtime_agent_id, trigger_message_id)
    REFERENCES agent_state.messages (runtime_agent_id, message_id),
    CONSTRAINT runs_continued_from_fkey FOREIGN KEY (runtime_agent_id, continued_from)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    -- One continuation per run: two continuations would each inherit the same
    -- spent budget and spend the remainder twice.
    CONSTRAINT runs_continued_from_key UNIQUE (runtime_agent_id, continued_from),
    CONSTRAINT runs_status_check CHECK (
        status IN ('open', 'budget_exhausted', 'succeeded', 'failed', 'cancelled', 'handed_off')
    ),
    CONSTRAINT runs_finished_check CHECK (
        (status IN ('open', 'budget_exhausted')) = (finished_at IS NULL)
        AND (finished_at IS NULL) = (finished_by IS NULL)
        AND (finished_at IS NULL) = (detail IS NULL)
    ),
    CONSTRAINT runs_trigger_conversation_check CHECK (
        trigger_message_id IS NULL OR conversation_id IS NOT NULL
    ),
    CONSTRAINT runs_limits_check CHECK (
        (limit_tokens IS NULL OR (limit_tokens > 0 AND limit_tokens = trunc(limit_tokens)))
        AND (limit_cost_usd IS NULL OR limit_cost_usd > 0)
        AND (limit_tool_calls IS NULL OR limit_tool_calls > 0)
        AND (limit_wall_time_seconds IS NULL OR limit_wall_time_seconds > 0)
    ),
    CONSTRAINT runs_spent_check CHECK (
        spent_tokens >= 0 AND spent_tokens = trunc(spent_tokens)
        AND spent_cost_usd >= 0 AND spent_tool_calls >= 0
    ),
    CONSTRAINT runs_task_context_check CHECK (
        task_context IS NULL OR jsonb_typeof(task_context) IN ('object', 'array')
    ),
    CONSTRAINT runs_detail_check CHECK (detail IS NULL OR jsonb_typeof(detail) = 'object')
);

CREATE INDEX runs_chain_idx ON agent_state.runs (runtime_agent_id, chain_root);

COMMENT ON TABLE agent_state.runs IS
'Runs: status, budget limits (NULL = none) and spent amounts; continued_from links a chain.';

-- Prompt snapshots: the audit record of exactly what an agent knew for one model
-- call, the assembled prompt (with its sha256) and every source row used. Sources
-- are composite foreign keys into the same perspective (persona revision, memory
-- revisions, messages), so a snapshot can never point into another agent's rows,
-- whatever path wrote it.
--
-- The source list of a snapshot is fixed too: the snapshot row records how many
-- memory and message sources it has, each source takes one of the numbered slots
-- 1..count (unique), and at commit the slots must all be filled. A later
-- transaction finds no free slot, so nothing can be added to what an agent knew.
--
-- Snapshots are immutable for every role. The one exception is erasure: redact
-- replaces the prompt of every snapshot that used a redacted entry with
-- '[redacted]', keeping prompt_sha256 of the original and stamping redacted_at/by,
-- in the transaction that writes the entry's memory_redactions row.
CREATE TABLE agent_state.prompt_snapshots (
    runtime_agent_id uuid NOT NULL,
    snapshot_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL,
    prompt text NOT NULL,
    prompt_sha256 text NOT NULL,
    persona_revision integer,
    memory_count integer NOT NULL DEFAULT 0,
    message_count integer NOT NULL DEFAULT 0,
    redacted_at timestamptz,
    redacted_by name,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT prompt_snapshots_pkey PRIMARY KEY (runtime_agent_id, snapshot_id),
    -- Target of model_calls' (agent, run, snapshot) foreign key: a model call's
    -- snapshot is a snapshot of the same run.
    CONSTRAINT prompt_snapshots_run_key UNIQUE (runtime_agent_id, run_id, snapshot_id),
    CONSTRAINT prompt_snapshots_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT prompt_snapshots_persona_fkey FOREIGN KEY (runtime_agent_id, persona_revision)
    REFERENCES agent_state.persona_revisions (runtime_agent_id, revision),
    CONSTRAINT prompt_snapshots_counts_check CHECK (memory_count >= 0 AND message_count >= 0),
    CONSTRAINT prompt_snapshots_sha256_check CHECK (prompt_sha256 ~ '^[0-9a-f]{64}$'),
    -- The hash of an unredacted snapshot is its prompt's, whoever wrote the row
    -- (the insert trigger computes it for other writers; the functions, which
    -- it skips, compute it themselves). A redacted one keeps the hash of what
    -- was removed.
    CONSTRAINT prompt_snapshots_sha256_matches_check CHECK (
        redacted_at IS NOT NULL
        OR prompt_sha256 = encode(sha256(convert_to(prompt, 'UTF8')), 'hex')
    ),
    CONSTRAINT prompt_snapshots_redacted_check CHECK (
        (redacted_at IS NULL) = (redacted_by IS NULL)
        AND (redacted_at IS NULL OR prompt = '[redacted]')
    )
);

COMMENT ON TABLE agent_state.prompt_snapshots IS
'Immutable prompt snapshots (prompt, sha256, persona revision) of a run; only redact may blank a prompt.';

CREATE TABLE agent_state.snapshot_memory (
    runtime_agent_id uuid NOT NULL,
    snapshot_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    ordinal integer NOT NULL,
    CONSTRAINT snapshot_memory_pkey PRIMARY KEY (runtime_agent_id, snapshot_id, entry_id, revision),
    CONSTRAINT snapshot_memory_ordinal_key UNIQUE (runtime_agent_id, snapshot_id, ordinal),
    CONSTRAINT snapshot_memory_ordinal_check CHECK (ordinal >= 1),
    CONSTRAINT snapshot_memory_snapshot_fkey FOREIGN KEY (runtime_agent_id, snapshot_id)
    REFERENCES agent_state.prompt_snapshots (runtime_agent_id, snapshot_id),
    CONSTRAINT snapshot_memory_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision)
);

-- Redaction finds every snapshot that used any revision of an entry.
CREATE INDEX snapshot_memory_entry_idx ON agent_state.snapshot_memory (runtime_agent_id, entry_id);

COMMENT ON TABLE agent_state.snapshot_memory IS
'Memory revisions a prompt snapshot used, in prompt order.';

CREATE TABLE agent_state.snapshot_messages (
    runtime_agent_id uuid NOT NULL,
    snapshot_id uuid NOT NULL,
    message_id uuid NOT NULL,
    ordinal integer NOT NULL,
    CONSTRAINT snapshot_messages_pkey PRIMARY KEY (runtime_agent_id, snapshot_id, message_id),
    CONSTRAINT snapshot_messages_ordinal_key UNIQUE (runtime_agent_id, snapshot_id, ordinal),
    CONSTRAINT snapshot_messages_ordinal_check CHECK (ordinal >= 1),
    CONSTRAINT snapshot_messages_snapshot_fkey FOREIGN KEY (runtime_agent_id, snapshot_id)
    REFERENCES agent_state.prompt_snapshots (runtime_agent_id, snapshot_id),
    CONSTRAINT snapshot_messages_message_fkey FOREIGN KEY (runtime_agent_id, message_id)
    REFERENCES agent_state.messages (runtime_agent_id, message_id)
);

COMMENT ON TABLE agent_state.snapshot_messages IS
'Messages a prompt snapshot used, in prompt order.';

-- The execution ledger of a run: model calls, tool calls, tool results and
-- checkpoints. Every table is append-only for every role.
--
-- Budget charging lives in triggers, so it holds whatever path writes a call: a
-- model call charges its usage and a tool call one unit of tool_calls to the run in
-- the same transaction, with one UPDATE of the run row (concurrent charges queue on
-- that row lock; none is lost). A call on a budget_exhausted run raises 53400 and a
-- call on a finished run 55000, and nothing is written. The call whose charge makes
-- spending reach a limit is recorded (it happened) and the run becomes
-- budget_exhausted (trigger on runs).

CREATE TABLE agent_state.model_calls (
    runtime_agent_id uuid NOT NULL,
    model_call_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL,
    snapshot_id uuid NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    request jsonb NOT NULL,
    response jsonb,
    tokens numeric NOT NULL DEFAULT 0,
    cost_usd numeric NOT NULL DEFAULT 0,
    status text NOT NULL DEFAULT 'ok',
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT model_calls_pkey PRIMARY KEY (runtime_agent_id, model_call_id),
    -- Target of tool_calls' (agent, run, model call) foreign key.
    CONSTRAINT model_calls_run_key UNIQUE (runtime_agent_id, run_id, model_call_id),
    CONSTRAINT model_calls_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    -- The snapshot a model call was given is a snapshot of the same run.
    CONSTRAINT model_calls_snapshot_fkey FOREIGN KEY (runtime_agent_id, run_id, snapshot_id)
    REFERENCES agent_state.prompt_snapshots (runtime_agent_id, run_id, snapshot_id),
    CONSTRAINT model_calls_status_check CHECK (status IN ('ok', 'error', 'timeout')),
    CONSTRAINT model_calls_usage_check CHECK (
        tokens >= 0 AND tokens = trunc(tokens) AND cost_usd >= 0
    ),
    CONSTRAINT model_calls_provider_check CHECK (btrim(provider) <> '' AND length(provider) <= 200),
    CONSTRAINT model_calls_model_check CHECK (btrim(model) <> '' AND length(model) <= 200)
);

COMMENT ON TABLE agent_state.model_calls IS
'Model calls of a run: the snapshot given, request, response, usage (tokens, cost_usd), status.';

CREATE TABLE agent_state.tool_calls (
    runtime_agent_id uuid NOT NULL,
    tool_call_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL,
    model_call_id uuid,
    tool_name text NOT NULL,
    grant_revision integer NOT NULL,
    input jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT tool_calls_pkey PRIMARY KEY (runtime_agent_id, tool_call_id),
    CONSTRAINT tool_calls_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    -- The model call that asked for a tool call belongs to the same run.
    CONSTRAINT tool_calls_model_call_fkey FOREIGN KEY (runtime_agent_id, run_id, model_call_id)
    REFERENCES agent_state.model_calls (runtime_agent_id, run_id, model_call_id)
    -- (tool_calls_grant_fkey to tool_grants is added at the end of this file.)
);

CREATE INDEX tool_calls_run_idx ON agent_state.tool_calls (runtime_agent_id, run_id, created_at);

COMMENT ON TABLE agent_state.tool_calls IS
'Tool calls of a run with the grant revision they ran under; outcomes are in tool_results.';

CREATE TABLE agent_state.tool_results (
    runtime_agent_id uuid NOT NULL,
    tool_call_id uuid NOT NULL,
    result_no integer NOT NULL,
    status text NOT NULL,
    output jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT tool_results_pkey PRIMARY KEY (runtime_agent_id, tool_call_id, result_no),
    CONSTRAINT tool_results_call_fkey FOREIGN KEY (runtime_agent_id, tool_call_id)
    REFERENCES agent_state.tool_calls (runtime_agent_id, tool_call_id),
    CONSTRAINT tool_results_status_check CHECK (status IN ('ok', 'error', 'unconfirmed')),
    CONSTRAINT tool_results_result_no_check CHECK (result_no >= 1)
);

COMMENT ON TABLE agent_state.tool_results IS
'Append-only results of a tool call; the latest (highest result_no) is what is believed.';

CREATE TABLE agent_state.checkpoints (
    runtime_agent_id uuid NOT NULL,
    run_id uuid NOT NULL,
    checkpoint integer NOT NULL,
    frontier jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT checkpoints_pkey PRIMARY KEY (runtime_agent_id, run_id, checkpoint),
    CONSTRAINT checkpoints_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT checkpoints_checkpoint_check CHECK (checkpoint >= 1),
    CONSTRAINT checkpoints_frontier_check CHECK (jsonb_typeof(frontier) IN ('object', 'array'))
);

COMMENT ON TABLE agent_state.checkpoints IS
'Append-only execution frontier of a run, numbered 1, 2, ... per run without gaps.';

-- A tool call records the grant revision it ran under: a composite foreign key
-- into the same agent's grants of the same tool.
ALTER TABLE agent_state.tool_calls
ADD CONSTRAINT tool_calls_grant_fkey FOREIGN KEY (runtime_agent_id, tool_name, grant_revision)
REFERENCES agent_state.tool_grants (runtime_agent_id, tool_name, revision);
