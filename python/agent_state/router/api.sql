-- agent_state router: the API functions, generated from the catalog by
-- scripts/gen-router.py (make router); do not edit. Loaded after router.sql.
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

CREATE FUNCTION agent_state_router._on_activate_persona(server text, agent uuid, revision integer)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.activate_persona(agent, revision);
$$;

CREATE FUNCTION agent_state.activate_persona(agent uuid, revision integer)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.activate_persona(agent uuid, revision integer) IS
'activate_persona(agent, revision) (operator): makes an existing revision the active one (reverting = activating an earlier revision; nothing is copied). Logged with who and when.';

CREATE FUNCTION agent_state_router._on_active_persona(server text, agent uuid, as_of timestamp with time zone)
RETURNS TABLE(revision integer, body text, activated_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.active_persona(agent, as_of);
$$;

CREATE FUNCTION agent_state.active_persona(agent uuid, as_of timestamp with time zone DEFAULT NULL::timestamp with time zone)
RETURNS TABLE(revision integer, body text, activated_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.active_persona(agent uuid, as_of timestamp with time zone) IS
'active_persona(agent, as_of => null) -> (revision, body, activated_at): the active revision now, or at the moment as_of (''infinity'': now; ''-infinity'': before any). No row when none was active then.';

CREATE FUNCTION agent_state_router._on_amend(server text, agent uuid, entry uuid, body text, expected_revision integer, source_message uuid, subject uuid, visibility text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.amend(agent, entry, body, expected_revision, source_message, subject, visibility);
$$;

CREATE FUNCTION agent_state.amend(agent uuid, entry uuid, body text, expected_revision integer, source_message uuid DEFAULT NULL::uuid, subject uuid DEFAULT NULL::uuid, visibility text DEFAULT NULL::text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.amend(agent uuid, entry uuid, body text, expected_revision integer, source_message uuid, subject uuid, visibility text) IS
'amend(agent, entry, body, expected_revision, source_message => null, subject => null, visibility => null) -> int: appends a revision and returns its number. expected_revision (required, 22004) must be the current revision, else 40001 and nothing is written. Forgotten or redacted entry: 55000. Evidence: all earlier evidence plus source_message (P0002/23503 if not this perspective''s). null subject or visibility keeps the current value; visibility only narrows (perspective to conversation; widening: 22023). source_type: agent with the message''s author as source actor when a source_message is given; otherwise operator for operators, agent (no source actor) for runtimes.';

CREATE FUNCTION agent_state_router._on_attach_embedding(server text, agent uuid, entry uuid, revision integer, model text, embedding real[])
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.attach_embedding(agent, entry, revision, model, embedding);
$$;

CREATE FUNCTION agent_state.attach_embedding(agent uuid, entry uuid, revision integer, model text, embedding real[])
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.attach_embedding(agent uuid, entry uuid, revision integer, model text, embedding real[]) IS
'attach_embedding(agent, entry, revision, model, embedding real[]) (runtime or operator): derived data for the semantic axis, one per revision and model (again: 23505, whatever its dimension; a concurrent second waits for the first to commit). Every embedding of one model in one agent has the same dimension, fixed by the first (22023). embedding: 1 to 16,000 finite components, a Euclidean norm from 1e-15 to 1e15; model: 1 to 200 characters (22023). A redacted entry: 55000. Needs the pgvector extension (vector) in the database: 0A000 without it.';

CREATE FUNCTION agent_state_router._on_authorize_tool(server text, agent uuid, tool text)
RETURNS TABLE(revision integer, config jsonb)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.authorize_tool(agent, tool);
$$;

CREATE FUNCTION agent_state.authorize_tool(agent uuid, tool text)
RETURNS TABLE(revision integer, config jsonb)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.authorize_tool(agent uuid, tool text) IS
'authorize_tool(agent, tool) -> (revision, config): the current grant, checked before use. Tool unknown, not granted to agent, or its current grant disabled: 42501.';

CREATE FUNCTION agent_state_router._on_chain_head(server text, agent uuid)
RETURNS TABLE("position" bigint, digest text, recorded_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.chain_head(agent);
$$;

CREATE FUNCTION agent_state.chain_head(agent uuid)
RETURNS TABLE("position" bigint, digest text, recorded_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.chain_head(agent uuid) IS
'chain_head(agent) -> table(position, digest, recorded_at): the agent''s current head of its hash chains (position: the records it covers; recorded_at: the moment it covers), to keep outside the database and give back to verify(agent, expected_head). Leaves out the caller''s own uncommitted writes.';

CREATE FUNCTION agent_state_router._on_checkpoint(server text, agent uuid, run uuid, frontier jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.checkpoint(agent, run, frontier);
$$;

CREATE FUNCTION agent_state.checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.checkpoint(agent uuid, run uuid, frontier jsonb) IS
'checkpoint(agent, run, frontier) -> int: appends the execution frontier (a JSON object or array, else 22023) numbered 1, 2, ... per run without gaps, also under concurrency. Allowed on open and budget_exhausted runs; finished: 55000.';

CREATE FUNCTION agent_state_router._on_context_for(server text, agent uuid, conversation uuid, message uuid, max_results integer, match text, query_embedding real[], embedding_model text)
RETURNS TABLE(entry uuid, revision integer, body text, subject uuid, score double precision, text_rank double precision, subject_match boolean, age interval)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.context_for(agent, conversation, message, max_results, match, query_embedding, embedding_model);
$$;

CREATE FUNCTION agent_state.context_for(agent uuid, conversation uuid, message uuid DEFAULT NULL::uuid, max_results integer DEFAULT 20, match text DEFAULT 'any'::text, query_embedding real[] DEFAULT NULL::real[], embedding_model text DEFAULT NULL::text)
RETURNS TABLE(entry uuid, revision integer, body text, subject uuid, score double precision, text_rank double precision, subject_match boolean, age interval)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.context_for(agent uuid, conversation uuid, message uuid, max_results integer, match text, query_embedding real[], embedding_model text) IS
'context_for(agent, conversation, message => null, max_results => 20, match => ''any'', query_embedding => null, embedding_model => null) -> same columns as recall: memory for automatic prompt context. The message (default: the conversation''s latest) gives the text, the current subject (its author) and the target audience (its audience). Eligible entries matching any word of the message (rare words weighing more; match ''all'': every word) come first, ranked as recall ranks them (with query_embedding: fused with the nearest, as recall does); the newest other eligible entries fill up to max_results (text_rank 0, score 0). A message without words, or a conversation without messages, ranks every eligible entry by subject and recency. message not in the conversation: P0002 (23503 if another perspective''s). max_results: null 22004, < 1 22023, capped at 1000.';

CREATE FUNCTION agent_state_router._on_continue_run(server text, agent uuid, run uuid, task_context jsonb, budget jsonb)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.continue_run(agent, run, task_context, budget);
$$;

CREATE FUNCTION agent_state.continue_run(agent uuid, run uuid, task_context jsonb, budget jsonb DEFAULT NULL::jsonb)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.continue_run(agent uuid, run uuid, task_context jsonb, budget jsonb) IS
'continue_run(agent, run, task_context, budget => null) -> uuid: a new run continuing the task (continued_from = run). An unfinished run (open or budget_exhausted) is finished as handed_off; a finished run may be continued too. A run is continued at most once (55000). Spent tokens, cost, tool calls and wall time carry over, never reset. budget: null keeps the limits; keys given replace those limits (raise, or lower while above what is spent: else 22023); keys not given keep theirs. task_context: JSON object or array.';

CREATE FUNCTION agent_state_router._on_create_agent(server text, handle text, display_name text, settings jsonb)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.create_agent(handle, display_name, settings);
$$;

CREATE FUNCTION agent_state_router._on_export_agent(server text, agent uuid)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.export_agent(agent);
$$;

CREATE FUNCTION agent_state.export_agent(agent uuid)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.export_agent(agent uuid) IS
'export_agent(agent) -> jsonb (operator): the agent''s whole state as one document: format, version, the agent (id, handle, stamps), its hosting grants by role name, every row of every table it owns (ids, revision numbers and stamps kept) and a digest over all of it. import_agent loads it into another database. Never writes.';

CREATE FUNCTION agent_state_router._on_export_markdown(server text, agent uuid, as_of timestamp with time zone)
RETURNS text
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.export_markdown(agent, as_of);
$$;

CREATE FUNCTION agent_state.export_markdown(agent uuid, as_of timestamp with time zone DEFAULT NULL::timestamp with time zone)
RETURNS text
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.export_markdown(agent uuid, as_of timestamp with time zone) IS
'export_markdown(agent, as_of => null) -> text: deterministic markdown view of the agent now, or as it was at the moment as_of: profile, active persona with its revision, live memories grouped by subject with revision, visibility and provenance, and the grant of each tool current then. Redacted entries are never shown. Reads only; the same state gives the same text.';

CREATE FUNCTION agent_state_router._on_find_agent(server text, handle text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.find_agent(handle);
$$;

CREATE FUNCTION agent_state_router._on_finish_run(server text, agent uuid, run uuid, outcome text, detail jsonb)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.finish_run(agent, run, outcome, detail);
$$;

CREATE FUNCTION agent_state.finish_run(agent uuid, run uuid, outcome text, detail jsonb DEFAULT '{}'::jsonb)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.finish_run(agent uuid, run uuid, outcome text, detail jsonb) IS
'finish_run(agent, run, outcome, detail => ''{}''): finishes an open or budget_exhausted run. outcome: succeeded, failed, cancelled, handed_off (else 22023); detail: JSON object. A finished run takes no further writes: finishing it again raises 55000. Unknown run: P0002.';

CREATE FUNCTION agent_state_router._on_forget(server text, agent uuid, entry uuid, expected_revision integer, reason text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.forget(agent, entry, expected_revision, reason);
$$;

CREATE FUNCTION agent_state.forget(agent uuid, entry uuid, expected_revision integer DEFAULT NULL::integer, reason text DEFAULT NULL::text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.forget(agent uuid, entry uuid, expected_revision integer, reason text) IS
'forget(agent, entry, expected_revision => null, reason => null) -> int: retires the entry (soft delete) by appending a forget revision (body, subject, visibility and evidence carried over, reason kept) and returns its number. Already forgotten or redacted: 55000. expected_revision given and not current: 40001, nothing written. Unknown entry: P0002 (23503 if another perspective''s).';

CREATE FUNCTION agent_state_router._on_fork_agent(server text, agent uuid, handle text, as_of timestamp with time zone, display_name text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.fork_agent(agent, handle, as_of, display_name);
$$;

CREATE FUNCTION agent_state_router._on_fork_origin(server text, agent uuid)
RETURNS TABLE(origin uuid, as_of timestamp with time zone, forked_at timestamp with time zone, forked_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.fork_origin(agent);
$$;

CREATE FUNCTION agent_state.fork_origin(agent uuid)
RETURNS TABLE(origin uuid, as_of timestamp with time zone, forked_at timestamp with time zone, forked_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.fork_origin(agent uuid) IS
'fork_origin(agent) -> table(origin, as_of, forked_at, forked_by) (operator): the agent this one was forked from, the moment its state was copied as of, when and by whom; no row when the agent is not a fork.';

CREATE FUNCTION agent_state_router._on_grant_hosting(server text, agent uuid, host regrole)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.grant_hosting(agent, host);
$$;

CREATE FUNCTION agent_state.grant_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.grant_hosting(agent uuid, host regrole) IS
'grant_hosting(agent, host) (operator): role host (and its members) may act for agent. Granting twice is a no-op. A role name that does not exist fails as PostgreSQL reads it as a regrole, before the call (42704); an OID that names no role: 22023.';

CREATE FUNCTION agent_state_router._on_grant_tool(server text, agent uuid, tool text, enabled boolean, config jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.grant_tool(agent, tool, enabled, config);
$$;

CREATE FUNCTION agent_state.grant_tool(agent uuid, tool text, enabled boolean, config jsonb DEFAULT '{}'::jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.grant_tool(agent uuid, tool text, enabled boolean, config jsonb) IS
'grant_tool(agent, tool, enabled, config => ''{}'') -> int (operator): appends grant revision n+1 for agent and tool, config validated against the tool''s config_schema (22023 naming the field, e.g. config.limit; over 1,000,000 bytes or nested deeper than 32 levels: 22023). A disabled grant accepts config ''{}'' whatever the schema requires. Unregistered tool: P0002; enabled or config null: 22004.';

CREATE FUNCTION agent_state_router._on_graph_copy_thread(server text, agent uuid, source_thread_id text, target_thread_id text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_copy_thread(agent, source_thread_id, target_thread_id);
$$;

CREATE FUNCTION agent_state.graph_copy_thread(agent uuid, source_thread_id text, target_thread_id text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_copy_thread(agent uuid, source_thread_id text, target_thread_id text) IS
'graph_copy_thread(agent, source_thread_id, target_thread_id) -> int (for the LangGraph checkpointer): copies every checkpoint and write of a thread to another thread of the same agent (a conversation and a run of its own, resuming from the newest copied checkpoint). A source without checkpoints: 0.';

CREATE FUNCTION agent_state_router._on_graph_delete_for_runs(server text, agent uuid, graph_run_ids text[], reason text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_delete_for_runs(agent, graph_run_ids, reason);
$$;

CREATE FUNCTION agent_state.graph_delete_for_runs(agent uuid, graph_run_ids text[], reason text DEFAULT 'delete_for_runs'::text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_delete_for_runs(agent uuid, graph_run_ids text[], reason text) IS
'graph_delete_for_runs(agent, graph_run_ids, reason => ''delete_for_runs'') -> int (for the LangGraph checkpointer): removes the checkpoints (and their writes) whose metadata run_id is one of graph_run_ids, through one audited purge record per thread.';

CREATE FUNCTION agent_state_router._on_graph_delete_thread(server text, agent uuid, thread_id text, reason text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_delete_thread(agent, thread_id, reason);
$$;

CREATE FUNCTION agent_state.graph_delete_thread(agent uuid, thread_id text, reason text DEFAULT 'delete_thread'::text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_delete_thread(agent uuid, thread_id text, reason text) IS
'graph_delete_thread(agent, thread_id, reason => ''delete_thread'') -> int (for the LangGraph checkpointer): removes every checkpoint payload and write of the thread through an audited purge record (graph_purges); the thread''s conversation, runs and run checkpoints stay. Returns how many checkpoints were removed (a thread without any: 0, nothing written).';

CREATE FUNCTION agent_state_router._on_graph_item_delete(server text, agent uuid, namespace text[], key text)
RETURNS boolean
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_item_delete(agent, namespace, key);
$$;

CREATE FUNCTION agent_state.graph_item_delete(agent uuid, namespace text[], key text)
RETURNS boolean
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_item_delete(agent uuid, namespace text[], key text) IS
'graph_item_delete(agent, namespace, key) -> boolean (for the LangGraph store): forgets the item''s entry (its history stays); false when there is no live item.';

CREATE FUNCTION agent_state_router._on_graph_item_put(server text, agent uuid, namespace text[], key text, value jsonb, body text, message uuid)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.graph_item_put(agent, namespace, key, value, body, message);
$$;

CREATE FUNCTION agent_state.graph_item_put(agent uuid, namespace text[], key text, value jsonb, body text, message uuid DEFAULT NULL::uuid)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_item_put(agent uuid, namespace text[], key text, value jsonb, body text, message uuid) IS
'graph_item_put(agent, namespace, key, value, body, message => null) -> (entry, revision) (for the LangGraph store): the item is a memory entry (body: its searchable text) with the value kept per revision; a live key is amended, a deleted one re-created. With message: remembered from it (its author and audience are the provenance). Without: an operator records an item no conversation''s recall returns; a runtime gets 22004 (no evidence is invented).';

CREATE FUNCTION agent_state_router._on_graph_item_search(server text, agent uuid, namespace_prefix text[], query text, filter jsonb, max_results integer, skip integer, conversation uuid, item_key text)
RETURNS TABLE(namespace text[], key text, value jsonb, created_at timestamp with time zone, updated_at timestamp with time zone, score double precision)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.graph_item_search(agent, namespace_prefix, query, filter, max_results, skip, conversation, item_key);
$$;

CREATE FUNCTION agent_state.graph_item_search(agent uuid, namespace_prefix text[], query text DEFAULT NULL::text, filter jsonb DEFAULT NULL::jsonb, max_results integer DEFAULT 10, skip integer DEFAULT 0, conversation uuid DEFAULT NULL::uuid, item_key text DEFAULT NULL::text)
RETURNS TABLE(namespace text[], key text, value jsonb, created_at timestamp with time zone, updated_at timestamp with time zone, score double precision)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_item_search(agent uuid, namespace_prefix text[], query text, filter jsonb, max_results integer, skip integer, conversation uuid, item_key text) IS
'graph_item_search(agent, namespace_prefix, query => null, filter => null, max_results => 10, skip => 0, conversation => null, item_key => null) -> (namespace, key, value, created_at, updated_at, score) (for the LangGraph store): live items under the prefix (with item_key, the one item of that key in exactly the namespace namespace_prefix; get is this), value containing filter, matching any word of query (score: its rank), newest first otherwise; created_at is when the item (its entry) was created, updated_at its last revision. With a conversation, only items eligible for its context. Reads only.';

CREATE FUNCTION agent_state_router._on_graph_list(server text, agent uuid, thread text, namespace text, checkpoint text, filter jsonb, before text, max_results integer)
RETURNS TABLE(thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb, run_id uuid, write_task_ids text[], write_channels text[], write_types text[], write_values bytea[])
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.graph_list(agent, thread, namespace, checkpoint, filter, before, max_results);
$$;

CREATE FUNCTION agent_state.graph_list(agent uuid, thread text DEFAULT NULL::text, namespace text DEFAULT NULL::text, checkpoint text DEFAULT NULL::text, filter jsonb DEFAULT NULL::jsonb, before text DEFAULT NULL::text, max_results integer DEFAULT NULL::integer)
RETURNS TABLE(thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb, run_id uuid, write_task_ids text[], write_channels text[], write_types text[], write_values bytea[])
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_list(agent uuid, thread text, namespace text, checkpoint text, filter jsonb, before text, max_results integer) IS
'graph_list(agent, thread => null, namespace => null, checkpoint => null (an id), filter => null, before => null (an id), max_results => null) -> (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, payload_type, payload, metadata, run_id, write_task_ids, write_channels, write_types, write_values) (for the LangGraph checkpointer): stored checkpoints newest first (run_id: the agent_state run each belongs to, for recover_run), each with its pending writes; filter matches metadata (JSON containment). Reads only.';

CREATE FUNCTION agent_state_router._on_graph_list_namespaces(server text, agent uuid, prefix text[], suffix text[], max_depth integer, max_results integer, skip integer)
RETURNS TABLE(namespace text[])
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.graph_list_namespaces(agent, prefix, suffix, max_depth, max_results, skip);
$$;

CREATE FUNCTION agent_state.graph_list_namespaces(agent uuid, prefix text[] DEFAULT NULL::text[], suffix text[] DEFAULT NULL::text[], max_depth integer DEFAULT NULL::integer, max_results integer DEFAULT 100, skip integer DEFAULT 0)
RETURNS TABLE(namespace text[])
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_list_namespaces(agent uuid, prefix text[], suffix text[], max_depth integer, max_results integer, skip integer) IS
'graph_list_namespaces(agent, prefix => null, suffix => null, max_depth => null, max_results => 100, skip => 0) -> namespace (for the LangGraph store): the distinct namespaces of live items (''*'' in prefix or suffix matches any label), cut to max_depth labels, sorted. Reads only.';

CREATE FUNCTION agent_state_router._on_graph_prune(server text, agent uuid, thread_ids text[], strategy text, reason text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_prune(agent, thread_ids, strategy, reason);
$$;

CREATE FUNCTION agent_state.graph_prune(agent uuid, thread_ids text[], strategy text DEFAULT 'keep_latest'::text, reason text DEFAULT NULL::text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_prune(agent uuid, thread_ids text[], strategy text, reason text) IS
'graph_prune(agent, thread_ids, strategy => ''keep_latest'', reason => null) -> int (for the LangGraph checkpointer): keep_latest removes all but the newest checkpoint of each namespace of each thread, delete removes all; through one audited purge record per thread. strategy: 22023 otherwise.';

CREATE FUNCTION agent_state_router._on_graph_put(server text, agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_put(agent, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, payload_type, payload, metadata);
$$;

CREATE FUNCTION agent_state.graph_put(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_put(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb) IS
'graph_put(agent, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, payload_type, payload, metadata) (for the LangGraph checkpointer): stores a serialized checkpoint. The thread is a conversation (connector langgraph); metadata.run_id names the LangGraph run, which becomes a run continuing the thread''s latest one; the checkpoint is recorded as that run''s frontier (recover_run). Storing an id again is a no-op.';

CREATE FUNCTION agent_state_router._on_graph_put_writes(server text, agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, task_path text, idxs integer[], channels text[], value_types text[], writes_values bytea[])
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.graph_put_writes(agent, thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idxs, channels, value_types, writes_values);
$$;

CREATE FUNCTION agent_state.graph_put_writes(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, task_path text, idxs integer[], channels text[], value_types text[], writes_values bytea[])
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.graph_put_writes(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, task_path text, idxs integer[], channels text[], value_types text[], writes_values bytea[]) IS
'graph_put_writes(agent, thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idxs, channels, value_types, writes_values) (for the LangGraph checkpointer): stores a task''s pending writes of a checkpoint of the thread (which may be stored after them); a write stored again is kept, except special writes (idx < 0), which are replaced.';

CREATE FUNCTION agent_state_router._on_import_agent(server text, document jsonb)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.import_agent(document);
$$;

CREATE FUNCTION agent_state_router._on_import_markdown(server text, agent uuid, document text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.import_markdown(agent, document);
$$;

CREATE FUNCTION agent_state.import_markdown(agent uuid, document text)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.import_markdown(agent uuid, document text) IS
'import_markdown(agent, document) -> int (operator): stores the document as an import and makes one memory entry (source_type import, visibility perspective) per list item; returns the number created (0 when the document has no list items). Headings create no actors: a "### Name (<actor id>)" heading sets the subject only for an actor of this agent. Blank document or longer than 1,000,000 characters, or an item over 100,000: 22023.';

CREATE FUNCTION agent_state_router._on_index_embeddings(server text, model text, dimensions integer, agent uuid)
RETURNS text
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.index_embeddings(model, dimensions, agent);
$$;

CREATE FUNCTION agent_state_router._on_link_identity(server text, agent uuid, actor uuid, connector text, external_id text)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.link_identity(agent, actor, connector, external_id);
$$;

CREATE FUNCTION agent_state.link_identity(agent uuid, actor uuid, connector text, external_id text)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.link_identity(agent uuid, actor uuid, connector text, external_id text) IS
'link_identity(agent, actor, connector, external_id): another connector identity for the same actor, inside this perspective only. Already linked to another actor: 23505; linking again to the same actor is a no-op.';

CREATE FUNCTION agent_state_router._on_list_agents(server text)
RETURNS TABLE(agent uuid, handle text, display_name text, created_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.list_agents();
$$;

CREATE FUNCTION agent_state_router._on_list_conversations(server text, agent uuid, max_results integer)
RETURNS TABLE(conversation uuid, connector text, external_ref text, kind text, created_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.list_conversations(agent, max_results);
$$;

CREATE FUNCTION agent_state.list_conversations(agent uuid, max_results integer DEFAULT 100)
RETURNS TABLE(conversation uuid, connector text, external_ref text, kind text, created_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.list_conversations(agent uuid, max_results integer) IS
'list_conversations(agent, max_results => 100) -> table(conversation, connector, external_ref, kind, created_at): the agent''s conversations, newest first by creation. max_results from 1 to 10000.';

CREATE FUNCTION agent_state_router._on_list_memories(server text, agent uuid, include_forgotten boolean, max_results integer)
RETURNS TABLE(entry uuid, revision integer, live boolean, body text, subject uuid, visibility text, source_type text, created_at timestamp with time zone, revised_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.list_memories(agent, include_forgotten, max_results);
$$;

CREATE FUNCTION agent_state.list_memories(agent uuid, include_forgotten boolean DEFAULT false, max_results integer DEFAULT 100)
RETURNS TABLE(entry uuid, revision integer, live boolean, body text, subject uuid, visibility text, source_type text, created_at timestamp with time zone, revised_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.list_memories(agent uuid, include_forgotten boolean, max_results integer) IS
'list_memories(agent, include_forgotten => false, max_results => 100) -> table(entry, revision, live, body, subject, visibility, source_type, created_at, revised_at): the agent''s memory entries (live ones; with include_forgotten, forgotten and redacted ones too), newest first by creation, each in its current state. No eligibility is applied: this is a listing for the agent''s operators and runtimes, not retrieval. max_results from 1 to 10000.';

CREATE FUNCTION agent_state_router._on_list_runs(server text, agent uuid, max_results integer)
RETURNS TABLE(run uuid, conversation uuid, status text, continued_from uuid, created_at timestamp with time zone, finished_at timestamp with time zone, spent_tokens numeric, spent_cost_usd numeric, spent_tool_calls bigint)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.list_runs(agent, max_results);
$$;

CREATE FUNCTION agent_state.list_runs(agent uuid, max_results integer DEFAULT 100)
RETURNS TABLE(run uuid, conversation uuid, status text, continued_from uuid, created_at timestamp with time zone, finished_at timestamp with time zone, spent_tokens numeric, spent_cost_usd numeric, spent_tool_calls bigint)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.list_runs(agent uuid, max_results integer) IS
'list_runs(agent, max_results => 100) -> table(run, conversation, status, continued_from, created_at, finished_at, spent_tokens, spent_cost_usd, spent_tool_calls): the agent''s runs, newest first by creation. max_results from 1 to 10000.';

CREATE FUNCTION agent_state_router._on_memory_entry(server text, agent uuid, entry uuid, as_of timestamp with time zone, conversation uuid)
RETURNS TABLE(revision integer, body text, subject uuid, visibility text, source_type text, live boolean, created_at timestamp with time zone, revised_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.memory_entry(agent, entry, as_of, conversation);
$$;

CREATE FUNCTION agent_state.memory_entry(agent uuid, entry uuid, as_of timestamp with time zone DEFAULT NULL::timestamp with time zone, conversation uuid DEFAULT NULL::uuid)
RETURNS TABLE(revision integer, body text, subject uuid, visibility text, source_type text, live boolean, created_at timestamp with time zone, revised_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.memory_entry(agent uuid, entry uuid, as_of timestamp with time zone, conversation uuid) IS
'memory_entry(agent, entry, as_of => null, conversation => null) -> (revision, body, subject, visibility, source_type, live, created_at, revised_at): one entry''s current state (or its latest revision at as_of), read by id in one lookup. With a conversation: a row only when the entry may enter that conversation''s context (recall''s eligibility rules). Unknown entry: P0002 (23503 if another perspective''s); infinite as_of: 22023.';

CREATE FUNCTION agent_state_router._on_memory_history(server text, agent uuid, entry uuid)
RETURNS TABLE(revision integer, operation text, body text, subject uuid, visibility text, source_type text, source_actor uuid, source_messages uuid[], created_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.memory_history(agent, entry);
$$;

CREATE FUNCTION agent_state.memory_history(agent uuid, entry uuid)
RETURNS TABLE(revision integer, operation text, body text, subject uuid, visibility text, source_type text, source_actor uuid, source_messages uuid[], created_at timestamp with time zone)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.memory_history(agent uuid, entry uuid) IS
'memory_history(agent, entry) -> (revision, operation, body, subject, visibility, source_type, source_actor, source_messages, created_at), oldest first. operation: create, amend, forget. source_messages: the revision''s full evidence set (sorted; empty for notes and imports). Redacted entries show ''[redacted]'' bodies. Unknown entry: P0002 (23503 if another perspective''s).';

CREATE FUNCTION agent_state_router._on_move_step(server text, agent uuid, step text, peer text, document jsonb)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.move_step(agent, step, peer, document);
$$;

CREATE FUNCTION agent_state.move_step(agent uuid, step text, peer text DEFAULT NULL::text, document jsonb DEFAULT NULL::jsonb)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.move_step(agent uuid, step text, peer text, document jsonb) IS
'move_step(agent, step, peer => null, document => null) -> jsonb (operator): one step of moving an agent between shards, for a router''s move_agent: begin (freeze: calls fail with 55006), export (after older transactions end), import (a frozen copy), digest, activate, retire (the copy here then answers as an unknown agent), abort, state. Wrong state: 55000.';

CREATE FUNCTION agent_state_router._on_note(server text, agent uuid, body text, subject uuid)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.note(agent, body, subject);
$$;

CREATE FUNCTION agent_state.note(agent uuid, body text, subject uuid DEFAULT NULL::uuid)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.note(agent uuid, body text, subject uuid) IS
'note(agent, body, subject => null) -> (entry, revision) (operator): an operator-authored memory with no evidence messages, visibility perspective; it restricts no audience. body: 1 to 100,000 characters (22023).';

CREATE FUNCTION agent_state_router._on_open_conversation(server text, agent uuid, connector text, external_ref text, kind text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.open_conversation(agent, connector, external_ref, kind);
$$;

CREATE FUNCTION agent_state.open_conversation(agent uuid, connector text, external_ref text, kind text DEFAULT 'group'::text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.open_conversation(agent uuid, connector text, external_ref text, kind text) IS
'open_conversation(agent, connector, external_ref, kind => ''group'') -> uuid. kind: direct, group, public. Idempotent on (agent, connector, external_ref): opening again returns the same conversation and never changes its kind.';

CREATE FUNCTION agent_state_router._on_pending_embeddings(server text, agent uuid, model text, max_results integer)
RETURNS TABLE(entry uuid, revision integer, body text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.pending_embeddings(agent, model, max_results);
$$;

CREATE FUNCTION agent_state.pending_embeddings(agent uuid, model text, max_results integer DEFAULT 100)
RETURNS TABLE(entry uuid, revision integer, body text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.pending_embeddings(agent uuid, model text, max_results integer) IS
'pending_embeddings(agent, model, max_results => 100) -> (entry, revision, body): the current revisions of live entries that have no embedding of model yet, oldest first, for a worker to embed and attach_embedding. max_results: null 22004, < 1 22023, capped at 1000. Needs pgvector (0A000 without it).';

CREATE FUNCTION agent_state_router._on_persona_history(server text, agent uuid)
RETURNS TABLE(revision integer, body text, created_at timestamp with time zone, created_by text, is_active boolean)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.persona_history(agent);
$$;

CREATE FUNCTION agent_state.persona_history(agent uuid)
RETURNS TABLE(revision integer, body text, created_at timestamp with time zone, created_by text, is_active boolean)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.persona_history(agent uuid) IS
'persona_history(agent) -> (revision, body, created_at, created_by, is_active), oldest first.';

CREATE FUNCTION agent_state_router._on_profile_history(server text, agent uuid)
RETURNS TABLE(revision integer, display_name text, settings jsonb, created_at timestamp with time zone, created_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.profile_history(agent);
$$;

CREATE FUNCTION agent_state.profile_history(agent uuid)
RETURNS TABLE(revision integer, display_name text, settings jsonb, created_at timestamp with time zone, created_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.profile_history(agent uuid) IS
'profile_history(agent) -> table(revision, display_name, settings, created_at, created_by): every profile revision, oldest first; the newest is current.';

CREATE FUNCTION agent_state_router._on_recall(server text, agent uuid, query text, conversation uuid, current_subject uuid, max_results integer, as_of timestamp with time zone, match text, query_embedding real[], embedding_model text)
RETURNS TABLE(entry uuid, revision integer, body text, subject uuid, score double precision, text_rank double precision, subject_match boolean, age interval)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.recall(agent, query, conversation, current_subject, max_results, as_of, match, query_embedding, embedding_model);
$$;

CREATE FUNCTION agent_state.recall(agent uuid, query text, conversation uuid DEFAULT NULL::uuid, current_subject uuid DEFAULT NULL::uuid, max_results integer DEFAULT 10, as_of timestamp with time zone DEFAULT NULL::timestamp with time zone, match text DEFAULT 'all'::text, query_embedding real[] DEFAULT NULL::real[], embedding_model text DEFAULT NULL::text)
RETURNS TABLE(entry uuid, revision integer, body text, subject uuid, score double precision, text_rank double precision, subject_match boolean, age interval)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.recall(agent uuid, query text, conversation uuid, current_subject uuid, max_results integer, as_of timestamp with time zone, match text, query_embedding real[], embedding_model text) IS
'recall(agent, query, conversation => null, current_subject => null, max_results => 10, as_of => null, match => ''all'', query_embedding => null, embedding_model => null) -> (entry, revision, body, subject, score, text_rank, subject_match, age): full-text search (match ''all'': websearch_to_tsquery syntax, ts_rank; ''any'': any word of the query, text_rank the share of the query''s idf weight it covers, rare words weighing more; english) over the revisions eligible for the conversation (its latest message''s audience; none: only operator notes and all-public evidence), or as they were at as_of. score = text_rank * (1 + subject_boost if subject = current_subject) * 0.5 ^ (age / recency_half_life); null or blank query: text_rank 1. Order: score desc, newest, entry id. max_results: null 22004, < 1 22023, capped at 1000. query over 10,000 characters, infinite as_of: 22023. Unknown conversation or current_subject: P0002 (23503 if another perspective''s). With query_embedding (and embedding_model; pgvector needed, 0A000): the lexical matches plus the eligible revisions nearest to it by cosine distance (at least 50, or 5 x max_results), fused as w/(60 + lexical rank) + 1/(60 + vector rank) (lexical rank: 1 + the candidates with a text_rank over 1.2 times its own; w 2 when a candidate holds every query word, else 1), times the subject boost and recency decay (score); eligibility applies before the neighbours are taken.';

CREATE FUNCTION agent_state_router._on_record_message(server text, agent uuid, conversation uuid, author uuid, body text, audience uuid[], external_ref text, observed_at timestamp with time zone)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.record_message(agent, conversation, author, body, audience, external_ref, observed_at);
$$;

CREATE FUNCTION agent_state.record_message(agent uuid, conversation uuid, author uuid, body text, audience uuid[] DEFAULT NULL::uuid[], external_ref text DEFAULT NULL::text, observed_at timestamp with time zone DEFAULT now())
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.record_message(agent uuid, conversation uuid, author uuid, body text, audience uuid[], external_ref text, observed_at timestamp with time zone) IS
'record_message(agent, conversation, author, body, audience => null, external_ref => null, observed_at => now()) -> uuid: a durable message event. audience: the actors who could observe it (the author is always added); required (22004) except in a public conversation, where null means public. Recording the same external_ref in the conversation again returns the existing id. body up to 100000 characters; observed_at must be finite (22023).';

CREATE FUNCTION agent_state_router._on_record_model_call(server text, agent uuid, run uuid, snapshot uuid, provider text, model text, request jsonb, response jsonb, usage jsonb, status text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.record_model_call(agent, run, snapshot, provider, model, request, response, usage, status);
$$;

CREATE FUNCTION agent_state.record_model_call(agent uuid, run uuid, snapshot uuid, provider text, model text, request jsonb, response jsonb DEFAULT NULL::jsonb, usage jsonb DEFAULT '{}'::jsonb, status text DEFAULT 'ok'::text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.record_model_call(agent uuid, run uuid, snapshot uuid, provider text, model text, request jsonb, response jsonb, usage jsonb, status text) IS
'record_model_call(agent, run, snapshot, provider, model, request, response => null, usage => ''{}'', status => ''ok'') -> uuid. snapshot must be a snapshot of the same run (23503). status: ok, error, timeout. usage: {"tokens": integer, "cost_usd": number}, non-negative, missing keys 0, other keys 22023; charged to the run in the same transaction. Run already budget_exhausted: 53400; finished: 55000; nothing written. The call whose charge makes spending reach a limit is recorded and the run becomes budget_exhausted.';

CREATE FUNCTION agent_state_router._on_record_tool_call(server text, agent uuid, run uuid, tool text, input jsonb, model_call uuid)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.record_tool_call(agent, run, tool, input, model_call);
$$;

CREATE FUNCTION agent_state.record_tool_call(agent uuid, run uuid, tool text, input jsonb, model_call uuid DEFAULT NULL::uuid)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.record_tool_call(agent uuid, run uuid, tool text, input jsonb, model_call uuid) IS
'record_tool_call(agent, run, tool, input, model_call => null) -> uuid: a tool call under the agent''s current enabled grant of tool (42501 unknown, not granted or disabled), recording the grant revision. model_call must be of the same run (23503). Charges one unit of tool_calls: run already budget_exhausted 53400, finished 55000, nothing written.';

CREATE FUNCTION agent_state_router._on_record_tool_result(server text, agent uuid, tool_call uuid, output jsonb, status text)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.record_tool_result(agent, tool_call, output, status);
$$;

CREATE FUNCTION agent_state.record_tool_result(agent uuid, tool_call uuid, output jsonb, status text)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.record_tool_result(agent uuid, tool_call uuid, output jsonb, status text) IS
'record_tool_result(agent, tool_call, output, status): appends a result; status ok, error or unconfirmed (effect unknown). What is believed is the latest result. While the outcome is unknown (no result, or latest unconfirmed) a result may be recorded at any time, also after the run finished; after ok or error the outcome is settled and a further result raises 55000.';

CREATE FUNCTION agent_state_router._on_record_turn(server text, agent uuid, run uuid, prompt text, provider text, model text, request jsonb, response jsonb, usage jsonb, status text, persona_revision integer, memory jsonb, messages uuid[], tool_calls jsonb, frontier jsonb)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.record_turn(agent, run, prompt, provider, model, request, response, usage, status, persona_revision, memory, messages, tool_calls, frontier);
$$;

CREATE FUNCTION agent_state.record_turn(agent uuid, run uuid, prompt text, provider text, model text, request jsonb, response jsonb DEFAULT NULL::jsonb, usage jsonb DEFAULT '{}'::jsonb, status text DEFAULT 'ok'::text, persona_revision integer DEFAULT NULL::integer, memory jsonb DEFAULT '[]'::jsonb, messages uuid[] DEFAULT '{}'::uuid[], tool_calls jsonb DEFAULT '[]'::jsonb, frontier jsonb DEFAULT NULL::jsonb)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.record_turn(agent uuid, run uuid, prompt text, provider text, model text, request jsonb, response jsonb, usage jsonb, status text, persona_revision integer, memory jsonb, messages uuid[], tool_calls jsonb, frontier jsonb) IS
'record_turn(agent, run, prompt, provider, model, request, response => null, usage => ''{}'', status => ''ok'', persona_revision => null, memory => ''[]'', messages => ''{}'', tool_calls => ''[]'', frontier => null) -> {"snapshot", "model_call", "tool_calls": [ids], "checkpoint"}: one model call and what came of it in one call, each part as snapshot_prompt, record_model_call, record_tool_call, record_tool_result and checkpoint write it (same checks and SQLSTATEs); all or nothing. tool_calls: [{"tool", "input", "output" and "status" (optional, together)}].';

CREATE FUNCTION agent_state_router._on_recover_run(server text, agent uuid, run uuid)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.recover_run(agent, run);
$$;

CREATE FUNCTION agent_state.recover_run(agent uuid, run uuid)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.recover_run(agent uuid, run uuid) IS
'recover_run(agent, run) -> jsonb with keys run, status, checkpoint (latest number or null), frontier (its frontier or null), budget {limits, spent, remaining} (each with tokens, cost_usd, tool_calls, wall_time_seconds; null = no limit; remaining = limit - spent), unconfirmed_tool_calls (calls of this run and the runs it continues whose outcome is unknown: [{tool_call, run, tool, input, grant_revision, model_call, recorded_at, result: ''unconfirmed'' or ''none'', output, result_at}]), persona (the CURRENT active {revision, body} or null, never old prompt text), tool_grants (current grants [{tool, revision, enabled, config}]), and conversation, trigger_message, continued_from, continued_by, task_context, started_at, finished_at, detail. Unknown run: P0002.';

CREATE FUNCTION agent_state_router._on_redact(server text, agent uuid, entry uuid, reason text)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.redact(agent, entry, reason);
$$;

CREATE FUNCTION agent_state.redact(agent uuid, entry uuid, reason text)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.redact(agent uuid, entry uuid, reason text) IS
'redact(agent, entry, reason) (operator): erasure. Retires the entry and replaces the body of every revision of it, and the prompt of every snapshot that used one of them, with ''[redacted]'', and erases their embeddings and LangGraph item values; keeps the operation log, subjects and provenance, and records who, when, why and the sha256 of each text removed (memory_redactions). reason required (22004/22023). Forgotten entries can be redacted; redacting twice: 55000. Unknown entry: P0002 (23503 if another perspective''s). The copies of the entry in every agent of its lineage (fork_agent: the origin, its forks and theirs) are redacted with it, each with its own record.';

CREATE FUNCTION agent_state_router._on_register_tool(server text, name text, version text, config_schema jsonb)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.register_tool(name, version, config_schema);
$$;

CREATE FUNCTION agent_state_router._on_remember(server text, agent uuid, body text, source_message uuid, subject uuid, visibility text)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.remember(agent, body, source_message, subject, visibility);
$$;

CREATE FUNCTION agent_state.remember(agent uuid, body text, source_message uuid, subject uuid DEFAULT NULL::uuid, visibility text DEFAULT 'perspective'::text)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.remember(agent uuid, body text, source_message uuid, subject uuid, visibility text) IS
'remember(agent, body, source_message, subject => null, visibility => ''perspective'') -> (entry, revision): an agent-authored memory. source_message is required (22004) and must be a message of this perspective (P0002; 23503 if another perspective''s): its author is the source actor and its audience the evidence. subject: an actor of this perspective or null. visibility: perspective or conversation (22023). body: 1 to 100,000 characters (22023).';

CREATE FUNCTION agent_state_router._on_remember_many(server text, agent uuid, memories jsonb)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.remember_many(agent, memories);
$$;

CREATE FUNCTION agent_state.remember_many(agent uuid, memories jsonb)
RETURNS TABLE(entry uuid, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.remember_many(agent uuid, memories jsonb) IS
'remember_many(agent, memories jsonb) -> (entry, revision) per item: memories is an array of up to 1,000 objects {"body", "source_message", "subject" (optional), "visibility" (optional)}, each written as remember writes it; all or nothing. An error names the item: memories[i].<argument> with remember''s SQLSTATE.';

CREATE FUNCTION agent_state_router._on_resolve_actor(server text, agent uuid, connector text, external_id text, display_name text, kind text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.resolve_actor(agent, connector, external_id, display_name, kind);
$$;

CREATE FUNCTION agent_state.resolve_actor(agent uuid, connector text, external_id text, display_name text DEFAULT NULL::text, kind text DEFAULT 'human'::text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.resolve_actor(agent uuid, connector text, external_id text, display_name text, kind text) IS
'resolve_actor(agent, connector, external_id, display_name => null, kind => ''human'') -> uuid: the actor this perspective knows under that identity, created if new. kind: human, agent, bot, system. connector 1-200 characters and at most 400 bytes, external_id 1-1000 characters and at most 2000 bytes, display_name 1-1000 characters (22023).';

CREATE FUNCTION agent_state_router._on_restore_agent(server text, agent uuid, as_of timestamp with time zone, reason text)
RETURNS TABLE(kind text, object text, operation text, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.restore_agent(agent, as_of, reason);
$$;

CREATE FUNCTION agent_state.restore_agent(agent uuid, as_of timestamp with time zone, reason text)
RETURNS TABLE(kind text, object text, operation text, revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.restore_agent(agent uuid, as_of timestamp with time zone, reason text) IS
'restore_agent(agent, as_of, reason) -> table(kind, object, operation, revision) (operator): brings persona, profile, tool grants and memory back to what they were at as_of by writing new revisions (persona activate, profile revise, tool grant, memory amend/restore/forget) and returns them. Never widens visibility, never drops evidence, never un-redacts; sharing grants are not carried. Restoring twice writes nothing the second time; a future as_of is now. as_of or reason null: 22004.';

CREATE FUNCTION agent_state_router._on_revise_persona(server text, agent uuid, body text, activate boolean)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.revise_persona(agent, body, activate);
$$;

CREATE FUNCTION agent_state.revise_persona(agent uuid, body text, activate boolean DEFAULT true)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.revise_persona(agent uuid, body text, activate boolean) IS
'revise_persona(agent, body, activate => true) -> int (operator): appends revision n+1. The first revision is always activated.';

CREATE FUNCTION agent_state_router._on_revise_profile(server text, agent uuid, display_name text, settings jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.revise_profile(agent, display_name, settings);
$$;

CREATE FUNCTION agent_state.revise_profile(agent uuid, display_name text DEFAULT NULL::text, settings jsonb DEFAULT NULL::jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.revise_profile(agent uuid, display_name text, settings jsonb) IS
'revise_profile(agent, display_name => null, settings => null) -> int (operator): writes profile revision n+1; null keeps the current value. display_name 1-1000 characters; settings are validated as in create_agent (22023). create_agent wrote revision 1.';

CREATE FUNCTION agent_state_router._on_revoke_hosting(server text, agent uuid, host regrole)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.revoke_hosting(agent, host);
$$;

CREATE FUNCTION agent_state.revoke_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.revoke_hosting(agent uuid, host regrole) IS
'revoke_hosting(agent, host) (operator): host may no longer act for agent, from the next statement on. Revoking a grant that does not exist is a no-op. A role name that does not exist fails as PostgreSQL reads it as a regrole, before the call (42704).';

CREATE FUNCTION agent_state_router._on_session_add_items(server text, agent uuid, conversation uuid, items jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.session_add_items(agent, conversation, items);
$$;

CREATE FUNCTION agent_state.session_add_items(agent uuid, conversation uuid, items jsonb)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.session_add_items(agent uuid, conversation uuid, items jsonb) IS
'session_add_items(agent, conversation, items) -> integer: appends each element of the JSON array items (any JSON value: messages, tool calls, tool outputs, reasoning items), in order, to the session held by that conversation; returns how many. Items are never changed. items null: 22004; not an array, or over 10 MB: 22023; unknown conversation: P0002.';

CREATE FUNCTION agent_state_router._on_session_clear(server text, agent uuid, conversation uuid)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.session_clear(agent, conversation);
$$;

CREATE FUNCTION agent_state.session_clear(agent uuid, conversation uuid)
RETURNS integer
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.session_clear(agent uuid, conversation uuid) IS
'session_clear(agent, conversation) -> integer: retracts every item of the session not retracted yet and returns how many; the items stay in session_item_history. Unknown conversation: P0002.';

CREATE FUNCTION agent_state_router._on_session_get_items(server text, agent uuid, conversation uuid, max_results integer)
RETURNS TABLE(item_no bigint, item jsonb)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.session_get_items(agent, conversation, max_results);
$$;

CREATE FUNCTION agent_state.session_get_items(agent uuid, conversation uuid, max_results integer DEFAULT NULL::integer)
RETURNS TABLE(item_no bigint, item jsonb)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.session_get_items(agent uuid, conversation uuid, max_results integer) IS
'session_get_items(agent, conversation, max_results => null) -> table(item_no, item): the session''s items not retracted, oldest first; with max_results (0 or more), the newest max_results of them. Never writes. Unknown conversation: P0002.';

CREATE FUNCTION agent_state_router._on_session_item_history(server text, agent uuid, conversation uuid)
RETURNS TABLE(item_no bigint, item jsonb, created_at timestamp with time zone, created_by text, retracted text, retracted_at timestamp with time zone, retracted_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.session_item_history(agent, conversation);
$$;

CREATE FUNCTION agent_state.session_item_history(agent uuid, conversation uuid)
RETURNS TABLE(item_no bigint, item jsonb, created_at timestamp with time zone, created_by text, retracted text, retracted_at timestamp with time zone, retracted_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.session_item_history(agent uuid, conversation uuid) IS
'session_item_history(agent, conversation) -> table(item_no, item, created_at, created_by, retracted, retracted_at, retracted_by): every item the session held, oldest first, with its retraction (pop or clear, when, by whom) if it was retracted. Unknown conversation: P0002.';

CREATE FUNCTION agent_state_router._on_session_pop_item(server text, agent uuid, conversation uuid)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.session_pop_item(agent, conversation);
$$;

CREATE FUNCTION agent_state.session_pop_item(agent uuid, conversation uuid)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.session_pop_item(agent uuid, conversation uuid) IS
'session_pop_item(agent, conversation) -> jsonb: retracts the newest item of the session that is not retracted yet and returns it (null when none is left). The item stays in session_item_history with who retracted it and when. Unknown conversation: P0002.';

CREATE FUNCTION agent_state_router._on_shard_inventory(server text)
RETURNS jsonb
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.shard_inventory();
$$;

CREATE FUNCTION agent_state_router._on_share(server text, agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.share(agent, entry, revision, conversation);
$$;

CREATE FUNCTION agent_state.share(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.share(agent uuid, entry uuid, revision integer, conversation uuid) IS
'share(agent, entry, revision, conversation) (operator): grants that exact revision into the conversation: eligible there whatever its audience, while it is the entry''s current revision and the entry is live. Sharing an active grant again is a no-op. Unknown entry or conversation: P0002 (23503 if another perspective''s); unknown revision: P0002.';

CREATE FUNCTION agent_state_router._on_snapshot_prompt(server text, agent uuid, run uuid, prompt text, persona_revision integer, memory jsonb, messages uuid[])
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.snapshot_prompt(agent, run, prompt, persona_revision, memory, messages);
$$;

CREATE FUNCTION agent_state.snapshot_prompt(agent uuid, run uuid, prompt text, persona_revision integer DEFAULT NULL::integer, memory jsonb DEFAULT '[]'::jsonb, messages uuid[] DEFAULT '{}'::uuid[])
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.snapshot_prompt(agent uuid, run uuid, prompt text, persona_revision integer, memory jsonb, messages uuid[]) IS
'snapshot_prompt(agent, run, prompt, persona_revision => null, memory => ''[]'', messages => ''{}'') -> uuid: the audit record of what the agent knew for one model call: the prompt (required, at most 10,000,000 characters, else 22023), its sha256 (hex), and the sources used: persona revision, memory revisions as [{"entry": uuid, "revision": n}] (malformed: 22023 naming memory[i]) and messages. Sources must be this agent''s (P0002 unknown, 23503 another agent''s; enforced by composite foreign keys); a redacted entry cannot be used (55000). The run must be unfinished (55000). Snapshots are immutable; only redact blanks the prompt of a snapshot that used a redacted entry.';

CREATE FUNCTION agent_state_router._on_snapshot_sources(server text, agent uuid, snapshot uuid)
RETURNS TABLE(kind text, entry uuid, revision integer, message uuid, persona_revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.snapshot_sources(agent, snapshot);
$$;

CREATE FUNCTION agent_state.snapshot_sources(agent uuid, snapshot uuid)
RETURNS TABLE(kind text, entry uuid, revision integer, message uuid, persona_revision integer)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.snapshot_sources(agent uuid, snapshot uuid) IS
'snapshot_sources(agent, snapshot) -> (kind, entry, revision, message, persona_revision): what the agent knew for that call: kind ''persona'' (persona_revision), then ''memory'' (entry, revision) and ''message'' (message) rows in prompt order. Unknown snapshot: P0002.';

CREATE FUNCTION agent_state_router._on_start_run(server text, agent uuid, conversation uuid, trigger_message uuid, budget jsonb)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.start_run(agent, conversation, trigger_message, budget);
$$;

CREATE FUNCTION agent_state.start_run(agent uuid, conversation uuid DEFAULT NULL::uuid, trigger_message uuid DEFAULT NULL::uuid, budget jsonb DEFAULT '{}'::jsonb)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.start_run(agent uuid, conversation uuid, trigger_message uuid, budget jsonb) IS
'start_run(agent, conversation => null, trigger_message => null, budget => ''{}'') -> uuid: a new open run. conversation and trigger_message must be this agent''s (P0002; 23503 when another agent''s); trigger_message must be in conversation (22023; conversation defaults to the trigger message''s). budget: JSON object of limits, keys tokens (integer), cost_usd, tool_calls (integer), wall_time_seconds, each positive; missing = no limit; else 22023 naming the key.';

CREATE FUNCTION agent_state_router._on_timeline(server text, agent uuid, since timestamp with time zone, until timestamp with time zone, max_results integer)
RETURNS TABLE(at timestamp with time zone, kind text, object text, operation text, revision integer, changed_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.timeline(agent, since, until, max_results);
$$;

CREATE FUNCTION agent_state.timeline(agent uuid, since timestamp with time zone DEFAULT NULL::timestamp with time zone, until timestamp with time zone DEFAULT NULL::timestamp with time zone, max_results integer DEFAULT 1000)
RETURNS TABLE(at timestamp with time zone, kind text, object text, operation text, revision integer, changed_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.timeline(agent uuid, since timestamp with time zone, until timestamp with time zone, max_results integer) IS
'timeline(agent, since => null, until => null, max_results => 1000) -> table(at, kind, object, operation, revision, changed_by): every change of the state with since <= at <= until, oldest first. kind persona (revise, activate), profile (revise), memory (create, amend, forget, restore, redact; object: the entry id), share (share, unshare; object: the entry id), tool (grant; object: the tool name). max_results 1-100000 (22023).';

CREATE FUNCTION agent_state_router._on_tool_grant_history(server text, agent uuid, tool text)
RETURNS TABLE(revision integer, enabled boolean, config jsonb, created_at timestamp with time zone, created_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.tool_grant_history(agent, tool);
$$;

CREATE FUNCTION agent_state.tool_grant_history(agent uuid, tool text)
RETURNS TABLE(revision integer, enabled boolean, config jsonb, created_at timestamp with time zone, created_by text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.tool_grant_history(agent uuid, tool text) IS
'tool_grant_history(agent, tool) -> (revision, enabled, config, created_at, created_by), oldest first. Unregistered tool: P0002; registered but never granted to agent: no rows.';

CREATE FUNCTION agent_state_router._on_tool_grants(server text, agent uuid, as_of timestamp with time zone)
RETURNS TABLE(tool text, revision integer, enabled boolean, config jsonb)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.tool_grants(agent, as_of);
$$;

CREATE FUNCTION agent_state.tool_grants(agent uuid, as_of timestamp with time zone DEFAULT NULL::timestamp with time zone)
RETURNS TABLE(tool text, revision integer, enabled boolean, config jsonb)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.tool_grants(agent uuid, as_of timestamp with time zone) IS
'tool_grants(agent, as_of => null) -> table(tool, revision, enabled, config): the grant revision of each tool current now, or at the moment as_of (a later moment than now: now), disabled ones included; tools by name.';

CREATE FUNCTION agent_state_router._on_unshare(server text, agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.unshare(agent, entry, revision, conversation);
$$;

CREATE FUNCTION agent_state.unshare(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route(agent);
    RUN ON 0;
$$;

COMMENT ON FUNCTION agent_state.unshare(agent uuid, entry uuid, revision integer, conversation uuid) IS
'unshare(agent, entry, revision, conversation) (operator): revokes the active grant (stamped revoked_at/revoked_by; never deleted). No active grant: P0002. Unknown entry or conversation: P0002 (23503 if another perspective''s).';

CREATE FUNCTION agent_state_router._on_verify(server text, agent uuid, expected_head text)
RETURNS TABLE(check_name text, object text, detail text)
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT * FROM agent_state.verify(agent, expected_head);
$$;

CREATE FUNCTION agent_state_router._on_version(server text)
RETURNS text
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._named(server);
    RUN ON 0;
    SELECT agent_state.version();
$$;

-- Who may execute each API function: as on a shard (a runtime refused here gets
-- the same 42501 as from one server). The _on_ functions: privileges.sql.
REVOKE ALL ON FUNCTION agent_state.activate_persona(agent uuid, revision integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.activate_persona(agent uuid, revision integer) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.active_persona(agent uuid, as_of timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.active_persona(agent uuid, as_of timestamp with time zone) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.amend(agent uuid, entry uuid, body text, expected_revision integer, source_message uuid, subject uuid, visibility text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.amend(agent uuid, entry uuid, body text, expected_revision integer, source_message uuid, subject uuid, visibility text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.attach_embedding(agent uuid, entry uuid, revision integer, model text, embedding real[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.attach_embedding(agent uuid, entry uuid, revision integer, model text, embedding real[]) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.authorize_tool(agent uuid, tool text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.authorize_tool(agent uuid, tool text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.chain_head(agent uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.chain_head(agent uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.checkpoint(agent uuid, run uuid, frontier jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.checkpoint(agent uuid, run uuid, frontier jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.context_for(agent uuid, conversation uuid, message uuid, max_results integer, match text, query_embedding real[], embedding_model text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.context_for(agent uuid, conversation uuid, message uuid, max_results integer, match text, query_embedding real[], embedding_model text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.continue_run(agent uuid, run uuid, task_context jsonb, budget jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.continue_run(agent uuid, run uuid, task_context jsonb, budget jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.create_agent(handle text, display_name text, settings jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.create_agent(handle text, display_name text, settings jsonb) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.export_agent(agent uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.export_agent(agent uuid) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.export_markdown(agent uuid, as_of timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.export_markdown(agent uuid, as_of timestamp with time zone) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.find_agent(handle text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.find_agent(handle text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.finish_run(agent uuid, run uuid, outcome text, detail jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.finish_run(agent uuid, run uuid, outcome text, detail jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.forget(agent uuid, entry uuid, expected_revision integer, reason text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.forget(agent uuid, entry uuid, expected_revision integer, reason text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.fork_agent(agent uuid, handle text, as_of timestamp with time zone, display_name text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.fork_agent(agent uuid, handle text, as_of timestamp with time zone, display_name text) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.fork_origin(agent uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.fork_origin(agent uuid) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.grant_hosting(agent uuid, host regrole) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.grant_hosting(agent uuid, host regrole) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.grant_tool(agent uuid, tool text, enabled boolean, config jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.grant_tool(agent uuid, tool text, enabled boolean, config jsonb) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.graph_copy_thread(agent uuid, source_thread_id text, target_thread_id text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_copy_thread(agent uuid, source_thread_id text, target_thread_id text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_delete_for_runs(agent uuid, graph_run_ids text[], reason text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_delete_for_runs(agent uuid, graph_run_ids text[], reason text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_delete_thread(agent uuid, thread_id text, reason text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_delete_thread(agent uuid, thread_id text, reason text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_item_delete(agent uuid, namespace text[], key text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_item_delete(agent uuid, namespace text[], key text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_item_put(agent uuid, namespace text[], key text, value jsonb, body text, message uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_item_put(agent uuid, namespace text[], key text, value jsonb, body text, message uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_item_search(agent uuid, namespace_prefix text[], query text, filter jsonb, max_results integer, skip integer, conversation uuid, item_key text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_item_search(agent uuid, namespace_prefix text[], query text, filter jsonb, max_results integer, skip integer, conversation uuid, item_key text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_list(agent uuid, thread text, namespace text, checkpoint text, filter jsonb, before text, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_list(agent uuid, thread text, namespace text, checkpoint text, filter jsonb, before text, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_list_namespaces(agent uuid, prefix text[], suffix text[], max_depth integer, max_results integer, skip integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_list_namespaces(agent uuid, prefix text[], suffix text[], max_depth integer, max_results integer, skip integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_prune(agent uuid, thread_ids text[], strategy text, reason text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_prune(agent uuid, thread_ids text[], strategy text, reason text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_put(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_put(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.graph_put_writes(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, task_path text, idxs integer[], channels text[], value_types text[], writes_values bytea[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.graph_put_writes(agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, task_id text, task_path text, idxs integer[], channels text[], value_types text[], writes_values bytea[]) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.import_agent(document jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.import_agent(document jsonb) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.import_markdown(agent uuid, document text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.import_markdown(agent uuid, document text) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.index_embeddings(model text, dimensions integer, agent uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.index_embeddings(model text, dimensions integer, agent uuid) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.link_identity(agent uuid, actor uuid, connector text, external_id text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.link_identity(agent uuid, actor uuid, connector text, external_id text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.list_agents() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.list_agents() TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.list_conversations(agent uuid, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.list_conversations(agent uuid, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.list_memories(agent uuid, include_forgotten boolean, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.list_memories(agent uuid, include_forgotten boolean, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.list_runs(agent uuid, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.list_runs(agent uuid, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.memory_entry(agent uuid, entry uuid, as_of timestamp with time zone, conversation uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.memory_entry(agent uuid, entry uuid, as_of timestamp with time zone, conversation uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.memory_history(agent uuid, entry uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.memory_history(agent uuid, entry uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.move_step(agent uuid, step text, peer text, document jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.move_step(agent uuid, step text, peer text, document jsonb) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.note(agent uuid, body text, subject uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.note(agent uuid, body text, subject uuid) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.open_conversation(agent uuid, connector text, external_ref text, kind text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.open_conversation(agent uuid, connector text, external_ref text, kind text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.pending_embeddings(agent uuid, model text, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.pending_embeddings(agent uuid, model text, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.persona_history(agent uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.persona_history(agent uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.profile_history(agent uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.profile_history(agent uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.recall(agent uuid, query text, conversation uuid, current_subject uuid, max_results integer, as_of timestamp with time zone, match text, query_embedding real[], embedding_model text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.recall(agent uuid, query text, conversation uuid, current_subject uuid, max_results integer, as_of timestamp with time zone, match text, query_embedding real[], embedding_model text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.record_message(agent uuid, conversation uuid, author uuid, body text, audience uuid[], external_ref text, observed_at timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.record_message(agent uuid, conversation uuid, author uuid, body text, audience uuid[], external_ref text, observed_at timestamp with time zone) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.record_model_call(agent uuid, run uuid, snapshot uuid, provider text, model text, request jsonb, response jsonb, usage jsonb, status text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.record_model_call(agent uuid, run uuid, snapshot uuid, provider text, model text, request jsonb, response jsonb, usage jsonb, status text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.record_tool_call(agent uuid, run uuid, tool text, input jsonb, model_call uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.record_tool_call(agent uuid, run uuid, tool text, input jsonb, model_call uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.record_tool_result(agent uuid, tool_call uuid, output jsonb, status text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.record_tool_result(agent uuid, tool_call uuid, output jsonb, status text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.record_turn(agent uuid, run uuid, prompt text, provider text, model text, request jsonb, response jsonb, usage jsonb, status text, persona_revision integer, memory jsonb, messages uuid[], tool_calls jsonb, frontier jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.record_turn(agent uuid, run uuid, prompt text, provider text, model text, request jsonb, response jsonb, usage jsonb, status text, persona_revision integer, memory jsonb, messages uuid[], tool_calls jsonb, frontier jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.recover_run(agent uuid, run uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.recover_run(agent uuid, run uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.redact(agent uuid, entry uuid, reason text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.redact(agent uuid, entry uuid, reason text) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.register_tool(name text, version text, config_schema jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.register_tool(name text, version text, config_schema jsonb) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.remember(agent uuid, body text, source_message uuid, subject uuid, visibility text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.remember(agent uuid, body text, source_message uuid, subject uuid, visibility text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.remember_many(agent uuid, memories jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.remember_many(agent uuid, memories jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.resolve_actor(agent uuid, connector text, external_id text, display_name text, kind text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.resolve_actor(agent uuid, connector text, external_id text, display_name text, kind text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.restore_agent(agent uuid, as_of timestamp with time zone, reason text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.restore_agent(agent uuid, as_of timestamp with time zone, reason text) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.revise_persona(agent uuid, body text, activate boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.revise_persona(agent uuid, body text, activate boolean) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.revise_profile(agent uuid, display_name text, settings jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.revise_profile(agent uuid, display_name text, settings jsonb) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.revoke_hosting(agent uuid, host regrole) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.revoke_hosting(agent uuid, host regrole) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.session_add_items(agent uuid, conversation uuid, items jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.session_add_items(agent uuid, conversation uuid, items jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.session_clear(agent uuid, conversation uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.session_clear(agent uuid, conversation uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.session_get_items(agent uuid, conversation uuid, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.session_get_items(agent uuid, conversation uuid, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.session_item_history(agent uuid, conversation uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.session_item_history(agent uuid, conversation uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.session_pop_item(agent uuid, conversation uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.session_pop_item(agent uuid, conversation uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.shard_inventory() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.shard_inventory() TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.share(agent uuid, entry uuid, revision integer, conversation uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.share(agent uuid, entry uuid, revision integer, conversation uuid) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.snapshot_prompt(agent uuid, run uuid, prompt text, persona_revision integer, memory jsonb, messages uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.snapshot_prompt(agent uuid, run uuid, prompt text, persona_revision integer, memory jsonb, messages uuid[]) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.snapshot_sources(agent uuid, snapshot uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.snapshot_sources(agent uuid, snapshot uuid) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.start_run(agent uuid, conversation uuid, trigger_message uuid, budget jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.start_run(agent uuid, conversation uuid, trigger_message uuid, budget jsonb) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.timeline(agent uuid, since timestamp with time zone, until timestamp with time zone, max_results integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.timeline(agent uuid, since timestamp with time zone, until timestamp with time zone, max_results integer) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.tool_grant_history(agent uuid, tool text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.tool_grant_history(agent uuid, tool text) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.tool_grants(agent uuid, as_of timestamp with time zone) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.tool_grants(agent uuid, as_of timestamp with time zone) TO agent_state_operator, agent_state_runtime;
REVOKE ALL ON FUNCTION agent_state.unshare(agent uuid, entry uuid, revision integer, conversation uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.unshare(agent uuid, entry uuid, revision integer, conversation uuid) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.verify(agent uuid, expected_head text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.verify(agent uuid, expected_head text) TO agent_state_operator;
REVOKE ALL ON FUNCTION agent_state.version() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION agent_state.version() TO agent_state_operator, agent_state_runtime;
