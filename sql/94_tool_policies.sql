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
