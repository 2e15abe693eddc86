-- Did the current transaction write the redaction row of this entry? The only
-- authority for rewriting the text of its revisions and prompt snapshots.
CREATE FUNCTION agent_state._redaction_allowed(agent uuid, entry uuid)
RETURNS boolean
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
          AND d.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
    )
$$;
