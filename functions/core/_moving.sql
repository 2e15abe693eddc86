-- A call for an agent listed in agent_moves (_bind, which read its state st):
-- while a move is under way ('out', 'in') it fails with 55006 (retry: the router
-- sends it to the agent's shard once the move is done); once the agent was moved
-- away ('gone') the copy here answers as an unknown agent would: P0002 for an
-- operator, 42501 for anyone else, with _bind's own messages. Not granted to
-- anyone.
CREATE FUNCTION agent_state._moving(agent uuid, caller name, is_operator boolean, st text)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF st = 'gone' THEN
        IF is_operator THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
        END IF;
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('agent: role %I may not act for agent %s', caller, agent),
            HINT = 'An operator grants hosting with agent_state.grant_hosting.';
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '55006',
        MESSAGE = pg_catalog.format('agent: agent %s is being moved to another shard', agent),
        HINT = 'Retry: a move takes seconds; the router sends the call to the new shard afterwards.';
END
$$;
