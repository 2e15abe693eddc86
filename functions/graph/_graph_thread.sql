-- The thread's row, locked (its runs are started and continued one at a time),
-- created with its conversation on first use: returns the conversation and the
-- thread's current run (NULL before its first checkpoint).
CREATE FUNCTION agent_state._graph_thread(agent uuid, thread text, OUT conversation uuid, OUT run uuid)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT t.conversation_id, t.current_run_id INTO conversation, run
    FROM agent_state.graph_threads AS t
    WHERE t.runtime_agent_id = agent AND t.thread_id = thread
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        conversation := agent_state.open_conversation(agent, 'langgraph', thread, 'group');
        INSERT INTO agent_state.graph_threads (runtime_agent_id, thread_id, conversation_id)
        VALUES (agent, thread, conversation)
        ON CONFLICT ON CONSTRAINT graph_threads_pkey DO NOTHING;
        SELECT t.conversation_id, t.current_run_id INTO conversation, run
        FROM agent_state.graph_threads AS t
        WHERE t.runtime_agent_id = agent AND t.thread_id = thread
        FOR NO KEY UPDATE;
    END IF;
END
$$;
