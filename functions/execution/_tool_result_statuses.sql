-- A tool result's statuses (SPEC section 7), written once: record_tool_result and record_turn read them here, and
-- tests/pgtap/000_catalog.sql checks that the table's CHECK (sql/execution.sql)
-- names the same. An inlinable constant (a SQL function with no SET clause).
CREATE FUNCTION agent_state._tool_result_statuses()
RETURNS text []
LANGUAGE sql IMMUTABLE
AS $$
    SELECT ARRAY['ok', 'error', 'unconfirmed']::pg_catalog.text []
$$;
