-- Memory: an entry's current state plus immutable revisions.
--
-- memory_revisions is the operation log (create, amend, forget): each row records
-- the attributed state it produced and who supplied it. memory_entries is the
-- current state that retrieval reads; a committed entry always has its history:
-- each revision belongs to its entry (a deferred composite foreign key), and the
-- entry's current revision is checked at commit (memory_entries_insert_check and
-- memory_entries_revision_check, in sql/triggers.sql). The current revision is
-- not a second foreign key: the two keys would form a cycle, and pg_dump loads
-- each table in a transaction of its own, in foreign-key order.
--
-- Evidence: the messages that support a revision (all earlier evidence is kept on
-- amendment). evidence_observers is what eligibility needs from them: the actors
-- who could observe every non-public evidence message (the intersection of their
-- audiences); NULL when nothing restricts reuse (operator notes, imports, public
-- evidence). evidence_conversations: the conversations the evidence came from.
--
-- The guards below make the database hold these together: at commit every
-- written entry equals its latest revision, every revision's evidence fields equal
-- what its evidence messages give, revisions and evidence are never updated or
-- deleted (except the audited redaction rewrite of revision bodies).

-- Imported memory files (import_markdown): the file's text is the evidence of the
-- entries made from it.
CREATE TABLE agent_state.memory_imports (
    runtime_agent_id uuid NOT NULL,
    import_id bigint NOT NULL,
    document text NOT NULL,
    document_sha256 text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_imports_pkey PRIMARY KEY (runtime_agent_id, import_id),
    CONSTRAINT memory_imports_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id)
);

COMMENT ON TABLE agent_state.memory_imports IS
'Markdown memory files imported with import_markdown, kept as evidence.';

CREATE TABLE agent_state.memory_revisions (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    operation text NOT NULL,
    body text NOT NULL,
    subject_id uuid,
    visibility text NOT NULL,
    source_type text NOT NULL,
    source_actor_id uuid,
    source_message_id uuid,
    source_import_id bigint,
    evidence_observers uuid [],
    evidence_conversations uuid [] NOT NULL DEFAULT '{}',
    reason text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_revisions_pkey PRIMARY KEY (runtime_agent_id, entry_id, revision),
    CONSTRAINT memory_revisions_subject_fkey FOREIGN KEY (runtime_agent_id, subject_id)
    REFERENCES agent_state.actors (runtime_agent_id, actor_id),
    CONSTRAINT memory_revisions_source_actor_fkey FOREIGN KEY (runtime_agent_id, source_actor_id)
    REFERENCES agent_state.actors (runtime_agent_id, actor_id),
    CONSTRAINT memory_revisions_source_message_fkey FOREIGN KEY (runtime_agent_id, source_message_id)
    REFERENCES agent_state.messages (runtime_agent_id, message_id),
    CONSTRAINT memory_revisions_source_import_fkey FOREIGN KEY (runtime_agent_id, source_import_id)
    REFERENCES agent_state.memory_imports (runtime_agent_id, import_id),
    CONSTRAINT memory_revisions_import_check CHECK ((source_type = 'import') = (source_import_id IS NOT NULL)),
    CONSTRAINT memory_revisions_revision_check CHECK (revision >= 1),
    CONSTRAINT memory_revisions_operation_check CHECK (
        operation IN ('create', 'amend', 'forget', 'restore')
        AND (operation = 'create') = (revision = 1)
    ),
    CONSTRAINT memory_revisions_visibility_check CHECK (visibility IN ('perspective', 'conversation')),
    CONSTRAINT memory_revisions_source_type_check CHECK (source_type IN ('operator', 'agent', 'import')),
    -- An agent-authored entry starts from a persisted message: its author is the
    -- source actor.
    CONSTRAINT memory_revisions_agent_source_check CHECK (
        source_type <> 'agent' OR operation <> 'create'
        OR (source_actor_id IS NOT NULL AND source_message_id IS NOT NULL)
    ),
    -- The source actor is the author of the source message, never a free value.
    CONSTRAINT memory_revisions_source_actor_check CHECK (source_message_id IS NOT NULL OR source_actor_id IS NULL),
    CONSTRAINT memory_revisions_reason_check CHECK (length(reason) <= 10000),
    CONSTRAINT memory_revisions_body_check CHECK (length(body) <= 100000)
);

COMMENT ON TABLE agent_state.memory_revisions IS
'Immutable memory operation log: create, amend, forget, restore (restore_agent), with attributed '
'state and provenance.';

-- The timeline's window of one agent (timeline, restore_agent).
CREATE INDEX memory_revisions_time_idx
ON agent_state.memory_revisions (runtime_agent_id, created_at);

CREATE TABLE agent_state.memory_entries (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL DEFAULT gen_random_uuid(),
    current_revision integer NOT NULL,
    live boolean NOT NULL DEFAULT true,
    body text NOT NULL,
    subject_id uuid,
    visibility text NOT NULL,
    source_type text NOT NULL,
    evidence_observers uuid [],
    evidence_conversations uuid [] NOT NULL DEFAULT '{}',
    revised_at timestamptz NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, body)) STORED,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_entries_pkey PRIMARY KEY (runtime_agent_id, entry_id),
    CONSTRAINT memory_entries_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT memory_entries_subject_fkey FOREIGN KEY (runtime_agent_id, subject_id)
    REFERENCES agent_state.actors (runtime_agent_id, actor_id),
    CONSTRAINT memory_entries_visibility_check CHECK (visibility IN ('perspective', 'conversation')),
    CONSTRAINT memory_entries_source_type_check CHECK (source_type IN ('operator', 'agent', 'import')),
    -- The bounds of the revision it mirrors, held by the row itself (the
    -- commit-time check that it matches its revision skips the product's writes).
    CONSTRAINT memory_entries_current_revision_check CHECK (current_revision >= 1),
    CONSTRAINT memory_entries_body_check CHECK (length(body) <= 100000)
);

ALTER TABLE agent_state.memory_revisions
ADD CONSTRAINT memory_revisions_entry_fkey FOREIGN KEY (runtime_agent_id, entry_id)
REFERENCES agent_state.memory_entries (runtime_agent_id, entry_id)
DEFERRABLE INITIALLY DEFERRED;

-- Per-agent full-text search over live entries: a multicolumn GIN whose first
-- column is the agent (as a one-element array, so core array_ops serves without
-- btree_gin). Queries must say ARRAY[runtime_agent_id] @> ARRAY[$agent::uuid]
-- AND live to use it. The third column holds the week of each entry's
-- revised_at (the formula of _memory_week.sql, written out: a session expands
-- an index's expressions once, as the first role that reads the index, and a
-- function call that role may not execute would stay unexpanded, so writes by
-- other roles would fail and the window queries stop matching), so that the exact top-k
-- search (_top_memory_search) can read a big agent's matches week by week,
-- newest first, and stop early; it is apart from tsv, so it changes no match.
CREATE INDEX memory_entries_search_idx
ON agent_state.memory_entries USING gin (
    (ARRAY[runtime_agent_id]) array_ops,
    tsv,
    (ARRAY[(pg_catalog.floor(extract(EPOCH FROM revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800)::bigint)]) array_ops
)
WHERE live;

-- Newest-first listing (empty query, context fill-up).
CREATE INDEX memory_entries_recent_idx
ON agent_state.memory_entries (runtime_agent_id, revised_at DESC, entry_id)
WHERE live;

COMMENT ON TABLE agent_state.memory_entries IS
'Current state of each memory entry (what retrieval reads); history is in memory_revisions.';

CREATE TABLE agent_state.memory_evidence (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    message_id uuid NOT NULL,
    CONSTRAINT memory_evidence_pkey PRIMARY KEY (runtime_agent_id, entry_id, revision, message_id),
    CONSTRAINT memory_evidence_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision),
    CONSTRAINT memory_evidence_message_fkey FOREIGN KEY (runtime_agent_id, message_id)
    REFERENCES agent_state.messages (runtime_agent_id, message_id)
);

-- No index on (runtime_agent_id, message_id): messages are append-only (never
-- updated or deleted), so the foreign key never looks evidence up by message, and
-- no query does; evidence is always read by revision (the primary key).
-- A revision's evidence is its source message (memory_revisions.source_message_id)
-- and its rows here: a remembered entry costs no evidence row; an amend or a
-- forget carries the evidence of the revision before it over as rows
-- (_revision_evidence reads the set).
COMMENT ON TABLE agent_state.memory_evidence IS
'Evidence messages of each memory revision besides its own source message (the full set: '
'amendments keep earlier evidence). Written in the same statement as, and before, the '
'revision row; fixed from then on.';

-- Revision-specific sharing grants. A grant is never deleted: unshare stamps it.
CREATE TABLE agent_state.memory_shares (
    runtime_agent_id uuid NOT NULL,
    share_id bigint NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    conversation_id uuid NOT NULL,
    revoked_at timestamptz,
    revoked_by name,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_shares_pkey PRIMARY KEY (runtime_agent_id, share_id),
    CONSTRAINT memory_shares_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision),
    CONSTRAINT memory_shares_conversation_fkey FOREIGN KEY (runtime_agent_id, conversation_id)
    REFERENCES agent_state.conversations (runtime_agent_id, conversation_id),
    CONSTRAINT memory_shares_revoked_check CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);

CREATE UNIQUE INDEX memory_shares_active_key
ON agent_state.memory_shares (runtime_agent_id, entry_id, revision, conversation_id)
WHERE revoked_at IS NULL;

-- Grants as they were at a past moment (recall with as_of).
CREATE INDEX memory_shares_revision_idx
ON agent_state.memory_shares (runtime_agent_id, entry_id, revision, conversation_id);

COMMENT ON TABLE agent_state.memory_shares IS
'Sharing grants for one memory revision into one conversation; unshare stamps revoked_at.';

-- Audited erasure: the one sanctioned rewrite of memory revisions (and of the
-- prompt snapshots that used them).
CREATE TABLE agent_state.memory_redactions (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    reason text NOT NULL,
    removed_sha256 text [] NOT NULL,
    -- Stamped by a trigger: the (top-level) transaction that redacted. Only that
    -- transaction may rewrite the entry's revisions.
    redaction_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_redactions_pkey PRIMARY KEY (runtime_agent_id, entry_id),
    CONSTRAINT memory_redactions_entry_fkey FOREIGN KEY (runtime_agent_id, entry_id)
    REFERENCES agent_state.memory_entries (runtime_agent_id, entry_id),
    CONSTRAINT memory_redactions_reason_check CHECK (btrim(reason) <> '' AND length(reason) <= 10000)
);

COMMENT ON TABLE agent_state.memory_redactions IS
'One row per redacted entry: who, when, why, and the sha256 of each text removed.';

-- Memory guards: the invariants of sql/memory.sql held by the database, whatever
-- path writes (functions, or direct DML by a role granted table privileges).
--
-- * memory_entries: never deleted; at commit each written entry equals its latest
--   revision (body, subject, visibility, source type, evidence fields, revised_at),
--   and live = (that revision is not a forget and the entry is not redacted).
-- * memory_revisions: append-only. At commit each new revision's evidence fields
--   equal what its evidence (its source message and its memory_evidence rows)
--   and those messages' audiences give, it
--   keeps all evidence of the revision before it, never widens visibility, never
--   follows a forget or a redaction, and the source actor is the source message's
--   author. The one UPDATE allowed is the redaction rewrite: body := '[redacted]',
--   nothing else, in the transaction that wrote the entry's memory_redactions row.
-- * memory_evidence: append-only, and written before its revision row, in the same
--   statement (its foreign key is checked at the end of that statement): once a
--   revision row exists its evidence set never changes, so the check of what the
--   revision claims, run at commit (or at the end of the statement with SET
--   CONSTRAINTS ALL IMMEDIATE), has seen all of it.
-- * memory_shares: never deleted; the only change is revoking an active grant,
--   stamped by the database.
-- * memory_redactions, memory_imports: append-only (a redaction may add the
--   snapshot hashes to its own row in the transaction that wrote it).

-- Memory rows only operators write, for runtime roles granted table privileges
-- directly (clients normally go through the functions): sharing grants,
-- redactions, imports, the redaction rewrite of revisions, and revisions or entries
-- that claim operator or import provenance. A runtime may write agent-sourced
-- memory of the agents it hosts; the guards in sql/memory.sql still
-- check everything it claims.
CREATE POLICY operator_writes_insert ON agent_state.memory_shares AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.memory_shares AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_delete ON agent_state.memory_shares AS RESTRICTIVE
FOR DELETE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.memory_redactions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.memory_redactions AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_insert ON agent_state.memory_imports AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));

CREATE POLICY operator_writes_update ON agent_state.memory_revisions AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime USING ((SELECT agent_state._caller_is_operator()));

CREATE POLICY agent_source_insert ON agent_state.memory_revisions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime
WITH CHECK (source_type = 'agent' OR (SELECT agent_state._caller_is_operator()));

CREATE POLICY agent_source_insert ON agent_state.memory_entries AS RESTRICTIVE
FOR INSERT TO agent_state_runtime
WITH CHECK (source_type = 'agent' OR (SELECT agent_state._caller_is_operator()));

CREATE POLICY agent_source_update ON agent_state.memory_entries AS RESTRICTIVE
FOR UPDATE TO agent_state_runtime
USING (true)
WITH CHECK (source_type = 'agent' OR (SELECT agent_state._caller_is_operator()));
