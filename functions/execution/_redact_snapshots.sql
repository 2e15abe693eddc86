-- Erasure of prompt snapshots, called by redact.

-- Replaces the prompt of every snapshot of the agent that used any revision of the
-- entry with '[redacted]' (the sha256 of the original stays in prompt_sha256 and
-- redacted_at/redacted_by are stamped) and returns the sha256 of each prompt it
-- removed, oldest snapshot first ('{}' when none). Snapshots redacted before (for
-- another entry) are left alone. The caller inserts the memory_redactions row for
-- (agent, entry) first, in the same transaction: the snapshot immutability trigger
-- allows this update only for snapshots that reference an entry redacted in the
-- current transaction, and only when it runs as the owner of the tables (inside a
-- SECURITY DEFINER function).
-- Internal: no binding or argument checks here; redact does them.
CREATE FUNCTION agent_state._redact_snapshots(agent uuid, entry uuid)
RETURNS text []
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    removed text [];
BEGIN
    WITH blanked AS (
        UPDATE agent_state.prompt_snapshots AS s
        SET prompt = '[redacted]'
        WHERE s.runtime_agent_id = agent
          AND s.redacted_at IS NULL
          AND EXISTS (
              SELECT FROM agent_state.snapshot_memory AS m
              WHERE m.runtime_agent_id = agent AND m.entry_id = entry
                AND m.snapshot_id = s.snapshot_id
          )
        RETURNING s.prompt_sha256, s.created_at, s.snapshot_id
    )
    SELECT coalesce(pg_catalog.array_agg(b.prompt_sha256 ORDER BY b.created_at, b.snapshot_id), '{}')
    INTO removed
    FROM blanked AS b;
    RETURN removed;
END
$$;
