-- LangGraph checkpointer: store one checkpoint of a thread (see sql/graph.sql).
-- The thread becomes a conversation on first use; a new LangGraph run id becomes
-- a run continuing the thread's latest one (so its budget carries over), and the
-- checkpoint is recorded as that run's frontier, for recover_run.
CREATE FUNCTION agent_state.graph_put(
    agent uuid,
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    parent_checkpoint_id text,
    payload_type text,
    payload bytea,
    metadata jsonb
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    graph_run text;
    conv uuid;
    cur uuid;
    run uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(metadata, 'metadata');
    PERFORM agent_state._need_graph_checkpoint(thread_id, checkpoint_ns, checkpoint_id);
    -- Optional (a thread's first checkpoint has none), else a checkpoint id.
    IF pg_catalog.octet_length(parent_checkpoint_id) > 200 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'parent_checkpoint_id: longer than 200 bytes';
    END IF;
    PERFORM agent_state._need_text(payload_type, 'payload_type', 200);
    PERFORM agent_state._need(payload, 'payload');
    PERFORM agent_state._need_json(metadata, 'metadata', ARRAY['object']);
    graph_run := metadata ->> 'run_id';
    IF pg_catalog.octet_length(graph_run) > 200 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'metadata.run_id: longer than 200 bytes';
    END IF;

    SELECT t.conversation, t.run INTO conv, cur FROM agent_state._graph_thread(agent, thread_id) AS t;

    IF graph_run IS NOT NULL THEN
        SELECT r.run_id INTO run
        FROM agent_state.graph_runs AS r
        WHERE r.runtime_agent_id = agent AND r.thread_id = thread_id AND r.graph_run_id = graph_run;
    ELSE
        run := cur;
    END IF;
    IF run IS NULL THEN
        IF cur IS NULL THEN
            run := agent_state.start_run(agent, conv);
        ELSE
            run := agent_state.continue_run(agent, cur,
                pg_catalog.jsonb_build_object('thread_id', thread_id, 'graph_run_id', graph_run));
        END IF;
        UPDATE agent_state.graph_threads AS t SET current_run_id = run
        WHERE t.runtime_agent_id = agent AND t.thread_id = thread_id;
        IF graph_run IS NOT NULL THEN
            INSERT INTO agent_state.graph_runs (runtime_agent_id, thread_id, graph_run_id, run_id)
            VALUES (agent, thread_id, graph_run, run);
        END IF;
        cur := run;
    END IF;

    INSERT INTO agent_state.graph_checkpoints AS c
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, run_id,
         graph_run_id, payload_type, payload, metadata)
    VALUES (agent, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, run, graph_run,
            payload_type, payload, metadata)
    ON CONFLICT ON CONSTRAINT graph_checkpoints_pkey DO NOTHING;
    -- The run ledger's frontier: where to resume. (A checkpoint of an earlier
    -- LangGraph run of the thread, whose run was handed off, is stored only.)
    -- What checkpoint() does, less what this call checked already (the binding,
    -- the run being the agent's, the frontier's shape): lock the run, refuse a
    -- finished one (55000), append the next number.
    IF FOUND AND run = cur THEN
        PERFORM agent_state._run_writable(agent, run);
        PERFORM agent_state._append_checkpoint(agent, run, pg_catalog.jsonb_build_object(
            'thread_id', thread_id, 'checkpoint_ns', checkpoint_ns, 'checkpoint_id', checkpoint_id));
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.graph_put(uuid, text, text, text, text, text, bytea, jsonb) IS
'graph_put(agent, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, payload_type, '
'payload, metadata) (for the LangGraph checkpointer): stores a serialized checkpoint. The thread '
'is a conversation (connector langgraph); metadata.run_id names the LangGraph run, which becomes a '
'run continuing the thread''s latest one; the checkpoint is recorded as that run''s frontier '
'(recover_run). Storing an id again is a no-op.';
