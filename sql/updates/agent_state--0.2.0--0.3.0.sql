-- agent_state 0.2.0 -> 0.3.0 (in development: make expands the includes; `make
-- release` freezes the expanded text, see RELEASING.md).
--
-- ALTER EXTENSION UPDATE and agent_state.install() run it in one transaction:
-- if any statement fails, 0.2.0 stays in place untouched.
--
-- What changes:
-- * Every trigger comes from one idempotent pass (sql/triggers.sql): the
--   triggers are dropped and created again from their one definition.
-- * The schema must be one only its owner can add to (sql/schema_trust.sql), and
--   an event trigger keeps it so (sql/guard.sql, where the role may create one).
-- * The profile (display name, settings) is versioned: profile_revisions, with
--   each agent's current row as its revision 1; agents keeps only the handle.
-- * History as the product: tool_grants(as_of), export_markdown(as_of),
--   timeline(), restore_agent() (a memory revision may now restore an entry;
--   agent_restores logs each restore), fork_agent() and fork_origin()
--   (agent_forks); redact follows an entry into the copies of its lineage.
-- * Discovery: list_agents(), find_agent(), list_conversations(), list_runs(),
--   list_memories().
-- * Moving an agent: export_agent() and import_agent(); move_step() and
--   shard_inventory() for a router's move_agent (agent_moves).
-- * SDK sessions: session_items and session_retractions, with
--   session_add_items(), session_get_items(), session_pop_item(),
--   session_clear() and session_item_history().
-- * Every trigger function is named _tg_*; 0.2.0's names are dropped.
-- * Rights come only from memberships that lend them (USAGE, not MEMBER); a
--   session whose SET ROLE membership was revoked is refused; EXECUTE granted on
--   a function to any other role is taken back.
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

-- Nothing is replaced in a schema that others may add to.
-- include: sql/schema_trust.sql

-- Schema changes of 0.3.0 (new tables, columns, constraints, indexes), written
-- here by hand, before the code. A function whose signature or result type
-- changed, or that 0.3.0 removes, is dropped here too: CREATE OR REPLACE cannot
-- change those.

-- The profile's revisions (sql/agents.sql). The CHECK's function comes from its
-- file first; the rows of 0.2.0 passed the same rule at create_agent.
-- include: functions/agents/_settings_problem.sql
CREATE TABLE agent_state.profile_revisions (
    runtime_agent_id uuid NOT NULL,
    revision integer NOT NULL,
    display_name text,
    settings jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT profile_revisions_pkey PRIMARY KEY (runtime_agent_id, revision),
    CONSTRAINT profile_revisions_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT profile_revisions_revision_check CHECK (revision >= 1),
    CONSTRAINT profile_revisions_display_name_check CHECK (
        display_name IS NULL OR (btrim(display_name) <> '' AND length(display_name) <= 1000)
    ),
    CONSTRAINT profile_revisions_settings_check CHECK (agent_state._settings_problem(settings) IS NULL)
);
COMMENT ON TABLE agent_state.profile_revisions IS
'Append-only profile revisions (display_name, settings: subject_boost, recency_half_life); '
'the newest is current.';
CREATE POLICY operator_writes_insert ON agent_state.profile_revisions AS RESTRICTIVE
FOR INSERT TO agent_state_runtime WITH CHECK ((SELECT agent_state._caller_is_operator()));
-- Each agent's profile as 0.2.0 held it becomes its revision 1, stamped as the
-- agent was.
INSERT INTO agent_state.profile_revisions
    (runtime_agent_id, revision, display_name, settings, created_at, created_by)
SELECT a.runtime_agent_id, 1, a.display_name, a.settings, a.created_at, a.created_by
FROM agent_state.agents AS a;
ALTER TABLE agent_state.agents DROP COLUMN display_name, DROP COLUMN settings;
COMMENT ON TABLE agent_state.agents IS
'RuntimeAgents (perspectives): the handle; the rest of the profile is versioned in '
'profile_revisions.';

-- The timeline's window of one agent (sql/memory.sql).
CREATE INDEX memory_revisions_time_idx
ON agent_state.memory_revisions (runtime_agent_id, created_at);

-- restore_agent: a memory revision may restore a forgotten entry, and each
-- restore is logged; forks record their origin (sql/memory.sql, sql/history.sql).
ALTER TABLE agent_state.memory_revisions DROP CONSTRAINT memory_revisions_operation_check;
ALTER TABLE agent_state.memory_revisions ADD CONSTRAINT memory_revisions_operation_check CHECK (
    operation IN ('create', 'amend', 'forget', 'restore')
    AND (operation = 'create') = (revision = 1)
);
COMMENT ON TABLE agent_state.memory_revisions IS
'Immutable memory operation log: create, amend, forget, restore (restore_agent), with attributed '
'state and provenance.';
-- Moves between shards (sql/agents.sql).
CREATE TABLE agent_state.agent_moves (
    agent uuid NOT NULL,
    state text NOT NULL,
    peer text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT agent_moves_pkey PRIMARY KEY (agent),
    CONSTRAINT agent_moves_agent_fkey FOREIGN KEY (agent)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT agent_moves_state_check CHECK (state IN ('out', 'in', 'gone')),
    CONSTRAINT agent_moves_peer_check CHECK (btrim(peer) <> '' AND length(peer) <= 200)
);
COMMENT ON TABLE agent_state.agent_moves IS
'Agents being moved between shards (out, in) or moved away (gone); written by move_step only.';
-- SDK sessions (sql/sessions.sql).
-- include: sql/sessions.sql
-- include: sql/history.sql

-- Functions whose signature changed (as_of added; verify's agent and
-- expected_head).
DROP FUNCTION agent_state.export_markdown(uuid);
DROP FUNCTION agent_state.verify();
-- match 'any' ranks by term rarity: the lexemes and their weights reach the
-- ranking helpers as two more arguments.
DROP FUNCTION agent_state._rank_memory(uuid, tsquery, uuid, boolean, uuid [], uuid, integer, timestamptz, boolean, real [], text);
DROP FUNCTION agent_state._top_memory_search(uuid, tsquery, uuid, boolean, uuid [], uuid, double precision, timestamptz, double precision, integer);
DROP FUNCTION agent_state._eligible_memory(uuid, tsquery, uuid, boolean, uuid [], timestamptz);
DROP FUNCTION agent_state._eligible_memory_search(uuid, tsquery, uuid, boolean, uuid []);
DROP FUNCTION agent_state._eligible_memory_window(uuid, bigint [], tsquery, uuid, boolean, uuid []);
-- A reference argument is checked by one helper, _need_ref; _missing finds on
-- its own whether the id is another perspective's.
DROP FUNCTION agent_state._missing(text, text, uuid, boolean);
DROP FUNCTION agent_state._need_run(uuid, uuid, text);

-- Replaceable code: every function, from its one source.
-- include: functions/*/*.sql

-- Tamper evidence: the chains' columns (sql/chains.sql), then every existing
-- record stamped by this transaction (_chain_adopt, in the order it was
-- written). The stamp's trigger comes with the triggers' pass below; until then,
-- no trigger may refuse these updates.
-- include: sql/chains.sql
DO $chain_backfill$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT c.tbl FROM agent_state._chain_tables() AS c ORDER BY c.tbl LOOP
        EXECUTE pg_catalog.format('ALTER TABLE agent_state.%I DISABLE TRIGGER USER', t.tbl);
    END LOOP;
    PERFORM agent_state._chain_adopt();
END
$chain_backfill$;
-- The updates queued the deferred foreign keys' checks; run them now, before
-- the passes below alter the tables.
SET CONSTRAINTS ALL IMMEDIATE;

-- The whole-schema passes: every trigger, row-level security and the generated
-- triggers, config_dump registration, grants, the schema's event trigger.
-- include: sql/triggers.sql
-- Trigger functions are named _tg_* now (one pattern): the pass above moved every
-- trigger to its new function; 0.2.0's names go.
DROP FUNCTION agent_state._check_memory_entry();
DROP FUNCTION agent_state._check_memory_redaction();
DROP FUNCTION agent_state._check_memory_revision();
DROP FUNCTION agent_state._check_message_audience();
DROP FUNCTION agent_state._check_persona_active();
DROP FUNCTION agent_state._check_snapshot_sources();
DROP FUNCTION agent_state._check_tool_current();
DROP FUNCTION agent_state._checkpoint_before_insert();
DROP FUNCTION agent_state._guard_derived_memory();
DROP FUNCTION agent_state._guard_graph_payload();
DROP FUNCTION agent_state._guard_graph_purge_listed();
DROP FUNCTION agent_state._guard_memory_evidence();
DROP FUNCTION agent_state._guard_memory_redaction();
DROP FUNCTION agent_state._guard_memory_revision();
DROP FUNCTION agent_state._guard_memory_share();
DROP FUNCTION agent_state._guard_scope();
DROP FUNCTION agent_state._model_call_before_insert();
DROP FUNCTION agent_state._number_per_agent();
DROP FUNCTION agent_state._operator_truncate_only();
DROP FUNCTION agent_state._refuse_change();
DROP FUNCTION agent_state._run_before_insert();
DROP FUNCTION agent_state._run_before_update();
DROP FUNCTION agent_state._snapshot_before_insert();
DROP FUNCTION agent_state._snapshot_before_update();
DROP FUNCTION agent_state._snapshot_memory_before_insert();
DROP FUNCTION agent_state._snapshot_message_before_insert();
DROP FUNCTION agent_state._stamp_created();
DROP FUNCTION agent_state._stamp_memory_share();
DROP FUNCTION agent_state._tool_call_before_insert();
DROP FUNCTION agent_state._tool_result_before_insert();
-- include: sql/security.sql
-- include: sql/privileges.sql
-- include: sql/guard.sql
