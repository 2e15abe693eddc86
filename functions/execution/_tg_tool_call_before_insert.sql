-- Tool calls: run under the agent's current, enabled grant of the tool (42501),
-- and charge one unit of tool_calls to the run.
CREATE FUNCTION agent_state._tg_tool_call_before_insert()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
            MESSAGE = pg_catalog.format('tool: grant revision %s of %s is not the current enabled grant',
                                        NEW.grant_revision, agent_state._quote_prefix(NEW.tool_name));
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
