-- Persona: operator-authored identity text. Revisions are immutable (only the
-- activation flag may change); every activation is logged so the active revision
-- at any past moment can be answered.
CREATE TABLE agent_state.persona_revisions (
    runtime_agent_id uuid NOT NULL,
    revision integer NOT NULL,
    body text NOT NULL,
    is_active boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT persona_revisions_pkey PRIMARY KEY (runtime_agent_id, revision),
    CONSTRAINT persona_revisions_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT persona_revisions_revision_check CHECK (revision >= 1),
    CONSTRAINT persona_revisions_body_check CHECK (btrim(body) <> '' AND length(body) <= 100000)
);

-- At most one active revision per agent; the deferred trigger below adds "at least".
CREATE UNIQUE INDEX persona_revisions_one_active
ON agent_state.persona_revisions (runtime_agent_id) WHERE is_active;

COMMENT ON TABLE agent_state.persona_revisions IS
'Append-only persona revisions; exactly one active per agent once any exists.';

CREATE TABLE agent_state.persona_activations (
    runtime_agent_id uuid NOT NULL,
    activation_id bigint NOT NULL,
    revision integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT persona_activations_pkey PRIMARY KEY (runtime_agent_id, activation_id),
    CONSTRAINT persona_activations_revision_fkey FOREIGN KEY (runtime_agent_id, revision)
    REFERENCES agent_state.persona_revisions (runtime_agent_id, revision)
);

CREATE INDEX persona_activations_time_idx
ON agent_state.persona_activations (runtime_agent_id, created_at DESC, activation_id DESC);

COMMENT ON TABLE agent_state.persona_activations IS
'Activation log: which persona revision became active, when and by whom.';

CREATE POLICY operator_writes_insert ON agent_state.persona_revisions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.persona_revisions AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.persona_activations AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
