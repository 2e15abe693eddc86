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

-- Charges a run; the run must be open. Errors: 53400 exhausted, 55000 finished.
CREATE FUNCTION agent_state._charge_run(
    agent uuid, run uuid, tokens numeric, cost_usd numeric, tool_calls integer
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    st text;
BEGIN
    UPDATE agent_state.runs AS r
    SET spent_tokens = r.spent_tokens + tokens,
        spent_cost_usd = r.spent_cost_usd + cost_usd,
        spent_tool_calls = r.spent_tool_calls + tool_calls
    WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open';
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('run: unknown run %s in this perspective', run);
    ELSIF st = 'budget_exhausted' THEN
        RAISE EXCEPTION USING
            ERRCODE = '53400',
            MESSAGE = pg_catalog.format('run: run %s has exhausted its budget', run),
            HINT = 'Finish the run, or continue it with continue_run and a higher budget.';
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '55000',
        MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', run, st);
END
$$;

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
    -- (tool_calls_grant_fkey to tool_grants is added in 93_execution_policies.sql,
    -- which loads after the tool tables.)
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

-- Model calls: charge the usage to the run (53400 exhausted, 55000 finished).
CREATE FUNCTION agent_state._model_call_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- The charge of _charge_run, inline; when no open run takes it, the helper
    -- raises the reason.
    UPDATE agent_state.runs AS r
    SET spent_tokens = r.spent_tokens + NEW.tokens,
        spent_cost_usd = r.spent_cost_usd + NEW.cost_usd
    WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.run_id = NEW.run_id AND r.status = 'open';
    IF NOT FOUND THEN
        PERFORM agent_state._charge_run(NEW.runtime_agent_id, NEW.run_id, NEW.tokens, NEW.cost_usd, 0);
    END IF;
    RETURN NEW;
END
$$;

-- Tool calls: run under the agent's current, enabled grant of the tool (42501),
-- and charge one unit of tool_calls to the run.
CREATE FUNCTION agent_state._tool_call_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (
        SELECT FROM (
            SELECT g.revision, g.enabled
            FROM agent_state.tool_grants AS g
            WHERE g.runtime_agent_id = NEW.runtime_agent_id AND g.tool_name = NEW.tool_name
            ORDER BY g.revision DESC
            LIMIT 1
        ) AS cur
        WHERE cur.revision = NEW.grant_revision AND cur.enabled
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('tool: grant revision %s of %L is not the current enabled grant',
                                        NEW.grant_revision, NEW.tool_name);
    END IF;
    UPDATE agent_state.runs AS r
    SET spent_tool_calls = r.spent_tool_calls + 1
    WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.run_id = NEW.run_id AND r.status = 'open';
    IF NOT FOUND THEN
        PERFORM agent_state._charge_run(NEW.runtime_agent_id, NEW.run_id, 0, 0, 1);
    END IF;
    RETURN NEW;
END
$$;

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

-- Checkpoints: numbered per run under the run row lock (gap-free under
-- concurrency); the run must be unfinished (55000).
CREATE FUNCTION agent_state._checkpoint_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    st text;
BEGIN
    -- _run_writable inline: lock the run; the helper raises when it is unknown
    -- or finished.
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.run_id = NEW.run_id
    FOR NO KEY UPDATE;
    IF NOT coalesce(st IN ('open', 'budget_exhausted'), false) THEN
        PERFORM agent_state._run_writable(NEW.runtime_agent_id, NEW.run_id);
    END IF;
    -- ORDER BY ... LIMIT 1 (not max()): always the backward index scan.
    SELECT k.checkpoint + 1 INTO NEW.checkpoint
    FROM agent_state.checkpoints AS k
    WHERE k.runtime_agent_id = NEW.runtime_agent_id AND k.run_id = NEW.run_id
    ORDER BY k.checkpoint DESC
    LIMIT 1;
    NEW.checkpoint := coalesce(NEW.checkpoint, 1);
    RETURN NEW;
END
$$;

CREATE TRIGGER model_calls_before_insert
BEFORE INSERT ON agent_state.model_calls
FOR EACH ROW EXECUTE FUNCTION agent_state._model_call_before_insert();

CREATE TRIGGER tool_calls_before_insert
BEFORE INSERT ON agent_state.tool_calls
FOR EACH ROW EXECUTE FUNCTION agent_state._tool_call_before_insert();

CREATE TRIGGER tool_results_before_insert
BEFORE INSERT ON agent_state.tool_results
FOR EACH ROW EXECUTE FUNCTION agent_state._tool_result_before_insert();

CREATE TRIGGER checkpoints_before_insert
BEFORE INSERT ON agent_state.checkpoints
FOR EACH ROW EXECUTE FUNCTION agent_state._checkpoint_before_insert();

CREATE TRIGGER model_calls_append_only
BEFORE UPDATE OR DELETE ON agent_state.model_calls
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER tool_calls_append_only
BEFORE UPDATE OR DELETE ON agent_state.tool_calls
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER tool_results_append_only
BEFORE UPDATE OR DELETE ON agent_state.tool_results
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER checkpoints_append_only
BEFORE UPDATE OR DELETE ON agent_state.checkpoints
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

-- The scope guard (sql/50_runs.sql, _guard_scope) on every execution table whose
-- insert triggers read other rows as the owner; its name sorts first, so it fires
-- before them.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['runs', 'prompt_snapshots', 'model_calls', 'tool_calls', 'tool_results', 'checkpoints'] LOOP
        EXECUTE pg_catalog.format(
            'CREATE TRIGGER %I BEFORE INSERT ON agent_state.%I FOR EACH ROW '
            || 'WHEN (NOT pg_catalog.pg_has_role(current_user, ''agent_state_operator'', ''MEMBER'')) '
            || 'EXECUTE FUNCTION agent_state._guard_scope()',
            t || '_0_scope_guard', t);
    END LOOP;
END
$$;
