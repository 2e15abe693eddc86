-- Writes a checked snapshot: the row with the prompt's sha256 and its memory and
-- message sources, each distinct source once, numbered by its first position.
-- The caller has bound the call, checked every source and locked the unfinished
-- run (the snapshot insert trigger, which would do the locking and hashing, skips
-- the extension's own writes). Shared by snapshot_prompt and record_turn.
CREATE FUNCTION agent_state._insert_snapshot(
    agent uuid,
    run uuid,
    prompt text,
    persona_revision integer,
    mem_entries uuid [],
    mem_revisions integer [],
    messages uuid [],
    n_memory integer,
    n_messages integer
)
RETURNS uuid
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    snap uuid;
BEGIN
    INSERT INTO agent_state.prompt_snapshots AS s (
        runtime_agent_id, run_id, prompt, prompt_sha256, persona_revision, memory_count, message_count
    )
    VALUES (agent, run, prompt, pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(prompt, 'UTF8')), 'hex'),
            persona_revision, n_memory, n_messages)
    RETURNING s.snapshot_id INTO snap;
    IF n_memory > 0 THEN
        INSERT INTO agent_state.snapshot_memory (runtime_agent_id, snapshot_id, entry_id, revision, ordinal)
        SELECT agent, snap, d.entry, d.rev, pg_catalog.row_number() OVER (ORDER BY d.first_ord)
        FROM (
            SELECT u.entry, u.rev, pg_catalog.min(u.ord) AS first_ord
            FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
                 WITH ORDINALITY AS u (entry, rev, ord)
            GROUP BY u.entry, u.rev
        ) AS d;
    END IF;
    IF n_messages > 0 THEN
        INSERT INTO agent_state.snapshot_messages (runtime_agent_id, snapshot_id, message_id, ordinal)
        SELECT agent, snap, d.id, pg_catalog.row_number() OVER (ORDER BY d.first_ord)
        FROM (
            SELECT u.id, pg_catalog.min(u.ord) AS first_ord
            FROM pg_catalog.unnest(messages) WITH ORDINALITY AS u (id, ord)
            GROUP BY u.id
        ) AS d;
    END IF;
    RETURN snap;
END
$$;
