-- Snapshots never change, except erasure: a snapshot that used a revision of an
-- entry whose memory_redactions row was written in the current transaction
-- (_redaction_allowed) may have its prompt replaced by '[redacted]', once, by the
-- owner of the schema's tables (that is, inside the SECURITY DEFINER redact
-- function; clients never run as the owner). Everything else, including the
-- sha256 of the original, stays. Deliberately not SECURITY DEFINER: current_user
-- must be the role running the UPDATE.
CREATE FUNCTION agent_state._tg_snapshot_before_update()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF OLD.redacted_at IS NULL
        AND NEW.prompt = '[redacted]'
        AND (pg_catalog.to_jsonb(NEW) - ARRAY['prompt', 'redacted_at', 'redacted_by'])
        = (pg_catalog.to_jsonb(OLD) - ARRAY['prompt', 'redacted_at', 'redacted_by'])
        AND EXISTS (
            SELECT FROM pg_catalog.pg_class AS c
            WHERE c.oid = TG_RELID
              AND c.relowner = (SELECT u.oid FROM pg_catalog.pg_roles AS u WHERE u.rolname = current_user)
        ) THEN
        IF EXISTS (
            SELECT FROM agent_state.snapshot_memory AS m
            WHERE m.runtime_agent_id = OLD.runtime_agent_id AND m.snapshot_id = OLD.snapshot_id
              AND agent_state._redaction_allowed(m.runtime_agent_id, m.entry_id)
        ) THEN
            NEW.redacted_at := pg_catalog.clock_timestamp();
            NEW.redacted_by := agent_state._caller();
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = 'prompt_snapshots: update is append-only; history is never rewritten',
        HINT = 'Only redact may blank the prompt of a snapshot that used a redacted memory entry.';
END
$$;
