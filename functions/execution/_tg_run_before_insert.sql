-- New runs: a run starts open (or already exhausted when its spending is at a
-- limit). A continuation inherits the chain and at least its predecessor's
-- spending, and the predecessor, if still unfinished, is finished as handed_off.
-- Runs for every writer, so direct DML cannot start a chain with a clean budget.
CREATE FUNCTION agent_state._tg_run_before_insert()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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

    -- The trigger message is one of the run's conversation: checked here for
    -- every writer (start_run relies on it).
    IF NEW.trigger_message_id IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = NEW.runtime_agent_id
          AND m.message_id = NEW.trigger_message_id
          AND m.conversation_id = NEW.conversation_id
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('trigger_message: message %s is not in conversation %s',
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
            PERFORM agent_state._not_in_perspective('run', 'run', NEW.continued_from);
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

    IF agent_state._budget_reached(
            NEW.spent_tokens, NEW.spent_cost_usd, NEW.spent_tool_calls, NEW.limit_tokens,
            NEW.limit_cost_usd, NEW.limit_tool_calls, NEW.limit_wall_time_seconds,
            NEW.chain_started_at) THEN
        NEW.status := 'budget_exhausted';
    END IF;
    RETURN NEW;
END
$$;
