-- agent_state 0.1.0 -> 0.2.0.
--
-- Lines "-- include: <file>" are replaced by that file when make builds the
-- script (CREATE FUNCTION becomes CREATE OR REPLACE FUNCTION). ALTER EXTENSION
-- UPDATE and agent_state.install() run it in one transaction: if any statement
-- fails, 0.1.0 stays in place untouched.
--
-- What changes:
-- * Data survives pg_dump: every table is registered with
--   pg_extension_config_dump (sql/security.sql), and a restore session
--   (_restoring) is neither restamped nor refused by the triggers.
-- * The two foreign-key cycles are broken (pg_dump loads each table in its own
--   transaction): an entry's current revision and a tool's current registration
--   are checked by constraint triggers instead.
-- * Hosting grants name their role as regrole (restored by name) and grant
--   nothing once the role they were made for is gone.
-- * memory_entries_search_idx gains a third column (the agent's week of each
--   entry) for the exact top-k search of big agents; the index is rebuilt.
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

-- A function nothing called any more (_bind is the one perspective check).
DROP FUNCTION agent_state._may_act(uuid);

-- Functions whose signature changed.
DROP FUNCTION agent_state._run_budget(agent_state.runs);
DROP FUNCTION agent_state.recall(uuid, text, uuid, uuid, integer, timestamptz);
DROP FUNCTION agent_state.context_for(uuid, uuid, uuid, integer);
DROP FUNCTION agent_state._rank_memory(uuid, tsquery, uuid, boolean, uuid [], uuid, integer, timestamptz, boolean);

-- Triggers that gain a WHEN clause are created again below; stamp_created is
-- created again by the security pass.
DO $drop$
DECLARE
    t record;
BEGIN
    FOR t IN
        SELECT g.tgname, g.tgrelid::regclass AS tbl
        FROM pg_catalog.pg_trigger AS g
        JOIN pg_catalog.pg_class AS c ON c.oid = g.tgrelid
        WHERE c.relnamespace = 'agent_state'::regnamespace AND NOT g.tgisinternal
          AND (g.tgname IN (
                   'stamp_created',
                   'persona_revisions_active_check', 'persona_activations_active_check',
                   'memory_revisions_evidence_check', 'memory_evidence_before_revision',
                   'memory_entries_revision_check',
                   'memory_shares_created_active', 'memory_redactions_complete_check',
                   'memory_redactions_stamp_xact',
                   'runs_before_insert', 'prompt_snapshots_before_insert',
                   'prompt_snapshots_sources_check', 'snapshot_memory_before_insert',
                   'snapshot_messages_before_insert', 'model_calls_before_insert',
                   'tool_calls_before_insert', 'tool_results_before_insert',
                   'checkpoints_before_insert', 'runs_before_update')
               OR g.tgname LIKE '%\_0\_scope\_guard')
    LOOP
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, t.tbl);
    END LOOP;
END
$drop$;

-- Replaceable code: every function that changed or is new, from its file.
-- include: functions/agents/create_agent.sql
-- include: functions/agents/grant_hosting.sql
-- include: functions/agents/revoke_hosting.sql
-- include: functions/conversations/_check_audience.sql
-- include: functions/conversations/_check_message_audience.sql
-- include: functions/conversations/open_conversation.sql
-- include: functions/core/_bind.sql
-- include: functions/core/_guard_scope.sql
-- include: functions/core/_holds_hosting.sql
-- include: functions/core/_hosted_agents.sql
-- include: functions/core/_json_fits.sql
-- include: functions/core/_json_within.sql
-- include: functions/core/_need_text.sql
-- include: functions/core/_number_per_agent.sql
-- include: functions/core/_own_write.sql
-- include: functions/core/_restoring.sql
-- include: functions/core/verify.sql
-- include: functions/core/version.sql
-- include: functions/execution/_append_checkpoint.sql
-- include: functions/execution/_budget_limits.sql
-- include: functions/execution/_check_snapshot.sql
-- include: functions/execution/_check_snapshot_sources.sql
-- include: functions/execution/_insert_snapshot.sql
-- include: functions/execution/_memory_canonical.sql
-- include: functions/execution/_usage_plain.sql
-- include: functions/execution/_next_tool_result.sql
-- include: functions/execution/_run_budget.sql
-- include: functions/execution/_tool_result_before_insert.sql
-- include: functions/execution/_usage_amounts.sql
-- include: functions/execution/checkpoint.sql
-- include: functions/execution/continue_run.sql
-- include: functions/execution/finish_run.sql
-- include: functions/execution/record_model_call.sql
-- include: functions/execution/record_tool_call.sql
-- include: functions/execution/record_tool_result.sql
-- include: functions/execution/record_turn.sql
-- include: functions/execution/recover_run.sql
-- include: functions/execution/snapshot_prompt.sql
-- include: functions/graph/_graph_purge.sql
-- include: functions/graph/_graph_thread.sql
-- include: functions/graph/_guard_graph_payload.sql
-- include: functions/graph/_guard_graph_purge_listed.sql
-- include: functions/graph/_need_graph_namespace.sql
-- include: functions/graph/graph_copy_thread.sql
-- include: functions/graph/graph_delete_for_runs.sql
-- include: functions/graph/graph_delete_thread.sql
-- include: functions/graph/graph_item_delete.sql
-- include: functions/graph/graph_item_put.sql
-- include: functions/graph/graph_item_search.sql
-- include: functions/graph/graph_list.sql
-- include: functions/graph/graph_list_namespaces.sql
-- include: functions/graph/graph_prune.sql
-- include: functions/graph/graph_put.sql
-- include: functions/graph/graph_put_writes.sql
-- include: functions/markdown/_markdown_items.sql
-- include: functions/markdown/export_markdown.sql
-- include: functions/markdown/import_markdown.sql
-- include: functions/memory/_check_memory_redaction.sql
-- include: functions/memory/_check_memory_revision.sql
-- include: functions/memory/_check_redaction.sql
-- include: functions/memory/_check_revision.sql
-- include: functions/memory/_conversation_target.sql
-- include: functions/memory/_eligible_memory_window.sql
-- include: functions/memory/_embedding_index.sql
-- include: functions/memory/_guard_derived_memory.sql
-- include: functions/memory/_guard_memory_redaction.sql
-- include: functions/memory/_hnsw_ef_search.sql
-- include: functions/memory/_hnsw_index.sql
-- include: functions/memory/_insert_memory.sql
-- include: functions/memory/_match_query.sql
-- include: functions/memory/_memory_week.sql
-- include: functions/memory/_need_embedding.sql
-- include: functions/memory/_need_model_dimension.sql
-- include: functions/memory/_need_query_embedding.sql
-- include: functions/memory/_rank_memory.sql
-- include: functions/memory/_redaction_allowed.sql
-- include: functions/memory/_revision_evidence.sql
-- include: functions/memory/_top_memory_search.sql
-- include: functions/memory/_vector_iterative.sql
-- include: functions/memory/_vector_schema.sql
-- include: functions/memory/amend.sql
-- include: functions/memory/attach_embedding.sql
-- include: functions/memory/context_for.sql
-- include: functions/memory/forget.sql
-- include: functions/memory/index_embeddings.sql
-- include: functions/memory/memory_entry.sql
-- include: functions/memory/memory_history.sql
-- include: functions/memory/note.sql
-- include: functions/memory/pending_embeddings.sql
-- include: functions/memory/recall.sql
-- include: functions/memory/redact.sql
-- include: functions/memory/remember.sql
-- include: functions/memory/remember_many.sql
-- include: functions/persona/_check_persona.sql
-- include: functions/persona/_check_persona_active.sql
-- include: functions/persona/active_persona.sql
-- include: functions/tools/_check_tool.sql
-- include: functions/tools/_check_tool_current.sql
-- include: functions/tools/grant_tool.sql
-- include: functions/tools/register_tool.sql

-- Hosting grants: the role as regrole (the primary key and index follow).
ALTER TABLE agent_state.agent_hosts ALTER COLUMN host TYPE regrole USING host::regrole;

-- Evidence: a revision's own source message is no longer repeated as a row
-- (_revision_evidence); the rows a 0.1.0 install wrote for it stay, and mean the
-- same set.
COMMENT ON TABLE agent_state.memory_evidence IS
'Evidence messages of each memory revision besides its own source message (the full set: '
'amendments keep earlier evidence). Written in the same statement as, and before, the '
'revision row; fixed from then on.';

-- The search index gains its third column, the agent's week
-- (_memory_week.sql), for the exact top-k search of big agents.
DROP INDEX agent_state.memory_entries_search_idx;
CREATE INDEX memory_entries_search_idx
ON agent_state.memory_entries USING gin (
    (ARRAY[runtime_agent_id]) array_ops,
    tsv,
    (ARRAY[(pg_catalog.floor(extract(EPOCH FROM revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800)::bigint)]) array_ops
)
WHERE live;

-- Row checks that hold what the functions' own writes no longer have checked by
-- triggers (rows written by 0.1.0 pass them: its triggers computed and checked
-- the same values).
ALTER TABLE agent_state.prompt_snapshots ADD CONSTRAINT prompt_snapshots_sha256_matches_check CHECK (
    redacted_at IS NOT NULL
    OR prompt_sha256 = encode(sha256(convert_to(prompt, 'UTF8')), 'hex')
);
ALTER TABLE agent_state.memory_entries
ADD CONSTRAINT memory_entries_current_revision_check CHECK (current_revision >= 1),
ADD CONSTRAINT memory_entries_body_check CHECK (length(body) <= 100000);

-- Foreign-key cycles.
ALTER TABLE agent_state.memory_entries DROP CONSTRAINT memory_entries_current_fkey;
CREATE CONSTRAINT TRIGGER memory_entries_insert_check
AFTER INSERT ON agent_state.memory_entries
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._check_memory_entry();

CREATE CONSTRAINT TRIGGER memory_entries_revision_check
AFTER UPDATE ON agent_state.memory_entries
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (new.current_revision <= old.current_revision AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._check_memory_entry();

ALTER TABLE agent_state.tools DROP CONSTRAINT tools_current_fkey;
CREATE CONSTRAINT TRIGGER tools_current_check
AFTER INSERT OR UPDATE ON agent_state.tools
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._check_tool_current();

-- Triggers that a restore skips.
CREATE CONSTRAINT TRIGGER persona_revisions_active_check
AFTER INSERT OR UPDATE ON agent_state.persona_revisions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._check_persona_active();

CREATE CONSTRAINT TRIGGER persona_activations_active_check
AFTER INSERT ON agent_state.persona_activations
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._check_persona_active();

CREATE CONSTRAINT TRIGGER memory_revisions_evidence_check
AFTER INSERT ON agent_state.memory_revisions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._check_memory_revision();

CREATE TRIGGER memory_evidence_before_revision
BEFORE INSERT ON agent_state.memory_evidence
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._guard_memory_evidence();

CREATE TRIGGER memory_shares_created_active
BEFORE INSERT ON agent_state.memory_shares
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._stamp_memory_share();

CREATE TRIGGER memory_redactions_stamp_xact
BEFORE INSERT ON agent_state.memory_redactions
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._guard_memory_redaction();

CREATE TRIGGER memory_redactions_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_redactions
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_memory_redaction();

CREATE CONSTRAINT TRIGGER memory_redactions_complete_check
AFTER INSERT ON agent_state.memory_redactions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._check_memory_redaction();

CREATE TRIGGER runs_before_insert
BEFORE INSERT ON agent_state.runs
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._run_before_insert();

-- Its WHEN clause, written so that it prints back as written (see sql/execution.sql).
CREATE TRIGGER runs_before_update
BEFORE UPDATE ON agent_state.runs
FOR EACH ROW
WHEN (NOT coalesce(
    old.status = 'open' AND new.status = 'open'
    AND NOT (
        new.runtime_agent_id IS DISTINCT FROM old.runtime_agent_id
        OR new.run_id IS DISTINCT FROM old.run_id
        OR new.conversation_id IS DISTINCT FROM old.conversation_id
        OR new.trigger_message_id IS DISTINCT FROM old.trigger_message_id
        OR new.continued_from IS DISTINCT FROM old.continued_from
        OR new.chain_root IS DISTINCT FROM old.chain_root
        OR new.chain_started_at IS DISTINCT FROM old.chain_started_at
        OR new.task_context IS DISTINCT FROM old.task_context
        OR new.limit_tokens IS DISTINCT FROM old.limit_tokens
        OR new.limit_cost_usd IS DISTINCT FROM old.limit_cost_usd
        OR new.limit_tool_calls IS DISTINCT FROM old.limit_tool_calls
        OR new.limit_wall_time_seconds IS DISTINCT FROM old.limit_wall_time_seconds
        OR new.created_at IS DISTINCT FROM old.created_at
        OR new.created_by IS DISTINCT FROM old.created_by
    )
    AND new.finished_at IS NULL AND new.finished_by IS NULL AND new.detail IS NULL
    AND new.spent_tokens >= old.spent_tokens AND new.spent_cost_usd >= old.spent_cost_usd
    AND new.spent_tool_calls >= old.spent_tool_calls
    AND new.limit_wall_time_seconds IS NULL
    AND (new.limit_tokens IS NULL OR new.spent_tokens < new.limit_tokens)
    AND (new.limit_cost_usd IS NULL OR new.spent_cost_usd < new.limit_cost_usd)
    AND (new.limit_tool_calls IS NULL OR new.spent_tool_calls < new.limit_tool_calls),
    false
))
EXECUTE FUNCTION agent_state._run_before_update();

CREATE TRIGGER prompt_snapshots_before_insert
BEFORE INSERT ON agent_state.prompt_snapshots
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._snapshot_before_insert();

CREATE CONSTRAINT TRIGGER prompt_snapshots_sources_check
AFTER INSERT ON agent_state.prompt_snapshots
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW
WHEN (
    NOT agent_state._restoring() AND NOT agent_state._own_write()
    AND (new.memory_count > 0 OR new.message_count > 0)
)
EXECUTE FUNCTION agent_state._check_snapshot_sources();

CREATE TRIGGER snapshot_memory_before_insert
BEFORE INSERT ON agent_state.snapshot_memory
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._snapshot_memory_before_insert();

CREATE TRIGGER snapshot_messages_before_insert
BEFORE INSERT ON agent_state.snapshot_messages
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._snapshot_message_before_insert();

CREATE TRIGGER model_calls_before_insert
BEFORE INSERT ON agent_state.model_calls
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._model_call_before_insert();

CREATE TRIGGER tool_calls_before_insert
BEFORE INSERT ON agent_state.tool_calls
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tool_call_before_insert();

CREATE TRIGGER tool_results_before_insert
BEFORE INSERT ON agent_state.tool_results
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tool_result_before_insert();

CREATE TRIGGER checkpoints_before_insert
BEFORE INSERT ON agent_state.checkpoints
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._checkpoint_before_insert();


-- No global sequences: per-agent numbers (a sequence let one perspective count
-- another's activity). Existing numbers stay as they are.
ALTER TABLE agent_state.memory_imports ALTER COLUMN import_id DROP IDENTITY;
ALTER TABLE agent_state.memory_shares ALTER COLUMN share_id DROP IDENTITY;
ALTER TABLE agent_state.persona_activations ALTER COLUMN activation_id DROP IDENTITY;
CREATE TRIGGER persona_activations_number
BEFORE INSERT ON agent_state.persona_activations
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._number_per_agent('activation_id');
CREATE TRIGGER memory_imports_number
BEFORE INSERT ON agent_state.memory_imports
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._number_per_agent('import_id');
CREATE TRIGGER memory_shares_number
BEFORE INSERT ON agent_state.memory_shares
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._number_per_agent('share_id');
DROP INDEX agent_state.messages_latest_idx;
ALTER TABLE agent_state.messages DROP COLUMN seq;
CREATE INDEX messages_latest_idx
ON agent_state.messages (runtime_agent_id, conversation_id, observed_at DESC, created_at DESC, message_id DESC);

-- New in 0.2.0: the semantic axis of retrieval (pgvector optional) and the
-- LangGraph tables, from their files.
-- include: sql/embeddings.sql
-- include: sql/graph.sql

-- The whole-schema passes: stamp and scope-guard triggers, config_dump
-- registration, grants.
-- include: sql/security.sql
-- include: sql/privileges.sql
