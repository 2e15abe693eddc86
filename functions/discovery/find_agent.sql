-- A handle to its agent (SPEC section 3). P0002 whenever the caller may not act
-- for an agent of that handle, whether or not one exists: a runtime learns
-- nothing about agents it does not host.
CREATE FUNCTION agent_state.find_agent(handle text)
RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    found uuid;
BEGIN
    PERFORM agent_state._need(handle, 'handle');
    SELECT a.runtime_agent_id INTO found
    FROM agent_state.agents AS a
    WHERE a.handle = handle
      AND NOT EXISTS (SELECT FROM agent_state.agent_moves AS m
                      WHERE m.agent = a.runtime_agent_id AND m.state IN ('in', 'gone'));
    IF found IS NULL
       OR NOT (agent_state._caller_is_operator() OR found = ANY (agent_state._hosted_agents())) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('handle: no agent %s that role %I may act for',
                                        agent_state._quote_prefix(handle), agent_state._caller());
    END IF;
    RETURN found;
END
$$;

COMMENT ON FUNCTION agent_state.find_agent(text) IS
'find_agent(handle) -> uuid: the agent with that handle, if the caller may act for it; P0002 '
'otherwise, whether or not such an agent exists. handle null: 22004.';
