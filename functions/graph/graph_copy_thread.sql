CREATE FUNCTION agent_state.graph_copy_thread(agent uuid, source_thread_id text, target_thread_id text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    conv uuid;
    run uuid;
    n integer;
    latest record;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_text_bytes(source_thread_id, 'source_thread_id', 1000);
    PERFORM agent_state._need_text_bytes(target_thread_id, 'target_thread_id', 1000);
    IF NOT EXISTS (
        SELECT FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.thread_id = source_thread_id
    ) THEN
        RETURN 0;
    END IF;
    -- The target is a thread (conversation) of its own, with a run of its own.
    SELECT t.conversation, t.run INTO conv, run FROM agent_state._graph_thread(agent, target_thread_id) AS t;
    IF run IS NULL THEN
        run := agent_state.start_run(agent, conv);
        UPDATE agent_state.graph_threads AS t SET current_run_id = run
        WHERE t.runtime_agent_id = agent AND t.thread_id = target_thread_id;
    END IF;
    INSERT INTO agent_state.graph_checkpoints
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, run_id,
         graph_run_id, payload_type, payload, metadata)
    SELECT agent, target_thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, run,
           c.graph_run_id, c.payload_type, c.payload, c.metadata
    FROM agent_state.graph_checkpoints AS c
    WHERE c.runtime_agent_id = agent AND c.thread_id = source_thread_id
    ON CONFLICT ON CONSTRAINT graph_checkpoints_pkey DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    INSERT INTO agent_state.graph_writes
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value_type,
         value, task_path)
    SELECT agent, target_thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel,
           w.value_type, w.value, w.task_path
    FROM agent_state.graph_writes AS w
    WHERE w.runtime_agent_id = agent AND w.thread_id = source_thread_id
    ON CONFLICT ON CONSTRAINT graph_writes_pkey DO NOTHING;
    -- The target run resumes from the newest copied checkpoint. A copy that
    -- copied nothing new leaves the run's history as it was (like graph_put of a
    -- checkpoint stored already).
    IF n = 0 THEN
        RETURN 0;
    END IF;
    SELECT c.checkpoint_ns, c.checkpoint_id INTO latest
    FROM agent_state.graph_checkpoints AS c
    WHERE c.runtime_agent_id = agent AND c.thread_id = target_thread_id AND c.checkpoint_ns = ''
    ORDER BY c.checkpoint_id DESC
    LIMIT 1;
    IF FOUND THEN
        PERFORM agent_state.checkpoint(agent, run, pg_catalog.jsonb_build_object(
            'thread_id', target_thread_id, 'checkpoint_ns', latest.checkpoint_ns,
            'checkpoint_id', latest.checkpoint_id));
    END IF;
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.graph_copy_thread(uuid, text, text) IS
'graph_copy_thread(agent, source_thread_id, target_thread_id) -> int (for the LangGraph '
'checkpointer): copies every checkpoint and write of a thread to another thread of the same '
'agent (a conversation and a run of its own, resuming from the newest copied checkpoint). A '
'source without checkpoints: 0.';
