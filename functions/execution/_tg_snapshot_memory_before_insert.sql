-- A source row takes a numbered slot of its snapshot, and a new snapshot cannot
-- use a revision of a redacted entry: every snapshot that used one has its prompt
-- erased, and one written later would bring the erased text back (55000, like
-- any write to retired state). Deliberately not SECURITY DEFINER: it reads as the
-- role running the INSERT, under that role's privileges and row-level security,
-- so it reveals nothing about agents that role may not act for (inside our
-- functions that role is the owner).
CREATE FUNCTION agent_state._tg_snapshot_memory_before_insert()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    slots integer;
BEGIN
    SELECT s.memory_count INTO slots
    FROM agent_state.prompt_snapshots AS s
    WHERE s.runtime_agent_id = NEW.runtime_agent_id AND s.snapshot_id = NEW.snapshot_id;
    IF NEW.ordinal > slots THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('snapshot_memory: snapshot %s has %s memory sources; its sources are fixed',
                                        NEW.snapshot_id, slots);
    END IF;
    IF EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = NEW.runtime_agent_id AND d.entry_id = NEW.entry_id
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('snapshot_memory: memory entry %s is redacted', NEW.entry_id);
    END IF;
    RETURN NEW;
END
$$;
