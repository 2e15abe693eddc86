CREATE FUNCTION agent_state.graph_put_writes(
    agent uuid,
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    task_id text,
    task_path text,
    idxs integer [],
    channels text [],
    value_types text [],
    writes_values bytea []
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_graph_checkpoint(thread_id, checkpoint_ns, checkpoint_id);
    PERFORM agent_state._need_text_bytes(task_id, 'task_id', 400);
    -- Optional (null is stored as ''), at most as long as a task id.
    IF pg_catalog.octet_length(task_path) > 4000 OR pg_catalog.length(task_path) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'task_path: longer than 1000 characters';
    END IF;
    -- One test on the hot path; _need names the first null array.
    IF idxs IS NULL OR channels IS NULL OR value_types IS NULL OR writes_values IS NULL THEN
        PERFORM agent_state._need(idxs, 'idxs');
        PERFORM agent_state._need(channels, 'channels');
        PERFORM agent_state._need(value_types, 'value_types');
        PERFORM agent_state._need(writes_values, 'writes_values');
    END IF;
    IF NOT (pg_catalog.cardinality(idxs) = pg_catalog.cardinality(channels)
            AND pg_catalog.cardinality(idxs) = pg_catalog.cardinality(value_types)
            AND pg_catalog.cardinality(idxs) = pg_catalog.cardinality(writes_values)) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'idxs: the write arrays must have one length';
    END IF;
    IF EXISTS (
        SELECT FROM ROWS FROM (pg_catalog.unnest(channels), pg_catalog.unnest(value_types)) AS u (c, t)
        WHERE u.c IS NULL OR u.t IS NULL OR pg_catalog.length(u.c) > 1000 OR pg_catalog.length(u.t) > 1000
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'channels, value_types: every channel and value type is 1 to 1000 characters';
    END IF;
    -- Writes may reach the database before their checkpoint (LangGraph saves
    -- checkpoints in the background): they belong to the thread, not to a stored
    -- checkpoint. The thread is created on first use; an existing one is not
    -- locked (threads are never deleted, and the foreign key's check holds it):
    -- the tasks of one step store their writes side by side.
    IF NOT EXISTS (
        SELECT FROM agent_state.graph_threads AS t
        WHERE t.runtime_agent_id = agent AND t.thread_id = thread_id
    ) THEN
        PERFORM agent_state._graph_thread(agent, thread_id);
    END IF;
    -- A write already stored is kept (LangGraph retries), except a special write
    -- (idx < 0), which the next one replaces.
    INSERT INTO agent_state.graph_writes AS w
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value_type,
         value, task_path)
    SELECT agent, thread_id, checkpoint_ns, checkpoint_id, task_id, u.idx, u.channel, u.value_type,
           u.value, coalesce(task_path, '')
    FROM ROWS FROM (pg_catalog.unnest(idxs), pg_catalog.unnest(channels), pg_catalog.unnest(value_types),
                    pg_catalog.unnest(writes_values)) AS u (idx, channel, value_type, value)
    ON CONFLICT ON CONSTRAINT graph_writes_pkey DO UPDATE
    SET value_type = excluded.value_type, value = excluded.value, task_path = excluded.task_path
    WHERE w.idx < 0;
END
$$;

COMMENT ON FUNCTION agent_state.graph_put_writes(uuid, text, text, text, text, text, integer [], text [], text [], bytea []) IS
'graph_put_writes(agent, thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idxs, '
'channels, value_types, writes_values) (for the LangGraph checkpointer): stores a task''s '
'pending writes of a checkpoint of the thread (which may be stored after them); a write stored '
'again is kept, except special writes (idx < 0), which are replaced.';
