-- Memory rows only operators write, for runtime roles granted table privileges
-- directly (clients normally go through the functions): sharing grants,
-- redactions, imports, the redaction rewrite of revisions, and revisions or entries
-- that claim operator or import provenance. A runtime may write agent-sourced
-- memory of the agents it hosts; the guards in sql/41_memory_guards.sql still
-- check everything it claims.
CREATE POLICY operator_writes_insert ON agent_state.memory_shares AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
CREATE POLICY operator_writes_update ON agent_state.memory_shares AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));
CREATE POLICY operator_writes_delete ON agent_state.memory_shares AS RESTRICTIVE
FOR DELETE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.memory_redactions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
CREATE POLICY operator_writes_update ON agent_state.memory_redactions AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.memory_imports AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.memory_revisions AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));
CREATE POLICY agent_source_insert ON agent_state.memory_revisions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime
WITH CHECK (source_type = 'agent' OR (SELECT agent_state._caller_is_operator()));

CREATE POLICY agent_source_insert ON agent_state.memory_entries AS RESTRICTIVE
FOR INSERT TO agent_state_runtime
WITH CHECK (source_type = 'agent' OR (SELECT agent_state._caller_is_operator()));
CREATE POLICY agent_source_update ON agent_state.memory_entries AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime
USING (true)
WITH CHECK (source_type = 'agent' OR (SELECT agent_state._caller_is_operator()));
