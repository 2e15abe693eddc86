-- An agent's runs, newest first by creation (SPEC section 3), with what each
-- spent: an operator's view of the execution ledger, not a recovery (recover_run).
CREATE FUNCTION agent_state.list_runs(agent uuid, max_results integer DEFAULT 100)
RETURNS TABLE (
    run uuid, conversation uuid, status text, continued_from uuid, created_at timestamptz,
    finished_at timestamptz, spent_tokens numeric, spent_cost_usd numeric, spent_tool_calls bigint
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(list_runs.agent);
    PERFORM agent_state._need_count(list_runs.max_results, 'max_results', 1, 10000);
    RETURN QUERY
    SELECT r.run_id, r.conversation_id, r.status, r.continued_from, r.created_at, r.finished_at,
           r.spent_tokens, r.spent_cost_usd, r.spent_tool_calls
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = list_runs.agent
    ORDER BY r.created_at DESC, r.run_id
    LIMIT list_runs.max_results;
END
$$;

COMMENT ON FUNCTION agent_state.list_runs(uuid, integer) IS
'list_runs(agent, max_results => 100) -> table(run, conversation, status, continued_from, '
'created_at, finished_at, spent_tokens, spent_cost_usd, spent_tool_calls): the agent''s runs, '
'newest first by creation. max_results from 1 to 10000.';
