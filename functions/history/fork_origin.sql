-- Where a fork came from (SPEC section 13): no row for an agent that is not a fork.
CREATE FUNCTION agent_state.fork_origin(agent uuid)
RETURNS TABLE (origin uuid, as_of timestamptz, forked_at timestamptz, forked_by text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(fork_origin.agent, true);
    RETURN QUERY
    SELECT f.origin_agent_id, f.as_of, f.created_at, f.created_by::text
    FROM agent_state.agent_forks AS f
    WHERE f.runtime_agent_id = fork_origin.agent;
END
$$;

COMMENT ON FUNCTION agent_state.fork_origin(uuid) IS
'fork_origin(agent) -> table(origin, as_of, forked_at, forked_by) (operator): the agent this '
'one was forked from, the moment its state was copied as of, when and by whom; no row when the '
'agent is not a fork.';
