-- Model calls: charge the usage to the run (53400 exhausted, 55000 finished).
CREATE FUNCTION agent_state._tg_model_call_before_insert()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
