-- Execution state constraints that need tables loaded after the execution tables.
--
-- A tool call records the grant revision it ran under: a composite foreign key
-- into the same agent's grants of the same tool (the tool tables load after the
-- run ledger, so the key is added here).
ALTER TABLE agent_state.tool_calls
ADD CONSTRAINT tool_calls_grant_fkey FOREIGN KEY (runtime_agent_id, tool_name, grant_revision)
REFERENCES agent_state.tool_grants (runtime_agent_id, tool_name, revision);
