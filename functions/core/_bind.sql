-- Binds a call to an agent's perspective. First statement of every agent-scoped
-- function. Operators may act for every agent; anyone else needs hosting of it.
-- An agent a runtime does not host is refused the same way whether or not it
-- exists, so a runtime learns nothing about other perspectives. An agent listed
-- in agent_moves: while a move is under way ('out', 'in') a call fails with
-- 55006 (retry: the router sends it to the agent's shard once the move is done);
-- once it was moved away ('gone') the copy here answers as an unknown agent
-- would, with the refusals below (one place for their messages).
CREATE FUNCTION agent_state._bind(agent uuid, operator_only boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    caller name;
    is_operator boolean;
    move_state text;
BEGIN
    -- Tested inline (this runs first in every call); _need raises.
    IF agent IS NULL THEN
        PERFORM agent_state._need(agent, 'agent');
    END IF;
    -- The caller once; the operator test is _caller_is_operator() inlined (this
    -- runs first in every call).
    caller := agent_state._caller();
    is_operator := pg_catalog.pg_has_role(caller, 'agent_state_operator', 'USAGE');
    IF operator_only AND NOT is_operator THEN
        PERFORM agent_state._need_operator('agent');
    END IF;
    SELECT m.state INTO move_state FROM agent_state.agent_moves AS m WHERE m.agent = _bind.agent;
    IF is_operator AND (
        move_state = 'gone'
        OR NOT EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent)
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
    ELSIF NOT is_operator AND (
        move_state = 'gone'
        OR NOT EXISTS (
            SELECT FROM agent_state.agent_hosts AS h
            WHERE h.runtime_agent_id = agent
              AND agent_state._holds_hosting(caller, h.host, h.host_name))
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('agent: role %I may not act for agent %s', caller, agent),
            HINT = 'An operator grants hosting with agent_state.grant_hosting.';
    ELSIF move_state IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '55006',
            MESSAGE = pg_catalog.format('agent: agent %s is being moved to another shard', agent),
            HINT = 'Retry: a move takes seconds; the router sends the call to the new shard afterwards.';
    END IF;
    RETURN CASE WHEN is_operator THEN 'operator' ELSE 'runtime' END;
END
$$;
