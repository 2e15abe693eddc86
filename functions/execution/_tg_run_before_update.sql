-- Updates: only status, spent_* and the finish columns change; spent never
-- decreases; a finished run never changes again (55000) and an exhausted run never
-- reopens; reaching a limit marks the run budget_exhausted; finishing stamps who
-- and when from the database.
CREATE FUNCTION agent_state._tg_run_before_update()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Every column but status, spent_* and the finish columns (a test derives
    -- the list from the catalog and checks this one and the trigger's WHEN
    -- clause against it: tests/pgtap/200_runs.sql).
    IF (NEW.runtime_agent_id, NEW.run_id, NEW.conversation_id, NEW.trigger_message_id, NEW.continued_from,
        NEW.chain_root, NEW.chain_started_at, NEW.task_context, NEW.limit_tokens, NEW.limit_cost_usd,
        NEW.limit_tool_calls, NEW.limit_wall_time_seconds, NEW.created_at, NEW.created_by,
        NEW.chain_at, NEW.chain_xact, NEW.chain_digest, NEW.chain_close_at, NEW.chain_close_xact,
        NEW.chain_close_digest)
        IS DISTINCT FROM
       (OLD.runtime_agent_id, OLD.run_id, OLD.conversation_id, OLD.trigger_message_id, OLD.continued_from,
        OLD.chain_root, OLD.chain_started_at, OLD.task_context, OLD.limit_tokens, OLD.limit_cost_usd,
        OLD.limit_tool_calls, OLD.limit_wall_time_seconds, OLD.created_at, OLD.created_by,
        OLD.chain_at, OLD.chain_xact, OLD.chain_digest, OLD.chain_close_at, OLD.chain_close_xact,
        OLD.chain_close_digest) THEN
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
        IF NEW.status = 'open' AND agent_state._budget_reached(
                NEW.spent_tokens, NEW.spent_cost_usd, NEW.spent_tool_calls, NEW.limit_tokens,
                NEW.limit_cost_usd, NEW.limit_tool_calls, NEW.limit_wall_time_seconds,
                NEW.chain_started_at) THEN
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
