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

CREATE POLICY operator_writes_insert ON agent_state.agent_hosts AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
CREATE POLICY operator_writes_update ON agent_state.agent_hosts AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));
CREATE POLICY operator_writes_delete ON agent_state.agent_hosts AS RESTRICTIVE
FOR DELETE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.persona_revisions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
CREATE POLICY operator_writes_update ON agent_state.persona_revisions AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.persona_activations AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
