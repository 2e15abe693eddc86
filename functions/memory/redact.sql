-- Erasure: the one audited exception to append-only memory history.
CREATE FUNCTION agent_state.redact(agent uuid, entry uuid, reason text)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    removed text [];
    snapshot_hashes text [];
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    PERFORM FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
    END IF;
    IF EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('entry: memory entry %s is already redacted', entry);
    END IF;

    -- The sha256 of each distinct text removed, oldest revision first.
    SELECT coalesce(pg_catalog.array_agg(h.sha ORDER BY h.first_rev), '{}') INTO removed
    FROM (
        SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(r.body, 'UTF8')), 'hex') AS sha,
               pg_catalog.min(r.revision) AS first_rev
        FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry
        GROUP BY 1
    ) AS h;

    -- The redaction row comes first: it is what authorises the rewrites below
    -- (_redaction_allowed), in this transaction only. Its completeness check runs
    -- at commit even when the caller set constraints immediate.
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

COMMENT ON FUNCTION agent_state.redact(uuid, uuid, text) IS
'redact(agent, entry, reason) (operator): erasure. Retires the entry and replaces the body of '
'every revision of it, and the prompt of every snapshot that used one of them, with '
'''[redacted]'', and erases their embeddings and LangGraph item values; keeps the operation log, subjects and provenance, and records who, when, why '
'and the sha256 of each text removed (memory_redactions). reason required (22004/22023). '
'Forgotten entries can be redacted; redacting twice: 55000. Unknown entry: P0002 (23503 if '
'another perspective''s).';
