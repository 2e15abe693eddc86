-- LangGraph checkpoints (agent_state.integrations.langgraph): a graph's threads,
-- checkpoints and pending writes, owned by one agent like every other row.
--
-- A thread is a conversation of the agent (connector 'langgraph', external_ref the
-- thread id). Each LangGraph run (the run_id of a checkpoint's metadata) is a run of
-- agent_state continuing the thread's previous one, so a thread's budget carries
-- over; every stored checkpoint is also a checkpoint of that run, whose frontier
-- names it, so recover_run returns the resume point. Payloads (the serialized
-- checkpoint and writes) are append-only, except that an interrupt, error or
-- other special write (negative idx) is replaced by the next one, as LangGraph
-- expects; they are removed only by a purge (delete_thread, delete_for_runs,
-- prune), which first writes an append-only purge record (who, when, why, what)
-- that authorises the deletes in its own transaction. The run ledger (runs,
-- checkpoints) never loses a row.
CREATE TABLE agent_state.graph_threads (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    conversation_id uuid NOT NULL,
    current_run_id uuid,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_threads_pkey PRIMARY KEY (runtime_agent_id, thread_id),
    CONSTRAINT graph_threads_conversation_fkey FOREIGN KEY (runtime_agent_id, conversation_id)
    REFERENCES agent_state.conversations (runtime_agent_id, conversation_id),
    CONSTRAINT graph_threads_run_fkey FOREIGN KEY (runtime_agent_id, current_run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT graph_threads_thread_check CHECK (thread_id <> '' AND length(thread_id) <= 1000)
);

COMMENT ON TABLE agent_state.graph_threads IS
'LangGraph threads: the conversation each is, and the run its latest checkpoint belongs to.';

-- LangGraph run ids (strings) and the agent_state runs they became.
CREATE TABLE agent_state.graph_runs (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    graph_run_id text NOT NULL,
    run_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_runs_pkey PRIMARY KEY (runtime_agent_id, thread_id, graph_run_id),
    CONSTRAINT graph_runs_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    CONSTRAINT graph_runs_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id)
);

COMMENT ON TABLE agent_state.graph_runs IS
'LangGraph run ids of a thread and the agent_state run each became.';

-- Checkpoint ids are ordered by their bytes (LangGraph's ids are time-ordered
-- strings; a linguistic collation ignores their dashes): COLLATE "C", so that
-- the primary key reads a thread's latest checkpoints in order.
CREATE TABLE agent_state.graph_checkpoints (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    checkpoint_ns text NOT NULL,
    checkpoint_id text COLLATE "C" NOT NULL,
    parent_checkpoint_id text COLLATE "C",
    run_id uuid NOT NULL,
    graph_run_id text,
    payload_type text NOT NULL,
    payload bytea NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_checkpoints_pkey PRIMARY KEY (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id),
    CONSTRAINT graph_checkpoints_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    CONSTRAINT graph_checkpoints_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT graph_checkpoints_metadata_check CHECK (jsonb_typeof(metadata) = 'object'),
    CONSTRAINT graph_checkpoints_id_check CHECK (checkpoint_id <> '' AND length(checkpoint_id) <= 200),
    CONSTRAINT graph_checkpoints_ns_check CHECK (length(checkpoint_ns) <= 1000)
);

-- list(): a thread's checkpoints newest first (checkpoint ids sort by time).
CREATE INDEX graph_checkpoints_run_idx
ON agent_state.graph_checkpoints (runtime_agent_id, graph_run_id);

COMMENT ON TABLE agent_state.graph_checkpoints IS
'LangGraph checkpoints (serialized), with their metadata as JSON for list filters.';

CREATE TABLE agent_state.graph_writes (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    checkpoint_ns text NOT NULL,
    checkpoint_id text COLLATE "C" NOT NULL,
    task_id text NOT NULL,
    idx integer NOT NULL,
    channel text NOT NULL,
    value_type text NOT NULL,
    value bytea NOT NULL,
    task_path text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_writes_pkey PRIMARY KEY (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, task_id, idx),
    -- The thread, not the checkpoint: LangGraph may store writes before it stores
    -- their checkpoint (it saves checkpoints in the background).
    CONSTRAINT graph_writes_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    -- The limits of graph_checkpoints, and of the other keys the saver passes.
    CONSTRAINT graph_writes_id_check CHECK (checkpoint_id <> '' AND length(checkpoint_id) <= 200),
    CONSTRAINT graph_writes_ns_check CHECK (length(checkpoint_ns) <= 1000),
    CONSTRAINT graph_writes_task_check CHECK (task_id <> '' AND length(task_id) <= 1000),
    CONSTRAINT graph_writes_channel_check CHECK (length(channel) <= 1000 AND length(value_type) <= 1000)
);

COMMENT ON TABLE agent_state.graph_writes IS
'Pending writes of LangGraph checkpoints (serialized); special writes (idx < 0) are replaced.';

CREATE TABLE agent_state.graph_purges (
    runtime_agent_id uuid NOT NULL,
    purge_id bigint NOT NULL,
    thread_id text NOT NULL,
    reason text NOT NULL,
    removed jsonb NOT NULL,
    -- The (top-level) transaction that purged: only it may delete the payloads.
    purge_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_purges_pkey PRIMARY KEY (runtime_agent_id, purge_id),
    CONSTRAINT graph_purges_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    CONSTRAINT graph_purges_reason_check CHECK (btrim(reason) <> '' AND length(reason) <= 10000),
    CONSTRAINT graph_purges_removed_check CHECK (jsonb_typeof(removed) = 'object')
);

CREATE INDEX graph_purges_thread_idx ON agent_state.graph_purges (runtime_agent_id, thread_id);

COMMENT ON TABLE agent_state.graph_purges IS
'Audited removals of LangGraph checkpoint payloads: who, when, why and which checkpoints.';

-- LangGraph store items (AgentStateStore): each (namespace, key) of an agent is a
-- memory entry, so it has revisions, provenance and eligibility; its JSON value is
-- kept per revision. A put of an existing live key amends the entry, a delete
-- forgets it, and a put after a delete makes a new entry (the key then names it).
CREATE TABLE agent_state.graph_items (
    runtime_agent_id uuid NOT NULL,
    namespace text [] NOT NULL,
    key text NOT NULL,
    entry_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_items_pkey PRIMARY KEY (runtime_agent_id, namespace, key),
    CONSTRAINT graph_items_entry_key UNIQUE (runtime_agent_id, entry_id),
    CONSTRAINT graph_items_entry_fkey FOREIGN KEY (runtime_agent_id, entry_id)
    REFERENCES agent_state.memory_entries (runtime_agent_id, entry_id),
    -- (Not BETWEEN: PostgreSQL prints it back as a nested AND, and a restored
    -- plain install would differ from a fresh one.)
    CONSTRAINT graph_items_namespace_check CHECK (
        cardinality(namespace) >= 1 AND cardinality(namespace) <= 100
        AND array_position(namespace, NULL) IS NULL
    ),
    CONSTRAINT graph_items_key_check CHECK (length(key) <= 1000)
);

COMMENT ON TABLE agent_state.graph_items IS
'LangGraph store items: the memory entry each (namespace, key) names.';

CREATE TABLE agent_state.graph_item_values (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    value jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_item_values_pkey PRIMARY KEY (runtime_agent_id, entry_id, revision),
    CONSTRAINT graph_item_values_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision),
    CONSTRAINT graph_item_values_value_check CHECK (jsonb_typeof(value) = 'object')
);

COMMENT ON TABLE agent_state.graph_item_values IS
'The JSON value of a LangGraph store item at each revision of its memory entry.';
