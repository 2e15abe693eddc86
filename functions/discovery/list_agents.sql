-- The agents the caller may act for right now (SPEC section 3): every agent for
-- an operator, the hosted ones for a runtime, none for any other role. Oldest
-- first, then by id. A copy moved in and not yet live, or moved away (SPEC
-- section 15), is not one to act for here: a router listing every shard lists a
-- moving agent once, from its source.
CREATE FUNCTION agent_state.list_agents()
RETURNS TABLE (agent uuid, handle text, display_name text, created_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    is_operator boolean := agent_state._caller_is_operator();
    hosted uuid [] := CASE WHEN is_operator THEN '{}'::uuid [] ELSE agent_state._hosted_agents() END;
BEGIN
    RETURN QUERY
    SELECT a.runtime_agent_id, a.handle, p.display_name, a.created_at
    FROM agent_state.agents AS a
    LEFT JOIN LATERAL agent_state._profile_at(a.runtime_agent_id, NULL) AS p ON true
    WHERE (is_operator OR a.runtime_agent_id = ANY (hosted))
      AND NOT EXISTS (SELECT FROM agent_state.agent_moves AS m
                      WHERE m.agent = a.runtime_agent_id AND m.state IN ('in', 'gone'))
    ORDER BY a.created_at, a.runtime_agent_id;
END
$$;

COMMENT ON FUNCTION agent_state.list_agents() IS
'list_agents() -> table(agent, handle, display_name, created_at): the agents the caller may '
'act for right now (operators: every agent; runtimes: the agents they host; any other role: '
'none), oldest first. display_name is the current profile''s.';
