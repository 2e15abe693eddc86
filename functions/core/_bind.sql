-- Binds a call to an agent's perspective. First statement of every agent-scoped
-- function. Operators may act for every agent; anyone else needs hosting of it.
-- An agent a runtime does not host is refused the same way whether or not it
-- exists, so a runtime learns nothing about other perspectives. An agent being
-- moved between shards (agent_moves) fails with 55006, one moved away as an
-- unknown agent (_moving).
CREATE FUNCTION agent_state._bind(agent uuid, operator_only boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    caller name;
    move_state text;
BEGIN
    -- _need's rule and message, inline: this runs first in every call.
    IF agent IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'agent: must not be null';
    END IF;
    -- The caller once; the operator test is _caller_is_operator() inlined (this
    -- runs first in every call).
    caller := agent_state._caller();
    IF pg_catalog.pg_has_role(caller, 'agent_state_operator', 'USAGE') THEN
        IF NOT EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
        END IF;
        SELECT m.state INTO move_state FROM agent_state.agent_moves AS m WHERE m.agent = _bind.agent;
        IF FOUND THEN
            PERFORM agent_state._moving(agent, caller, true, move_state);
        END IF;
        RETURN 'operator';
    END IF;
    IF operator_only THEN
        PERFORM agent_state._need_operator('agent');
    END IF;
    IF NOT EXISTS (
        SELECT FROM agent_state.agent_hosts AS h
        WHERE h.runtime_agent_id = agent
          AND agent_state._holds_hosting(caller, h.host, h.host_name)
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('agent: role %I may not act for agent %s', caller, agent),
            HINT = 'An operator grants hosting with agent_state.grant_hosting.';
    END IF;
    SELECT m.state INTO move_state FROM agent_state.agent_moves AS m WHERE m.agent = _bind.agent;
    IF FOUND THEN
        PERFORM agent_state._moving(agent, caller, false, move_state);
    END IF;
    RETURN 'runtime';
END
$$;
