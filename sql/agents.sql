-- RuntimeAgents: one row per perspective. Every agent-owned row elsewhere carries
-- runtime_agent_id as the first column of its primary key.
CREATE TABLE agent_state.agents (
    runtime_agent_id uuid NOT NULL DEFAULT gen_random_uuid(),
    handle text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT agents_pkey PRIMARY KEY (runtime_agent_id),
    CONSTRAINT agents_handle_key UNIQUE (handle),
    CONSTRAINT agents_handle_check CHECK (btrim(handle) <> '' AND length(handle) <= 200)
);

COMMENT ON TABLE agent_state.agents IS
'RuntimeAgents (perspectives): the handle; the rest of the profile is versioned in '
'profile_revisions.';

-- The profile (display name and settings), versioned like the persona: nothing
-- about an agent is updated in place. The newest revision is current; create_agent
-- writes revision 1. Only valid settings are stored (_settings_problem), so
-- ranking reads them without checking.
CREATE TABLE agent_state.profile_revisions (
    runtime_agent_id uuid NOT NULL,
    revision integer NOT NULL,
    display_name text,
    settings jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT profile_revisions_pkey PRIMARY KEY (runtime_agent_id, revision),
    CONSTRAINT profile_revisions_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT profile_revisions_revision_check CHECK (revision >= 1),
    CONSTRAINT profile_revisions_display_name_check CHECK (
        display_name IS NULL OR (btrim(display_name) <> '' AND length(display_name) <= 1000)
    ),
    CONSTRAINT profile_revisions_settings_check CHECK (agent_state._settings_problem(settings) IS NULL)
);

COMMENT ON TABLE agent_state.profile_revisions IS
'Append-only profile revisions (display_name, settings: subject_boost, recency_half_life); '
'the newest is current.';

-- Hosting: which runtime roles may act for which agent. A role acts for an agent
-- while it, or a role it is a member of, holds a row here. host is a regrole so
-- that pg_dump writes the role's name and a restore into another cluster finds
-- the role by name (and fails loudly when it does not exist); host_name must
-- still be the role's name for the row to grant anything (_holds_hosting).
CREATE TABLE agent_state.agent_hosts (
    runtime_agent_id uuid NOT NULL,
    host regrole NOT NULL,
    host_name name NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT agent_hosts_pkey PRIMARY KEY (runtime_agent_id, host),
    CONSTRAINT agent_hosts_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id)
);

CREATE INDEX agent_hosts_host_idx ON agent_state.agent_hosts (host);

COMMENT ON TABLE agent_state.agent_hosts IS
'Hosting grants: runtime roles that may act for an agent.';

-- Tables only operators write: a runtime role granted table privileges directly
-- still cannot change agents, hosting or persona unless it is also an operator.
-- (Roles outside both groups cannot evaluate agent_scope at all, and the owner,
-- which runs the functions, is in neither group.)
CREATE POLICY operator_writes_insert ON agent_state.agents AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.agents AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_delete ON agent_state.agents AS RESTRICTIVE
FOR DELETE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.profile_revisions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.agent_hosts AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.agent_hosts AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_delete ON agent_state.agent_hosts AS RESTRICTIVE
FOR DELETE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

-- Moves between shards (SPEC section 15, the router's move_agent through
-- move_step): 'out' while the agent is being moved out of this database, 'in'
-- while a copy moved in is not live yet, 'gone' once the agent lives on the
-- peer shard and the copy here is retired. A call for an agent in 'out' or
-- 'in' fails with 55006 (retry); a retired copy answers as an unknown agent
-- (_bind). Not agent state: no runtime_agent_id column, so it is never
-- exported, and the retired copy's rows stay as history (append-only).
CREATE TABLE agent_state.agent_moves (
    agent uuid NOT NULL,
    state text NOT NULL,
    peer text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT agent_moves_pkey PRIMARY KEY (agent),
    CONSTRAINT agent_moves_agent_fkey FOREIGN KEY (agent)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT agent_moves_state_check CHECK (state IN ('out', 'in', 'gone')),
    CONSTRAINT agent_moves_peer_check CHECK (btrim(peer) <> '' AND length(peer) <= 200)
);

COMMENT ON TABLE agent_state.agent_moves IS
'Agents being moved between shards (out, in) or moved away (gone); written by move_step only.';
