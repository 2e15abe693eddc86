-- Is the entry redacted in this agent? It is once it has a redaction record
-- (memory_redactions), whatever its revisions say. For per-row checks (guards,
-- _check_entry_state, redact's loop): a subquery keeps PostgreSQL from inlining
-- it, so set-based queries write the EXISTS themselves. No SET clause: it runs
-- under its callers' pinned search_path and is granted to no one.
CREATE FUNCTION agent_state._redacted(agent uuid, entry uuid)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id OPERATOR(pg_catalog.=) _redacted.agent
          AND d.entry_id OPERATOR(pg_catalog.=) _redacted.entry
    )
$$;
