-- What restore_agent did: one row per restore that wrote anything (the revisions
-- it wrote carry the same reason). Append-only; numbered per agent.
CREATE TABLE agent_state.agent_restores (
    runtime_agent_id uuid NOT NULL,
    restore_id integer NOT NULL,
    as_of timestamptz NOT NULL,
    reason text NOT NULL,
    changes integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT agent_restores_pkey PRIMARY KEY (runtime_agent_id, restore_id),
    CONSTRAINT agent_restores_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT agent_restores_reason_check CHECK (btrim(reason) <> '' AND length(reason) <= 10000),
    CONSTRAINT agent_restores_changes_check CHECK (changes >= 1)
);

COMMENT ON TABLE agent_state.agent_restores IS
'Append-only log of restore_agent calls that wrote revisions: the moment restored to, the '
'reason, how many changes.';

CREATE POLICY operator_writes_insert ON agent_state.agent_restores AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

-- Forks (fork_agent): where a fork came from. One row per fork, written in the
-- transaction that made it. The origin is a plain uuid, not a foreign key: the
-- fork references no row of the origin (SPEC section 13), and the lineage
-- (redact follows the data into origin, forks and their forks) is read from
-- these rows by the functions only.
CREATE TABLE agent_state.agent_forks (
    runtime_agent_id uuid NOT NULL,
    origin_agent_id uuid NOT NULL,
    as_of timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT agent_forks_pkey PRIMARY KEY (runtime_agent_id),
    CONSTRAINT agent_forks_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT agent_forks_origin_check CHECK (origin_agent_id <> runtime_agent_id)
);

-- The forks of an agent (redact's lineage walk).
CREATE INDEX agent_forks_origin_idx ON agent_state.agent_forks (origin_agent_id);

COMMENT ON TABLE agent_state.agent_forks IS
'Append-only: which agent each fork was copied from, as of which moment, when and by whom.';

CREATE POLICY operator_writes_insert ON agent_state.agent_forks AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
