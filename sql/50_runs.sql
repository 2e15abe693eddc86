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

-- Insert triggers of the execution tables run before row-level security checks
-- the new row, and they read other rows as the owner. So that a role granted
-- table privileges learns nothing about an agent it may not act for (not even
-- through which error it gets), a guard trigger fires first on each of those
-- tables (created in a loop at the end of sql/52_ledger.sql): the role running
-- the INSERT must be allowed to act for the row's agent (42501). Deliberately not SECURITY DEFINER: current_user is the role
-- running the INSERT. Inside our SECURITY DEFINER functions (which bind the
-- caller before writing) that is the owner, normally a superuser, and operators
-- may act for every agent: for them the membership test answers at once, without
-- a query, and it is the guard triggers' WHEN clause, so the function is not even
-- called. Everyone else is tested like the agent_scope policy does.
CREATE FUNCTION agent_state._guard_scope()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.pg_has_role(current_user, 'agent_state_operator', 'MEMBER') THEN
        RETURN NEW;
    END IF;
    -- The same test as the agent_scope policy, through the helpers it uses (the
    -- ones granted to the group roles).
    IF NOT (agent_state._caller_is_operator()
            OR NEW.runtime_agent_id = ANY (agent_state._hosted_agents())) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('runtime_agent_id: role %I may not act for agent %s',
                                        agent_state._caller(), NEW.runtime_agent_id);
    END IF;
    RETURN NEW;
END
$$;

-- New runs: a run starts open (or already exhausted when its spending is at a
-- limit). A continuation inherits the chain and at least its predecessor's
-- spending, and the predecessor, if still unfinished, is finished as handed_off.
-- Runs for every writer, so direct DML cannot start a chain with a clean budget.
CREATE FUNCTION agent_state._run_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    pred agent_state.runs;
BEGIN
    IF NEW.status NOT IN ('open', 'budget_exhausted') THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'status: a run starts open; finish it with finish_run';
    END IF;
    NEW.finished_at := NULL;
    NEW.finished_by := NULL;
    NEW.detail := NULL;

    IF NEW.trigger_message_id IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = NEW.runtime_agent_id
          AND m.message_id = NEW.trigger_message_id
          AND m.conversation_id = NEW.conversation_id
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('trigger_message: %s is not a message of conversation %s',
                                        NEW.trigger_message_id, NEW.conversation_id);
    END IF;

    IF NEW.continued_from IS NULL THEN
        NEW.chain_root := NEW.run_id;
        NEW.chain_started_at := pg_catalog.clock_timestamp();
    ELSE
        SELECT p.* INTO pred
        FROM agent_state.runs AS p
        WHERE p.runtime_agent_id = NEW.runtime_agent_id AND p.run_id = NEW.continued_from
        FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '23503',
                MESSAGE = pg_catalog.format('run: unknown run %s in this perspective', NEW.continued_from);
        END IF;
        IF NEW.spent_tokens < pred.spent_tokens OR NEW.spent_cost_usd < pred.spent_cost_usd
            OR NEW.spent_tool_calls < pred.spent_tool_calls THEN
            RAISE EXCEPTION USING
                ERRCODE = '23514',
                MESSAGE = 'budget: a continuation never resets spent budget';
        END IF;
        NEW.chain_root := pred.chain_root;
        NEW.chain_started_at := pred.chain_started_at;
        IF pred.status IN ('open', 'budget_exhausted') THEN
            UPDATE agent_state.runs AS p
            SET status = 'handed_off',
                detail = pg_catalog.jsonb_build_object('continued_by', NEW.run_id)
            WHERE p.runtime_agent_id = NEW.runtime_agent_id AND p.run_id = NEW.continued_from;
        END IF;
    END IF;

    -- Spending at or past a limit (wall time counts from the chain's start).
    IF (NEW.spent_tokens >= NEW.limit_tokens
            OR NEW.spent_cost_usd >= NEW.limit_cost_usd
            OR NEW.spent_tool_calls >= NEW.limit_tool_calls
            OR (NEW.limit_wall_time_seconds IS NOT NULL
                AND pg_catalog.extract('epoch', pg_catalog.clock_timestamp() - NEW.chain_started_at)
                >= NEW.limit_wall_time_seconds)) THEN
        NEW.status := 'budget_exhausted';
    END IF;
    RETURN NEW;
END
$$;

-- Updates: only status, spent_* and the finish columns change; spent never
-- decreases; a finished run never changes again (55000) and an exhausted run never
-- reopens; reaching a limit marks the run budget_exhausted; finishing stamps who
-- and when from the database.
CREATE FUNCTION agent_state._run_before_update()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Every column but status, spent_* and the finish columns (keep this list
    -- complete when adding a column).
    IF (NEW.runtime_agent_id, NEW.run_id, NEW.conversation_id, NEW.trigger_message_id, NEW.continued_from,
        NEW.chain_root, NEW.chain_started_at, NEW.task_context, NEW.limit_tokens, NEW.limit_cost_usd,
        NEW.limit_tool_calls, NEW.limit_wall_time_seconds, NEW.created_at, NEW.created_by)
        IS DISTINCT FROM
       (OLD.runtime_agent_id, OLD.run_id, OLD.conversation_id, OLD.trigger_message_id, OLD.continued_from,
        OLD.chain_root, OLD.chain_started_at, OLD.task_context, OLD.limit_tokens, OLD.limit_cost_usd,
        OLD.limit_tool_calls, OLD.limit_wall_time_seconds, OLD.created_at, OLD.created_by) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = 'runs: only status, spent and finish columns of a run may change',
            HINT = 'Start or continue a run instead.';
    END IF;
    IF OLD.status NOT IN ('open', 'budget_exhausted') THEN
        IF NEW IS NOT DISTINCT FROM OLD THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', OLD.run_id, OLD.status);
    END IF;
    IF NEW.spent_tokens < OLD.spent_tokens OR NEW.spent_cost_usd < OLD.spent_cost_usd
        OR NEW.spent_tool_calls < OLD.spent_tool_calls THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = 'runs: spent budget never decreases';
    END IF;
    IF OLD.status = 'budget_exhausted' AND NEW.status = 'open' THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('run: run %s has exhausted its budget; continue it with a higher budget',
                                        OLD.run_id);
    END IF;
    IF NEW.status IN ('open', 'budget_exhausted') THEN
        NEW.finished_at := NULL;
        NEW.finished_by := NULL;
        NEW.detail := NULL;
        IF NEW.status = 'open' AND (NEW.spent_tokens >= NEW.limit_tokens
                OR NEW.spent_cost_usd >= NEW.limit_cost_usd
                OR NEW.spent_tool_calls >= NEW.limit_tool_calls
                OR (NEW.limit_wall_time_seconds IS NOT NULL
                    AND pg_catalog.extract('epoch', pg_catalog.clock_timestamp() - NEW.chain_started_at)
                    >= NEW.limit_wall_time_seconds)) THEN
            NEW.status := 'budget_exhausted';
        END IF;
    ELSE
        NEW.finished_at := pg_catalog.clock_timestamp();
        NEW.finished_by := agent_state._caller();
        NEW.detail := coalesce(NEW.detail, '{}'::jsonb);
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER runs_before_insert
BEFORE INSERT ON agent_state.runs
FOR EACH ROW EXECUTE FUNCTION agent_state._run_before_insert();

-- A charge of an open run that stays below every limit (and has no wall-time
-- limit, which depends on the clock) changes nothing the trigger function would
-- act on: the function would return the row unchanged. The WHEN clause lets such
-- an update through without calling it; every other update (any other column
-- touched, spent decreasing, a limit reached, a status change, a finished or
-- exhausted run) goes through the function.
CREATE TRIGGER runs_before_update
BEFORE UPDATE ON agent_state.runs
FOR EACH ROW
WHEN (NOT coalesce(
    old.status = 'open' AND new.status = 'open'
    AND (
        new.runtime_agent_id, new.run_id, new.conversation_id, new.trigger_message_id, new.continued_from,
        new.chain_root, new.chain_started_at, new.task_context, new.limit_tokens, new.limit_cost_usd,
        new.limit_tool_calls, new.limit_wall_time_seconds, new.created_at, new.created_by
    )
    IS NOT DISTINCT FROM
    (
        old.runtime_agent_id, old.run_id, old.conversation_id, old.trigger_message_id, old.continued_from,
        old.chain_root, old.chain_started_at, old.task_context, old.limit_tokens, old.limit_cost_usd,
        old.limit_tool_calls, old.limit_wall_time_seconds, old.created_at, old.created_by
    )
    AND new.finished_at IS NULL AND new.finished_by IS NULL AND new.detail IS NULL
    AND new.spent_tokens >= old.spent_tokens AND new.spent_cost_usd >= old.spent_cost_usd
    AND new.spent_tool_calls >= old.spent_tool_calls
    AND new.limit_wall_time_seconds IS NULL
    AND (new.limit_tokens IS NULL OR new.spent_tokens < new.limit_tokens)
    AND (new.limit_cost_usd IS NULL OR new.spent_cost_usd < new.limit_cost_usd)
    AND (new.limit_tool_calls IS NULL OR new.spent_tool_calls < new.limit_tool_calls),
    false
))
EXECUTE FUNCTION agent_state._run_before_update();

CREATE TRIGGER runs_no_delete
BEFORE DELETE ON agent_state.runs
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

-- Every write to a run (snapshot, model call, tool call, checkpoint) locks the run
-- row first, so writes to one run are serialised and a run finished concurrently
-- is seen finished. A finished run takes no more writes (55000). Returns the
-- run's status (open or budget_exhausted).
CREATE FUNCTION agent_state._run_writable(agent uuid, run uuid)
RETURNS text
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    st text;
BEGIN
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('run: unknown run %s in this perspective', run);
    END IF;
    IF st NOT IN ('open', 'budget_exhausted') THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', run, st);
    END IF;
    RETURN st;
END
$$;
