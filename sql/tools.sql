-- Tool grants.
--
-- tools: the deployment-wide tool contract (not agent state): the current version
-- and JSON Schema of each registered tool. Registering a new version replaces the
-- contract; every registration is kept in tool_versions (append-only), numbered per
-- tool. tools.revision names the registration that is current (checked at commit,
-- so the two tables cannot disagree about which one exists).
--
-- tool_grants: per agent and tool, append-only grant revisions numbered 1, 2, ...
-- The current grant is the highest revision. Each grant records the contract it
-- was validated against (tool_version and tool_revision).
CREATE TABLE agent_state.tools (
    tool_name text NOT NULL,
    version text NOT NULL,
    config_schema jsonb NOT NULL,
    revision integer NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT tools_pkey PRIMARY KEY (tool_name),
    CONSTRAINT tools_name_check CHECK (
        btrim(tool_name) <> '' AND length(tool_name) <= 200 AND tool_name !~ '[[:cntrl:]]'
    ),
    CONSTRAINT tools_version_check CHECK (btrim(version) <> '' AND length(version) <= 200),
    CONSTRAINT tools_config_schema_check CHECK (jsonb_typeof(config_schema) = 'object'),
    CONSTRAINT tools_revision_check CHECK (revision >= 1)
);

COMMENT ON TABLE agent_state.tools IS
'Registered tools: the current contract (version, config JSON Schema) of each tool.';

CREATE TABLE agent_state.tool_versions (
    tool_name text NOT NULL,
    revision integer NOT NULL,
    version text NOT NULL,
    config_schema jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT tool_versions_pkey PRIMARY KEY (tool_name, revision),
    CONSTRAINT tool_versions_tool_fkey FOREIGN KEY (tool_name)
    REFERENCES agent_state.tools (tool_name),
    CONSTRAINT tool_versions_revision_check CHECK (revision >= 1),
    CONSTRAINT tool_versions_version_check CHECK (btrim(version) <> '' AND length(version) <= 200),
    CONSTRAINT tool_versions_config_schema_check CHECK (jsonb_typeof(config_schema) = 'object')
);

COMMENT ON TABLE agent_state.tool_versions IS
'Append-only history of tool registrations (each version and config schema a tool had).';

CREATE TABLE agent_state.tool_grants (
    runtime_agent_id uuid NOT NULL,
    tool_name text NOT NULL,
    revision integer NOT NULL,
    enabled boolean NOT NULL,
    config jsonb NOT NULL,
    tool_version text NOT NULL,
    tool_revision integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT tool_grants_pkey PRIMARY KEY (runtime_agent_id, tool_name, revision),
    CONSTRAINT tool_grants_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT tool_grants_tool_fkey FOREIGN KEY (tool_name)
    REFERENCES agent_state.tools (tool_name),
    CONSTRAINT tool_grants_contract_fkey FOREIGN KEY (tool_name, tool_revision)
    REFERENCES agent_state.tool_versions (tool_name, revision),
    CONSTRAINT tool_grants_revision_check CHECK (revision >= 1)
);

COMMENT ON TABLE agent_state.tool_grants IS
'Append-only tool grant revisions per agent and tool; the current grant is the highest revision.';

-- Tool grants are written only by operators: a runtime role granted table
-- privileges directly still cannot give its agent a tool, or change or remove a
-- grant (the append-only triggers refuse UPDATE and DELETE for every role as well).
-- tools and tool_versions carry no agent_scope policy, so roles other than the
-- owner see and write none of their rows whatever privileges they are granted.
CREATE POLICY operator_writes_insert ON agent_state.tool_grants AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.tool_grants AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_delete ON agent_state.tool_grants AS RESTRICTIVE
FOR DELETE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));
