-- Did the current transaction write the redaction row of this entry? The only
-- authority for rewriting the text of its revisions and prompt snapshots. A row
-- restored from a dump keeps the transaction id it was written with in its old
-- cluster, which a transaction here may reach; it was also created before this
-- transaction began, which a row of this transaction never is.
CREATE FUNCTION agent_state._redaction_allowed(agent uuid, entry uuid)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
          AND d.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
          AND d.created_at >= pg_catalog.transaction_timestamp()
    )
$$;
