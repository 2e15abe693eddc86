-- Erases one entry of one agent (redact, for the entry and each copy of it in
-- the agent's lineage): the redaction record first, which authorises the
-- rewrites below (_redaction_allowed) in this transaction only, then every
-- revision's text, the entry, its embeddings and LangGraph item values, and the
-- prompt snapshots that used it. The caller has locked the entry and checked it
-- is not redacted yet. Not granted to anyone.
CREATE FUNCTION agent_state._redact_entry(agent uuid, entry uuid, reason text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    removed text [];
    snapshot_hashes text [];
BEGIN
    -- The sha256 of each distinct text removed, oldest revision first.
    SELECT coalesce(pg_catalog.array_agg(h.sha ORDER BY h.first_rev), '{}') INTO removed
    FROM (
        SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(r.body, 'UTF8')), 'hex') AS sha,
               pg_catalog.min(r.revision) AS first_rev
        FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry
        GROUP BY 1
    ) AS h;

    -- Its completeness check runs at commit even when the caller set constraints
    -- immediate.
    SET CONSTRAINTS agent_state.memory_redactions_complete_check DEFERRED;
    INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
    VALUES (agent, entry, reason, removed);

    UPDATE agent_state.memory_revisions AS r
    SET body = '[redacted]'
    WHERE r.runtime_agent_id = agent AND r.entry_id = entry;

    UPDATE agent_state.memory_entries AS e
    SET body = '[redacted]', live = false
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;

    -- Embeddings and LangGraph item values are derived from the removed text.
    DELETE FROM agent_state.memory_embeddings AS x
    WHERE x.runtime_agent_id = agent AND x.entry_id = entry;
    DELETE FROM agent_state.graph_item_values AS x
    WHERE x.runtime_agent_id = agent AND x.entry_id = entry;

    snapshot_hashes := agent_state._redact_snapshots(agent, entry);
    IF pg_catalog.cardinality(snapshot_hashes) > 0 THEN
        UPDATE agent_state.memory_redactions AS d
        SET removed_sha256 = d.removed_sha256 || snapshot_hashes
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry;
    END IF;
END
$$;
