-- Every trigger of the schema, written once: an idempotent pass like
-- sql/security.sql, included by the install script and by the development
-- upgrade script, so no trigger definition is ever copied by hand.
--
-- It first drops every trigger on the schema's tables (none is internal: the
-- foreign keys' own triggers are kept), then creates each one below; the
-- security pass then adds its generated triggers again. So after an install or
-- an upgrade the schema has exactly the triggers this file and that pass define,
-- whatever an earlier version had. Triggers fire in name order, so dropping and
-- creating them changes no behaviour. The definitions follow the domains'
-- load order (see Makefile).
DO $drop_triggers$
DECLARE
    t record;
BEGIN
    FOR t IN
        SELECT g.tgname, g.tgrelid::regclass AS tbl
        FROM pg_catalog.pg_trigger AS g
        JOIN pg_catalog.pg_class AS c ON c.oid = g.tgrelid
        WHERE c.relnamespace = 'agent_state'::regnamespace AND NOT g.tgisinternal
        ORDER BY c.relname, g.tgname
    LOOP
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', t.tgname, t.tbl);
    END LOOP;
END
$drop_triggers$;

-- ------------------------------------------------------------ agents

CREATE TRIGGER profile_revisions_append_only
BEFORE UPDATE OR DELETE ON agent_state.profile_revisions
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ actors

CREATE TRIGGER actors_append_only
BEFORE UPDATE OR DELETE ON agent_state.actors
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER actor_identities_append_only
BEFORE UPDATE OR DELETE ON agent_state.actor_identities
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ conversations

CREATE TRIGGER conversations_append_only
BEFORE UPDATE OR DELETE ON agent_state.conversations
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE CONSTRAINT TRIGGER messages_audience_check
AFTER INSERT ON agent_state.messages
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_check_message_audience();

CREATE TRIGGER messages_append_only
BEFORE UPDATE OR DELETE ON agent_state.messages
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ persona

-- Numbered per agent (_tg_number_per_agent), not by a global sequence.
-- Numbering, like the stamps (sql/security.sql), keeps what a restore loads and
-- what the extension's own code copies (fork_agent, import_agent: _copying).
CREATE TRIGGER persona_activations_number
BEFORE INSERT ON agent_state.persona_activations
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_number_per_agent('activation_id');

CREATE TRIGGER persona_revisions_append_only
BEFORE UPDATE OR DELETE ON agent_state.persona_revisions
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change('is_active');

CREATE TRIGGER persona_activations_append_only
BEFORE UPDATE OR DELETE ON agent_state.persona_activations
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE CONSTRAINT TRIGGER persona_revisions_active_check
AFTER INSERT OR UPDATE ON agent_state.persona_revisions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._tg_check_persona_active();

CREATE CONSTRAINT TRIGGER persona_activations_active_check
AFTER INSERT ON agent_state.persona_activations
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._tg_check_persona_active();

-- ------------------------------------------------------------ memory

-- Advancing an entry's current revision comes with a new revision, whose check
-- covers the entry; so does inserting one, unless no revision of it is written
-- at all, which the insert check catches. Any other update is checked here.
-- The product's own writes skip these commit-time checks (_own_write): the
-- functions keep what they check, which tests/pgtap/520_own_writes.sql proves.
CREATE CONSTRAINT TRIGGER memory_entries_insert_check
AFTER INSERT ON agent_state.memory_entries
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_check_memory_entry();

CREATE CONSTRAINT TRIGGER memory_entries_revision_check
AFTER UPDATE ON agent_state.memory_entries
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (new.current_revision <= old.current_revision AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_check_memory_entry();

CREATE TRIGGER memory_entries_no_delete
BEFORE DELETE ON agent_state.memory_entries
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE CONSTRAINT TRIGGER memory_revisions_evidence_check
AFTER INSERT ON agent_state.memory_revisions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_check_memory_revision();

CREATE TRIGGER memory_revisions_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_revisions
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_memory_revision();

CREATE TRIGGER memory_evidence_before_revision
BEFORE INSERT ON agent_state.memory_evidence
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._copying())
EXECUTE FUNCTION agent_state._tg_guard_memory_evidence();

CREATE TRIGGER memory_evidence_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_evidence
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER memory_shares_created_active
BEFORE INSERT ON agent_state.memory_shares
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_stamp_memory_share();

CREATE TRIGGER memory_shares_revoke_only
BEFORE UPDATE OR DELETE ON agent_state.memory_shares
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_memory_share();

-- A restored row keeps the transaction id it was written with (see
-- _redaction_allowed for why that grants nothing here).
-- A copied redaction (fork_agent, import_agent) keeps the transaction it names:
-- it authorises nothing, since _redaction_allowed also wants a record written
-- in the current transaction.
CREATE TRIGGER memory_redactions_stamp_xact
BEFORE INSERT ON agent_state.memory_redactions
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_guard_memory_redaction();

CREATE TRIGGER memory_redactions_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_redactions
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_memory_redaction();

CREATE CONSTRAINT TRIGGER memory_redactions_complete_check
AFTER INSERT ON agent_state.memory_redactions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._tg_check_memory_redaction();

-- Imports and shares are numbered per agent (_tg_number_per_agent), not by a global
-- sequence.
CREATE TRIGGER memory_imports_number
BEFORE INSERT ON agent_state.memory_imports
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_number_per_agent('import_id');

CREATE TRIGGER memory_shares_number
BEFORE INSERT ON agent_state.memory_shares
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_number_per_agent('share_id');

CREATE TRIGGER memory_imports_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_imports
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ embeddings

CREATE TRIGGER memory_embeddings_before_insert
BEFORE INSERT ON agent_state.memory_embeddings
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._tg_guard_derived_memory();

CREATE TRIGGER memory_embeddings_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_embeddings
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_derived_memory();

CREATE TRIGGER memory_embedding_models_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_embedding_models
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ tools

CREATE CONSTRAINT TRIGGER tools_current_check
AFTER INSERT OR UPDATE ON agent_state.tools
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._tg_check_tool_current();

-- Registrations are replaced, never removed: only the contract columns of tools
-- may change. History rows and grants never change.
CREATE TRIGGER tools_append_only
BEFORE UPDATE OR DELETE ON agent_state.tools
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change('version', 'config_schema', 'revision');

CREATE TRIGGER tool_versions_append_only
BEFORE UPDATE OR DELETE ON agent_state.tool_versions
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER tool_grants_append_only
BEFORE UPDATE OR DELETE ON agent_state.tool_grants
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ execution

CREATE TRIGGER runs_before_insert
BEFORE INSERT ON agent_state.runs
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_run_before_insert();

-- A charge of an open run that stays below every limit (and has no wall-time
-- limit, which depends on the clock) changes nothing the trigger function would
-- act on: the function would return the row unchanged. The WHEN clause lets such
-- an update through without calling it; every other update (any other column
-- touched, spent decreasing, a limit reached, a status change, a finished or
-- exhausted run) goes through the function. (The column comparisons are one flat
-- OR list, which PostgreSQL prints back as written: a row comparison would be
-- printed as nested ORs, and a dump restored would differ from a fresh install.)
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
        OR new.chain_at IS DISTINCT FROM old.chain_at
        OR new.chain_xact IS DISTINCT FROM old.chain_xact
        OR new.chain_digest IS DISTINCT FROM old.chain_digest
        OR new.chain_close_at IS DISTINCT FROM old.chain_close_at
        OR new.chain_close_xact IS DISTINCT FROM old.chain_close_xact
        OR new.chain_close_digest IS DISTINCT FROM old.chain_close_digest
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
EXECUTE FUNCTION agent_state._tg_run_before_update();

CREATE TRIGGER runs_no_delete
BEFORE DELETE ON agent_state.runs
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER prompt_snapshots_before_insert
BEFORE INSERT ON agent_state.prompt_snapshots
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_snapshot_before_insert();

CREATE TRIGGER prompt_snapshots_append_only
BEFORE UPDATE ON agent_state.prompt_snapshots
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_snapshot_before_update();

CREATE TRIGGER prompt_snapshots_no_delete
BEFORE DELETE ON agent_state.prompt_snapshots
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- (A snapshot declaring no sources has no slot to fill.)
CREATE CONSTRAINT TRIGGER prompt_snapshots_sources_check
AFTER INSERT ON agent_state.prompt_snapshots
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW
WHEN (
    NOT agent_state._restoring() AND NOT agent_state._own_write()
    AND (new.memory_count > 0 OR new.message_count > 0)
)
EXECUTE FUNCTION agent_state._tg_check_snapshot_sources();

CREATE TRIGGER snapshot_memory_before_insert
BEFORE INSERT ON agent_state.snapshot_memory
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._copying())
EXECUTE FUNCTION agent_state._tg_snapshot_memory_before_insert();

CREATE TRIGGER snapshot_messages_before_insert
BEFORE INSERT ON agent_state.snapshot_messages
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._copying())
EXECUTE FUNCTION agent_state._tg_snapshot_message_before_insert();

CREATE TRIGGER snapshot_memory_append_only
BEFORE UPDATE OR DELETE ON agent_state.snapshot_memory
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER snapshot_messages_append_only
BEFORE UPDATE OR DELETE ON agent_state.snapshot_messages
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER model_calls_before_insert
BEFORE INSERT ON agent_state.model_calls
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_model_call_before_insert();

CREATE TRIGGER tool_calls_before_insert
BEFORE INSERT ON agent_state.tool_calls
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_tool_call_before_insert();

CREATE TRIGGER tool_results_before_insert
BEFORE INSERT ON agent_state.tool_results
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_tool_result_before_insert();

CREATE TRIGGER checkpoints_before_insert
BEFORE INSERT ON agent_state.checkpoints
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_checkpoint_before_insert();

CREATE TRIGGER model_calls_append_only
BEFORE UPDATE OR DELETE ON agent_state.model_calls
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER tool_calls_append_only
BEFORE UPDATE OR DELETE ON agent_state.tool_calls
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER tool_results_append_only
BEFORE UPDATE OR DELETE ON agent_state.tool_results
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER checkpoints_append_only
BEFORE UPDATE OR DELETE ON agent_state.checkpoints
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ graph

CREATE TRIGGER graph_purges_number
BEFORE INSERT ON agent_state.graph_purges
FOR EACH ROW WHEN (
    NOT agent_state._restoring()
    AND (new.created_at >= pg_catalog.statement_timestamp() OR NOT agent_state._copying())
)
EXECUTE FUNCTION agent_state._tg_number_per_agent('purge_id');

CREATE TRIGGER graph_purges_links
BEFORE INSERT ON agent_state.graph_purges
FOR EACH ROW WHEN (NOT agent_state._restoring() AND NOT agent_state._copying())
EXECUTE FUNCTION agent_state._tg_graph_purge_links();

CREATE TRIGGER graph_purges_append_only
BEFORE UPDATE OR DELETE ON agent_state.graph_purges
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER graph_runs_append_only
BEFORE UPDATE OR DELETE ON agent_state.graph_runs
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER graph_threads_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_threads
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change('current_run_id');

CREATE TRIGGER graph_checkpoints_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_checkpoints
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_graph_payload();

CREATE TRIGGER graph_writes_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_writes
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_graph_payload();

-- Direct DML may delete only what a purge of its transaction lists.
CREATE TRIGGER graph_checkpoints_purge_listed
BEFORE DELETE ON agent_state.graph_checkpoints
FOR EACH ROW WHEN (NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_guard_graph_purge_listed();

CREATE TRIGGER graph_writes_purge_listed
BEFORE DELETE ON agent_state.graph_writes
FOR EACH ROW WHEN (NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._tg_guard_graph_purge_listed();

CREATE TRIGGER graph_items_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_items
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change('entry_id');

-- Values hold the item's text: redact erases them with the entry's text.
CREATE TRIGGER graph_item_values_append_only
BEFORE UPDATE OR DELETE ON agent_state.graph_item_values
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_guard_derived_memory();

-- ------------------------------------------------------------ sessions

CREATE TRIGGER session_items_append_only
BEFORE UPDATE OR DELETE ON agent_state.session_items
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER session_retractions_append_only
BEFORE UPDATE OR DELETE ON agent_state.session_retractions
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ history

CREATE TRIGGER agent_restores_append_only
BEFORE UPDATE OR DELETE ON agent_state.agent_restores
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

CREATE TRIGGER agent_forks_append_only
BEFORE UPDATE OR DELETE ON agent_state.agent_forks
FOR EACH ROW EXECUTE FUNCTION agent_state._tg_refuse_change();

-- ------------------------------------------------------------ chains

-- The hash chains' stamps on every table _chain_tables lists: the record's
-- (_tg_chain_stamp, with the table's excluded columns, erasable column and
-- rewritable predicate as arguments) and, where records close, the closing's
-- (_tg_chain_close_stamp, with the closing columns). Named zz_chain... so they fire
-- after every other BEFORE trigger (in name order: zz_chain, zz_chain_again,
-- zz_chain_close, zz_chain_close_again), the closing after the record's. An update
-- reaches them only when it touches a stamp, closes the record, rewrites a
-- rewritable one or is made by the transaction that wrote the record (the WHEN
-- clauses): a run's charges pay nothing. A restore keeps the stamps it loads
-- (verify judges them): _restoring is read here, in the WHEN clause, as the
-- restoring session sees its settings.
DO $chain_triggers$
DECLARE
    t record;
    args text;
    stamps constant text :=
        'new.chain_at IS DISTINCT FROM old.chain_at OR new.chain_xact IS DISTINCT FROM old.chain_xact '
        'OR new.chain_digest IS DISTINCT FROM old.chain_digest '
        'OR old.chain_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()';
BEGIN
    FOR t IN SELECT c.* FROM agent_state._chain_tables() AS c ORDER BY c.tbl LOOP
        args := pg_catalog.format('%L, %L, %L', coalesce(t.excluded, '{}'), coalesce(t.erasable, ''),
                                  coalesce(t.rewritable, ''));
        EXECUTE pg_catalog.format(
            'CREATE TRIGGER zz_chain BEFORE INSERT ON agent_state.%I FOR EACH ROW '
            'WHEN (NOT agent_state._restoring()) EXECUTE FUNCTION agent_state._tg_chain_stamp(%s)',
            t.tbl, args);
        EXECUTE pg_catalog.format(
            'CREATE TRIGGER zz_chain_again BEFORE UPDATE ON agent_state.%I FOR EACH ROW '
            'WHEN (%s) EXECUTE FUNCTION agent_state._tg_chain_stamp(%s)',
            t.tbl, CASE WHEN t.rewritable IS NULL THEN stamps ELSE 'true' END, args);
        CONTINUE WHEN t.closing IS NULL;
        EXECUTE pg_catalog.format(
            'CREATE TRIGGER zz_chain_close BEFORE INSERT ON agent_state.%I FOR EACH ROW '
            'WHEN (NOT agent_state._restoring() AND new.%I IS NOT NULL) '
            'EXECUTE FUNCTION agent_state._tg_chain_close_stamp(%L)',
            t.tbl, t.closing[1], t.closing);
        EXECUTE pg_catalog.format(
            'CREATE TRIGGER zz_chain_close_again BEFORE UPDATE ON agent_state.%I FOR EACH ROW '
            'WHEN (new.%2$I IS DISTINCT FROM old.%2$I OR new.chain_close_at IS DISTINCT FROM old.chain_close_at '
            'OR new.chain_close_xact IS DISTINCT FROM old.chain_close_xact '
            'OR new.chain_close_digest IS DISTINCT FROM old.chain_close_digest OR %3$s) '
            'EXECUTE FUNCTION agent_state._tg_chain_close_stamp(%4$L)',
            t.tbl, t.closing[1], stamps, t.closing);
    END LOOP;
END
$chain_triggers$;
