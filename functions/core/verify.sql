-- SPEC section 14: every invariant over the stored rows (_verify_invariants),
-- the hash chains (_chain_findings) and, given a head kept outside the database,
-- the history up to that head (_chain_head_findings). Operators only: the report
-- names rows of every agent. It writes nothing, so it runs in a READ ONLY
-- transaction. With an agent, only that agent's rows are read and reported
-- (tools are deployment-wide and checked only when agent is null): a move's
-- check of its copy costs that agent's size, not the shard's.
CREATE FUNCTION agent_state.verify(agent uuid DEFAULT NULL, expected_head text DEFAULT NULL)
RETURNS TABLE (check_name text, object text, detail text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._need_operator();
    IF verify.expected_head IS NOT NULL AND verify.agent IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'expected_head: a head is checked against its agent; give agent too';
    END IF;
    IF verify.agent IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = verify.agent
    ) THEN
        PERFORM agent_state._missing('agent', 'agent', verify.agent);
    END IF;
    RETURN QUERY SELECT * FROM agent_state._verify_invariants(verify.agent);
    RETURN QUERY SELECT * FROM agent_state._chain_findings(verify.agent);
    IF verify.expected_head IS NOT NULL THEN
        RETURN QUERY SELECT * FROM agent_state._chain_head_findings(verify.agent, verify.expected_head);
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.verify(uuid, text) IS
'verify(agent default null, expected_head default null) -> table(check_name, object, detail) '
'(operator): every invariant the triggers hold and the hash chains (changed, inserted, copied, '
'deleted, reordered records), checked over the stored rows; given a head chain_head returned '
'earlier, whether the history up to it is intact (not truncated, rolled back or rewritten). '
'No rows means all hold. Writes nothing.';
