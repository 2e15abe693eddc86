-- Actors and their connector identities, inside one perspective: the same human
-- seen by two agents is two actors.
CREATE TABLE agent_state.actors (
    runtime_agent_id uuid NOT NULL,
    actor_id uuid NOT NULL DEFAULT gen_random_uuid(),
    kind text NOT NULL DEFAULT 'human',
    display_name text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT actors_pkey PRIMARY KEY (runtime_agent_id, actor_id),
    CONSTRAINT actors_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT actors_kind_check CHECK (kind IN ('human', 'agent', 'bot', 'system'))
);

COMMENT ON TABLE agent_state.actors IS
'Actors as one perspective knows them.';

CREATE TABLE agent_state.actor_identities (
    runtime_agent_id uuid NOT NULL,
    connector text NOT NULL,
    external_id text NOT NULL,
    actor_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT actor_identities_pkey PRIMARY KEY (runtime_agent_id, connector, external_id),
    CONSTRAINT actor_identities_actor_fkey FOREIGN KEY (runtime_agent_id, actor_id)
    REFERENCES agent_state.actors (runtime_agent_id, actor_id),
    CONSTRAINT actor_identities_connector_check CHECK (btrim(connector) <> ''),
    CONSTRAINT actor_identities_external_id_check CHECK (external_id <> '')
);

CREATE INDEX actor_identities_actor_idx
ON agent_state.actor_identities (runtime_agent_id, actor_id);

COMMENT ON TABLE agent_state.actor_identities IS
'Connector identities (Slack, GitHub, ...) linked to an actor of the same perspective.';
