-- Prompt snapshots: the audit record of exactly what an agent knew for one model
-- call, the assembled prompt (with its sha256) and every source row used. Sources
-- are composite foreign keys into the same perspective (persona revision, memory
-- revisions, messages), so a snapshot can never point into another agent's rows,
-- whatever path wrote it.
--
-- The source list of a snapshot is fixed too: the snapshot row records how many
-- memory and message sources it has, each source takes one of the numbered slots
-- 1..count (unique), and at commit the slots must all be filled. A later
-- transaction finds no free slot, so nothing can be added to what an agent knew.
--
-- Snapshots are immutable for every role. The one exception is erasure: redact
-- replaces the prompt of every snapshot that used a redacted entry with
-- '[redacted]', keeping prompt_sha256 of the original and stamping redacted_at/by,
-- in the transaction that writes the entry's memory_redactions row.
CREATE TABLE agent_state.prompt_snapshots (
    runtime_agent_id uuid NOT NULL,
    snapshot_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL,
    prompt text NOT NULL,
    prompt_sha256 text NOT NULL,
    persona_revision integer,
    memory_count integer NOT NULL DEFAULT 0,
    message_count integer NOT NULL DEFAULT 0,
    redacted_at timestamptz,
    redacted_by name,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT prompt_snapshots_pkey PRIMARY KEY (runtime_agent_id, snapshot_id),
    -- Target of model_calls' (agent, run, snapshot) foreign key: a model call's
    -- snapshot is a snapshot of the same run.
    CONSTRAINT prompt_snapshots_run_key UNIQUE (runtime_agent_id, run_id, snapshot_id),
    CONSTRAINT prompt_snapshots_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT prompt_snapshots_persona_fkey FOREIGN KEY (runtime_agent_id, persona_revision)
    REFERENCES agent_state.persona_revisions (runtime_agent_id, revision),
    CONSTRAINT prompt_snapshots_counts_check CHECK (memory_count >= 0 AND message_count >= 0),
    CONSTRAINT prompt_snapshots_sha256_check CHECK (prompt_sha256 ~ '^[0-9a-f]{64}$'),
    CONSTRAINT prompt_snapshots_redacted_check CHECK (
        (redacted_at IS NULL) = (redacted_by IS NULL)
        AND (redacted_at IS NULL OR prompt = '[redacted]')
    )
);

COMMENT ON TABLE agent_state.prompt_snapshots IS
'Immutable prompt snapshots (prompt, sha256, persona revision) of a run; only redact may blank a prompt.';

CREATE TABLE agent_state.snapshot_memory (
    runtime_agent_id uuid NOT NULL,
    snapshot_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    ordinal integer NOT NULL,
    CONSTRAINT snapshot_memory_pkey PRIMARY KEY (runtime_agent_id, snapshot_id, entry_id, revision),
    CONSTRAINT snapshot_memory_ordinal_key UNIQUE (runtime_agent_id, snapshot_id, ordinal),
    CONSTRAINT snapshot_memory_ordinal_check CHECK (ordinal >= 1),
    CONSTRAINT snapshot_memory_snapshot_fkey FOREIGN KEY (runtime_agent_id, snapshot_id)
    REFERENCES agent_state.prompt_snapshots (runtime_agent_id, snapshot_id),
    CONSTRAINT snapshot_memory_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision)
);

-- Redaction finds every snapshot that used any revision of an entry.
CREATE INDEX snapshot_memory_entry_idx ON agent_state.snapshot_memory (runtime_agent_id, entry_id);

COMMENT ON TABLE agent_state.snapshot_memory IS
'Memory revisions a prompt snapshot used, in prompt order.';

CREATE TABLE agent_state.snapshot_messages (
    runtime_agent_id uuid NOT NULL,
    snapshot_id uuid NOT NULL,
    message_id uuid NOT NULL,
    ordinal integer NOT NULL,
    CONSTRAINT snapshot_messages_pkey PRIMARY KEY (runtime_agent_id, snapshot_id, message_id),
    CONSTRAINT snapshot_messages_ordinal_key UNIQUE (runtime_agent_id, snapshot_id, ordinal),
    CONSTRAINT snapshot_messages_ordinal_check CHECK (ordinal >= 1),
    CONSTRAINT snapshot_messages_snapshot_fkey FOREIGN KEY (runtime_agent_id, snapshot_id)
    REFERENCES agent_state.prompt_snapshots (runtime_agent_id, snapshot_id),
    CONSTRAINT snapshot_messages_message_fkey FOREIGN KEY (runtime_agent_id, message_id)
    REFERENCES agent_state.messages (runtime_agent_id, message_id)
);

COMMENT ON TABLE agent_state.snapshot_messages IS
'Messages a prompt snapshot used, in prompt order.';

-- New snapshots: the sha256 comes from the database (direct DML cannot record a
-- hash that does not match the prompt), the run must be unfinished (55000), and
-- nothing starts out redacted.
CREATE FUNCTION agent_state._snapshot_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    st text;
BEGIN
    -- _run_writable inline: lock the run; the helper raises when it is unknown
    -- or finished.
    SELECT r.status INTO st
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.run_id = NEW.run_id
    FOR NO KEY UPDATE;
    IF NOT coalesce(st IN ('open', 'budget_exhausted'), false) THEN
        PERFORM agent_state._run_writable(NEW.runtime_agent_id, NEW.run_id);
    END IF;
    NEW.prompt_sha256 := pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(NEW.prompt, 'UTF8')), 'hex');
    NEW.redacted_at := NULL;
    NEW.redacted_by := NULL;
    RETURN NEW;
END
$$;

-- Snapshots never change, except erasure: a snapshot that used a revision of an
-- entry whose memory_redactions row was written in the current transaction
-- (_redaction_allowed) may have its prompt replaced by '[redacted]', once, by the
-- owner of the schema's tables (that is, inside the SECURITY DEFINER redact
-- function; clients never run as the owner). Everything else, including the
-- sha256 of the original, stays. Deliberately not SECURITY DEFINER: current_user
-- must be the role running the UPDATE.
CREATE FUNCTION agent_state._snapshot_before_update()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
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

-- A source row takes a numbered slot of its snapshot, and a new snapshot cannot
-- use a revision of a redacted entry: every snapshot that used one has its prompt
-- erased, and one written later would bring the erased text back (55000, like
-- any write to retired state). Deliberately not SECURITY DEFINER: it reads as the
-- role running the INSERT, under that role's privileges and row-level security,
-- so it reveals nothing about agents that role may not act for (inside our
-- functions that role is the owner).
CREATE FUNCTION agent_state._snapshot_memory_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
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

CREATE FUNCTION agent_state._snapshot_message_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    slots integer;
BEGIN
    SELECT s.message_count INTO slots
    FROM agent_state.prompt_snapshots AS s
    WHERE s.runtime_agent_id = NEW.runtime_agent_id AND s.snapshot_id = NEW.snapshot_id;
    IF NEW.ordinal > slots THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('snapshot_messages: snapshot %s has %s message sources; its sources are fixed',
                                        NEW.snapshot_id, slots);
    END IF;
    RETURN NEW;
END
$$;

-- At commit: a new snapshot has exactly the sources it declares.
CREATE FUNCTION agent_state._check_snapshot_sources()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory AS m
        WHERE m.runtime_agent_id = NEW.runtime_agent_id AND m.snapshot_id = NEW.snapshot_id)
        <> NEW.memory_count
        OR (SELECT pg_catalog.count(*) FROM agent_state.snapshot_messages AS m
            WHERE m.runtime_agent_id = NEW.runtime_agent_id AND m.snapshot_id = NEW.snapshot_id)
        <> NEW.message_count THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format('prompt_snapshots: snapshot %s does not have the sources it declares',
                                        NEW.snapshot_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER prompt_snapshots_before_insert
BEFORE INSERT ON agent_state.prompt_snapshots
FOR EACH ROW EXECUTE FUNCTION agent_state._snapshot_before_insert();

CREATE TRIGGER prompt_snapshots_append_only
BEFORE UPDATE ON agent_state.prompt_snapshots
FOR EACH ROW EXECUTE FUNCTION agent_state._snapshot_before_update();

CREATE TRIGGER prompt_snapshots_no_delete
BEFORE DELETE ON agent_state.prompt_snapshots
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

-- (A snapshot declaring no sources has no slot to fill.)
CREATE CONSTRAINT TRIGGER prompt_snapshots_sources_check
AFTER INSERT ON agent_state.prompt_snapshots
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW
WHEN (new.memory_count > 0 OR new.message_count > 0)
EXECUTE FUNCTION agent_state._check_snapshot_sources();

CREATE TRIGGER snapshot_memory_before_insert
BEFORE INSERT ON agent_state.snapshot_memory
FOR EACH ROW EXECUTE FUNCTION agent_state._snapshot_memory_before_insert();

CREATE TRIGGER snapshot_messages_before_insert
BEFORE INSERT ON agent_state.snapshot_messages
FOR EACH ROW EXECUTE FUNCTION agent_state._snapshot_message_before_insert();

CREATE TRIGGER snapshot_memory_append_only
BEFORE UPDATE OR DELETE ON agent_state.snapshot_memory
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER snapshot_messages_append_only
BEFORE UPDATE OR DELETE ON agent_state.snapshot_messages
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();
