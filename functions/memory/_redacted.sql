-- Is the entry redacted in this agent? It is once it has a redaction record
-- (memory_redactions), whatever its revisions say. A SQL function with no SET
-- clause, so that it is inlined into its callers (SECURITY DEFINER functions and
-- triggers with a pinned search_path) as the EXISTS it stands for.
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
