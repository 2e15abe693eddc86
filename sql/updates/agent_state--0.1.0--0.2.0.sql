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
CREATE OR REPLACE FUNCTION agent_state.create_agent(
    handle text,
    display_name text DEFAULT NULL,
    settings jsonb DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    new_id uuid;
BEGIN
    PERFORM agent_state._json_within(settings, 'settings', 1000000);
    IF NOT agent_state._caller_is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('handle: role %I is not an agent_state operator',
                                        agent_state._caller());
    END IF;
    PERFORM agent_state._need_text(handle, 'handle', 200);
    IF display_name IS NOT NULL THEN
        PERFORM agent_state._need_text(display_name, 'display_name', 1000);
    END IF;
    PERFORM agent_state._check_settings(settings);
    INSERT INTO agent_state.agents AS a (handle, display_name, settings)
    VALUES (handle, display_name, settings)
    ON CONFLICT ON CONSTRAINT agents_handle_key DO NOTHING
    RETURNING a.runtime_agent_id INTO new_id;
    IF new_id IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505',
            MESSAGE = pg_catalog.format('handle: an agent with handle %L already exists', handle);
    END IF;
    RETURN new_id;
END
$$;

COMMENT ON FUNCTION agent_state.create_agent(text, text, jsonb) IS
'create_agent(handle, display_name => null, settings => ''{}'') -> uuid (operator). '
'handle (1-200 characters) is unique (23505); display_name, when given, 1-1000 characters. '
'settings: subject_boost (number from 0 to 1000000, default 1.0), recency_half_life '
'(positive interval text, default ''30 days''); bad settings raise 22023.';
CREATE OR REPLACE FUNCTION agent_state.grant_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(host, 'host');
    -- regrole input from an oid is not checked: refuse an oid that names no role.
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS r WHERE r.oid = host) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('host: no role with oid %s', host::oid);
    END IF;
    INSERT INTO agent_state.agent_hosts (runtime_agent_id, host, host_name)
    SELECT agent, host, r.rolname FROM pg_catalog.pg_roles AS r WHERE r.oid = host
    -- A row left behind by a dropped role whose OID this role now has names the
    -- old role and grants nothing (_holds_hosting): granting takes it over, and
    -- the row then says who granted it to the new role, and when.
    ON CONFLICT ON CONSTRAINT agent_hosts_pkey DO UPDATE
    SET host_name = excluded.host_name, created_at = pg_catalog.clock_timestamp(),
        created_by = agent_state._caller()
    WHERE agent_hosts.host_name OPERATOR(pg_catalog.<>) excluded.host_name;
END
$$;

COMMENT ON FUNCTION agent_state.grant_hosting(uuid, regrole) IS
'grant_hosting(agent, host) (operator): role host (and its members) may act for agent. '
'Granting twice is a no-op. A role name that does not exist fails as PostgreSQL reads it as a '
'regrole, before the call (42704); an OID that names no role: 22023.';
CREATE OR REPLACE FUNCTION agent_state.revoke_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(host, 'host');
    DELETE FROM agent_state.agent_hosts AS h
    WHERE h.runtime_agent_id = agent AND h.host = host;
END
$$;

COMMENT ON FUNCTION agent_state.revoke_hosting(uuid, regrole) IS
'revoke_hosting(agent, host) (operator): host may no longer act for agent, from the '
'next statement on. Revoking a grant that does not exist is a no-op. A role name that does not '
'exist fails as PostgreSQL reads it as a regrole, before the call (42704).';
-- A composite foreign key cannot reach into an array, so this does the same job
-- for audience members: each must be an actor of this perspective, and only a
-- public conversation may have a public (NULL) audience. Run after each message
-- insert and by verify().
CREATE OR REPLACE FUNCTION agent_state._check_audience(agent uuid, conversation uuid, audience uuid [])
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    missing uuid;
BEGIN
    IF audience IS NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.conversations AS c
            WHERE c.runtime_agent_id = agent
              AND c.conversation_id = conversation
              AND c.kind = 'public'
        ) THEN
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'audience: required outside a public conversation';
        END IF;
        RETURN;
    END IF;
    SELECT a INTO missing
    FROM pg_catalog.unnest(audience) AS a
    WHERE NOT EXISTS (
        SELECT FROM agent_state.actors AS x
        WHERE x.runtime_agent_id = agent AND x.actor_id = a
    )
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('audience: %s is not an actor of this perspective', missing);
    END IF;
    RETURN;
END
$$;
-- After a message insert (_check_audience).
CREATE OR REPLACE FUNCTION agent_state._check_message_audience()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_audience(NEW.runtime_agent_id, NEW.conversation_id, NEW.audience);
    RETURN NULL;
END
$$;
-- Conversations and message events.
CREATE OR REPLACE FUNCTION agent_state.open_conversation(
    agent uuid,
    connector text,
    external_ref text,
    kind text DEFAULT 'group'
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    conv uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_text(connector, 'connector', 200);
    PERFORM agent_state._need_text(external_ref, 'external_ref', 1000);
    PERFORM agent_state._need_one_of(kind, 'kind', ARRAY['direct', 'group', 'public']);

    -- A lookup of a conversation that exists writes nothing (so it works on a
    -- standby and in a read-only transaction); a new one is inserted, and a
    -- concurrent insert of the same one is found by the second lookup.
    SELECT c.conversation_id INTO conv
    FROM agent_state.conversations AS c
    WHERE c.runtime_agent_id = agent AND c.connector = connector AND c.external_ref = external_ref;
    IF FOUND THEN
        RETURN conv;
    END IF;
    INSERT INTO agent_state.conversations AS c (runtime_agent_id, connector, external_ref, kind)
    VALUES (agent, connector, external_ref, kind)
    ON CONFLICT ON CONSTRAINT conversations_external_key DO NOTHING
    RETURNING c.conversation_id INTO conv;
    IF conv IS NULL THEN
        SELECT c.conversation_id INTO conv
        FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.connector = connector
          AND c.external_ref = external_ref;
    END IF;
    RETURN conv;
END
$$;

COMMENT ON FUNCTION agent_state.open_conversation(uuid, text, text, text) IS
'open_conversation(agent, connector, external_ref, kind => ''group'') -> uuid. '
'kind: direct, group, public. Idempotent on (agent, connector, external_ref): '
'opening again returns the same conversation and never changes its kind.';
-- Binds a call to an agent's perspective. First statement of every agent-scoped
-- function. Operators may act for every agent; anyone else needs hosting of it.
-- An agent a runtime does not host is refused the same way whether or not it
-- exists, so a runtime learns nothing about other perspectives.
CREATE OR REPLACE FUNCTION agent_state._bind(agent uuid, operator_only boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    caller name;
BEGIN
    IF agent IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'agent: must not be null';
    END IF;
    -- The caller once; the operator test is _caller_is_operator() inlined (this
    -- runs first in every call).
    caller := agent_state._caller();
    IF pg_catalog.pg_has_role(caller, 'agent_state_operator', 'MEMBER') THEN
        IF NOT EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
        END IF;
        RETURN 'operator';
    END IF;
    IF operator_only THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('agent: role %I is not an agent_state operator', caller),
            HINT = 'Only members of agent_state_operator may do this.';
    END IF;
    IF NOT EXISTS (
        SELECT FROM agent_state.agent_hosts AS h
        WHERE h.runtime_agent_id = agent
          AND agent_state._holds_hosting(caller, h.host, h.host_name)
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('agent: role %I may not act for agent %s', caller, agent),
            HINT = 'An operator grants hosting with agent_state.grant_hosting.';
    END IF;
    RETURN 'runtime';
END
$$;
-- Insert triggers that run as the owner (SECURITY DEFINER) read other rows before
-- row-level security checks the new row. So that a role granted table privileges
-- learns nothing about an agent it may not act for (not even through which error
-- it gets), a guard trigger fires first on each of those tables (created by the
-- security pass, sql/security.sql): the role running the INSERT must be allowed
-- to act for the row's agent (42501). Deliberately not SECURITY DEFINER: current_user is the role
-- running the INSERT. Inside our SECURITY DEFINER functions (which bind the
-- caller before writing) that is the owner, normally a superuser, and operators
-- may act for every agent: for them the membership test answers at once, without
-- a query, and it is the guard triggers' WHEN clause, so the function is not even
-- called. Everyone else is tested like the agent_scope policy does.
CREATE OR REPLACE FUNCTION agent_state._guard_scope()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.pg_has_role(current_user, 'agent_state_operator', 'MEMBER') THEN
        RETURN NEW;
    END IF;
    -- The same test as the agent_scope policy, through the helpers it uses (the
    -- ones granted to the group roles).
    IF NOT (agent_state._caller_is_operator()
            OR NEW.runtime_agent_id = ANY (agent_state._hosted_agents())) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('runtime_agent_id: role %I may not act for agent %s',
                                        agent_state._caller(), NEW.runtime_agent_id);
    END IF;
    RETURN NEW;
END
$$;
-- Does role act through this hosting row? A row names its role twice: by OID
-- (regrole, which pg_dump writes and a restore reads back by name, failing when
-- the role does not exist) and by the name it had when granted. PostgreSQL does
-- not stop DROP ROLE at a regrole column, and a later role may get the same OID:
-- such a row names a role of another name and grants nothing. (A renamed role
-- loses its hosting the same way, until an operator grants it again.)
--
-- LANGUAGE sql without a SET clause so that it inlines into _bind and
-- _hosted_agents, which pin the search_path; not granted to anyone.
CREATE OR REPLACE FUNCTION agent_state._holds_hosting(role name, host regrole, host_name name)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT pg_catalog.pg_has_role(role, host, 'MEMBER')
        AND pg_catalog.pg_get_userbyid(host) OPERATOR(pg_catalog.=) host_name
$$;
-- Agents the caller hosts (directly or through a role it is a member of).
CREATE OR REPLACE FUNCTION agent_state._hosted_agents()
RETURNS uuid []
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.array_agg(DISTINCT h.runtime_agent_id), '{}')
    FROM agent_state.agent_hosts AS h
    WHERE agent_state._holds_hosting(agent_state._caller(), h.host, h.host_name)
$$;
-- Is a JSON argument within the size and depth limits that _json_within
-- enforces (a null fits)? For fast paths that must decide without raising;
-- anything that does not fit goes the way that raises the exact error. A SQL
-- function with no SET clause, so that it is inlined into its callers (all of
-- them pinned SECURITY DEFINER functions: only the owner may execute it).
-- STABLE as pg_column_size is: an IMMUTABLE one would not be inlined.
CREATE OR REPLACE FUNCTION agent_state._json_fits(val jsonb, max_bytes integer DEFAULT 10000000)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT val IS NULL
        OR (pg_catalog.pg_column_size(val) OPERATOR(pg_catalog.<=) max_bytes
            AND NOT pg_catalog.jsonb_path_exists(val, 'strict $.**{201}'::pg_catalog.jsonpath))
$$;
-- Size and depth limits of a JSON argument, checked before anything else reads it:
-- at most max_bytes stored bytes (pg_column_size reads the header of a stored
-- value) and at most max_depth levels of nesting (a scalar in the top-level object
-- or array is level 1), so that every later walk over the value stays far from
-- the stack limit. 22023 naming the argument. A value nested so deep that
-- PostgreSQL cannot parse it (thousands of levels) fails before any function runs,
-- with PostgreSQL's own 54001.
--
-- Limits (README): 10,000,000 bytes for request, response, input, output, frontier,
-- task_context, detail and memory; 1,000,000 for settings, budget, usage, config and
-- config_schema; 200 levels, 32 for a tool grant's config.
CREATE OR REPLACE FUNCTION agent_state._json_within(
    val jsonb,
    arg text,
    max_bytes integer DEFAULT 10000000,
    max_depth integer DEFAULT 200
)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.pg_column_size(val) > max_bytes THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: larger than %s bytes', arg,
                                        pg_catalog.to_char(max_bytes, 'FM999,999,999,999'));
    END IF;
    IF pg_catalog.jsonb_path_exists(val, ('strict $.**{' || (max_depth + 1) || '}')::jsonpath) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: nested deeper than %s levels', arg, max_depth);
    END IF;
END
$$;
-- Required text: null is 22004; blank or longer than max_len characters is 22023.
CREATE OR REPLACE FUNCTION agent_state._need_text(val text, arg text, max_len integer DEFAULT 100000)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    -- The length first, before anything copies the value: octet_length reads a
    -- stored value's size from its header, and a character takes at most 4 bytes.
    IF pg_catalog.octet_length(val) > max_len::bigint * 4 OR pg_catalog.length(val) > max_len THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: longer than %s characters', arg, max_len);
    END IF;
    IF pg_catalog.btrim(val, E' \t\r\n') = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be empty';
    END IF;
END
$$;
-- Numbers a row per agent (BEFORE INSERT; TG_ARGV[0] names the column): the next
-- number after the agent's highest, whatever the INSERT said. A global sequence
-- would let one perspective count another's activity (its imports, shares,
-- activations) from the gaps in its own numbers. The agent row lock serialises
-- the writers of one agent; these tables are written by operators, rarely.
-- A restore keeps the numbers it loads (the triggers' WHEN clause).
CREATE OR REPLACE FUNCTION agent_state._number_per_agent()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM FROM agent_state.agents AS a WHERE a.runtime_agent_id = NEW.runtime_agent_id
    FOR NO KEY UPDATE;
    EXECUTE pg_catalog.format(
        'SELECT coalesce(pg_catalog.max(t.%1$I), 0) + 1 FROM %2$s AS t WHERE t.runtime_agent_id = $1',
        TG_ARGV[0], TG_RELID::regclass)
    INTO n USING NEW.runtime_agent_id;
    NEW := pg_catalog.jsonb_populate_record(NEW, pg_catalog.jsonb_build_object(TG_ARGV[0], n));
    RETURN NEW;
END
$$;
-- Is the row being written by the extension's own code? Inside the product's
-- SECURITY DEFINER functions current_user is their owner: the owner of this
-- function, as of every function of the extension (at install, the owner of the
-- agent_state schema too). Not the schema's owner: an ALTER SCHEMA ... OWNER
-- later leaves the functions running as their old owner, and their writes would
-- then go through the insert triggers as well, charging a run twice.
-- SPEC section 1 lets a commit-time check skip the rows the functions write, as
-- long as a test proves each function keeps the invariant (tests/pgtap/
-- 520_own_writes.sql: verify() finds nothing after every kind of write) and every
-- other role's direct DML stays checked: a trigger's WHEN clause is evaluated as
-- the row is written, so a direct write by any other role, a superuser included,
-- still queues the check.
--
-- SECURITY INVOKER on purpose (it reads the writer's current_user), so it is
-- granted to the group roles like the other WHEN helpers (sql/privileges.sql).
-- PL/pgSQL rather than SQL: a SQL function with a SET clause is not inlined and is
-- planned again on every call (about 40 us in a WHEN clause, three times per
-- remember); PL/pgSQL keeps its plan for the session.
CREATE OR REPLACE FUNCTION agent_state._own_write()
RETURNS boolean
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN coalesce((
        SELECT pg_catalog.pg_get_userbyid(p.proowner) OPERATOR(pg_catalog.=) CURRENT_USER
        FROM pg_catalog.pg_proc AS p
        WHERE p.oid OPERATOR(pg_catalog.=) 'agent_state._own_write()'::pg_catalog.regprocedure
    ), false);
END
$$;
-- Is this statement part of a restore by pg_restore or psql of a pg_dump? Every
-- script pg_dump writes starts with SET row_security = off and an empty
-- search_path, and loads rows with COPY. The triggers that stamp audit columns,
-- derive values or check what a write claims skip such rows (WHEN NOT
-- _restoring()): the rows were written, stamped and checked when they were first
-- written, and load order across tables is pg_dump's, not the functions'. Only a
-- role that bypasses row-level security (a superuser or a BYPASSRLS role) can
-- write with row_security off: every table FORCEs row-level security, so for any
-- other role, the table owner included, such a statement fails before a trigger
-- runs. The extension's own functions pin a non-empty search_path, so a call made
-- in such a session is never taken for a restore. agent_state.verify() checks a
-- restored database. The append-only refusals never look at this.
--
-- PL/pgSQL without a SET clause: it reads the writer's own search_path, so it
-- cannot pin one; every name and operator in it is schema-qualified, so that
-- search_path cannot change what it means. It runs in trigger WHEN clauses, as
-- the writing role, so it is granted to the group roles (sql/privileges.sql).
-- Not LANGUAGE sql: a WHEN clause is prepared again for every statement, and
-- inlining a SQL function into it parses and analyses the function's body each
-- time (about a third of a one-row insert into a table with several triggers);
-- a PL/pgSQL function is compiled once per session.
CREATE OR REPLACE FUNCTION agent_state._restoring()
RETURNS boolean
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN pg_catalog.current_setting('row_security') OPERATOR(pg_catalog.=) 'off'
        AND pg_catalog.current_setting('search_path') OPERATOR(pg_catalog.=) '';
END
$$;
-- Every invariant the triggers hold, checked over the stored rows: for a DBA after
-- a restore (whose rows the triggers do not check: see _restoring), after a crash,
-- or at any time. The per-row checks are the functions the triggers call, so a
-- rule has one source; a row that fails is reported, not raised, so one run lists
-- every problem. Operators only: the report names rows of every agent.
CREATE OR REPLACE FUNCTION agent_state.verify()
RETURNS TABLE (check_name text, object text, detail text)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item record;
    what text;
    failed text;
BEGIN
    IF NOT agent_state._caller_is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('role %I is not an agent_state operator', agent_state._caller()),
            HINT = 'Only members of agent_state_operator may do this.';
    END IF;
    FOR item IN
        SELECT 'memory_entry' AS c, e.runtime_agent_id AS agent, e.entry_id AS id
        FROM agent_state.memory_entries AS e
        UNION ALL
        SELECT 'memory_redaction', d.runtime_agent_id, d.entry_id
        FROM agent_state.memory_redactions AS d
        UNION ALL
        SELECT DISTINCT 'persona', p.runtime_agent_id, p.runtime_agent_id
        FROM agent_state.persona_revisions AS p
        ORDER BY 1, 2, 3
    LOOP
        BEGIN
            CASE item.c
                WHEN 'memory_entry' THEN PERFORM agent_state._check_entry_state(item.agent, item.id);
                WHEN 'memory_redaction' THEN PERFORM agent_state._check_redaction(item.agent, item.id);
                ELSE PERFORM agent_state._check_persona(item.agent);
            END CASE;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, what = RETURNED_SQLSTATE;
            check_name := item.c;
            object := pg_catalog.format('agent %s: %s', item.agent, item.id);
            detail := what || ': ' || failed;
            RETURN NEXT;
        END;
    END LOOP;

    FOR item IN
        SELECT v.* FROM agent_state.memory_revisions AS v
        ORDER BY v.runtime_agent_id, v.entry_id, v.revision
    LOOP
        BEGIN
            PERFORM agent_state._check_revision(
                item.runtime_agent_id, item.entry_id, item.revision, item.source_message_id, item.source_actor_id,
                item.evidence_observers, item.evidence_conversations, item.visibility, item.created_at);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, what = RETURNED_SQLSTATE;
            check_name := 'memory_revision';
            object := pg_catalog.format('agent %s: entry %s revision %s', item.runtime_agent_id, item.entry_id,
                                        item.revision);
            detail := what || ': ' || failed;
            RETURN NEXT;
        END;
    END LOOP;

    FOR item IN
        SELECT m.runtime_agent_id, m.message_id, m.conversation_id, m.audience
        FROM agent_state.messages AS m
        ORDER BY m.runtime_agent_id, m.message_id
    LOOP
        BEGIN
            PERFORM agent_state._check_audience(item.runtime_agent_id, item.conversation_id, item.audience);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, what = RETURNED_SQLSTATE;
            check_name := 'message_audience';
            object := pg_catalog.format('agent %s: message %s', item.runtime_agent_id, item.message_id);
            detail := what || ': ' || failed;
            RETURN NEXT;
        END;
    END LOOP;

    FOR item IN
        SELECT s.runtime_agent_id, s.snapshot_id, s.memory_count, s.message_count
        FROM agent_state.prompt_snapshots AS s
        ORDER BY s.runtime_agent_id, s.snapshot_id
    LOOP
        BEGIN
            PERFORM agent_state._check_snapshot(item.runtime_agent_id, item.snapshot_id, item.memory_count,
                                                item.message_count);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, what = RETURNED_SQLSTATE;
            check_name := 'snapshot_sources';
            object := pg_catalog.format('agent %s: snapshot %s', item.runtime_agent_id, item.snapshot_id);
            detail := what || ': ' || failed;
            RETURN NEXT;
        END;
    END LOOP;

    FOR item IN SELECT t.tool_name FROM agent_state.tools AS t ORDER BY t.tool_name LOOP
        BEGIN
            PERFORM agent_state._check_tool(item.tool_name);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, what = RETURNED_SQLSTATE;
            check_name := 'tool';
            object := item.tool_name;
            detail := what || ': ' || failed;
            RETURN NEXT;
        END;
    END LOOP;

    -- Set-based rules: what the insert triggers derive.
    RETURN QUERY
    SELECT 'snapshot_hash', pg_catalog.format('agent %s: snapshot %s', s.runtime_agent_id, s.snapshot_id),
           'prompt_sha256 is not the sha256 of the prompt (and the snapshot is not redacted)'
    FROM agent_state.prompt_snapshots AS s
    WHERE s.redacted_at IS NULL
      AND s.prompt_sha256 <> pg_catalog.encode(
          pg_catalog.sha256(pg_catalog.convert_to(s.prompt, 'UTF8')), 'hex')
    ORDER BY s.runtime_agent_id, s.snapshot_id;

    -- A run's spending is what the run it continues had spent plus its own charges.
    RETURN QUERY
    SELECT 'run_budget', pg_catalog.format('agent %s: run %s', x.runtime_agent_id, x.run_id),
           pg_catalog.format('spent (%s tokens, %s usd, %s tool calls) is not the sum of its charges '
                             '(%s, %s, %s)', x.spent_tokens, x.spent_cost_usd, x.spent_tool_calls,
                             x.tokens, x.cost_usd, x.tool_calls)
    FROM (
        SELECT u.runtime_agent_id, u.run_id, u.spent_tokens, u.spent_cost_usd, u.spent_tool_calls,
               coalesce(p.spent_tokens, 0) + coalesce(mc.tokens, 0) AS tokens,
               coalesce(p.spent_cost_usd, 0) + coalesce(mc.cost_usd, 0) AS cost_usd,
               coalesce(p.spent_tool_calls, 0) + coalesce(tc.n, 0) AS tool_calls
        FROM agent_state.runs AS u
        LEFT JOIN agent_state.runs AS p
          ON p.runtime_agent_id = u.runtime_agent_id AND p.run_id = u.continued_from
        LEFT JOIN LATERAL (
            SELECT pg_catalog.sum(m.tokens) AS tokens, pg_catalog.sum(m.cost_usd) AS cost_usd
            FROM agent_state.model_calls AS m
            WHERE m.runtime_agent_id = u.runtime_agent_id AND m.run_id = u.run_id
        ) AS mc ON true
        LEFT JOIN LATERAL (
            SELECT pg_catalog.count(*) AS n
            FROM agent_state.tool_calls AS t
            WHERE t.runtime_agent_id = u.runtime_agent_id AND t.run_id = u.run_id
        ) AS tc ON true
    ) AS x
    WHERE (x.spent_tokens, x.spent_cost_usd, x.spent_tool_calls)
        IS DISTINCT FROM (x.tokens, x.cost_usd, x.tool_calls)
    ORDER BY x.runtime_agent_id, x.run_id;

    RETURN QUERY
    SELECT 'checkpoint_numbering', pg_catalog.format('agent %s: run %s', c.runtime_agent_id, c.run_id),
           pg_catalog.format('%s checkpoints numbered %s to %s', pg_catalog.count(*),
                             pg_catalog.min(c.checkpoint), pg_catalog.max(c.checkpoint))
    FROM agent_state.checkpoints AS c
    GROUP BY c.runtime_agent_id, c.run_id
    HAVING pg_catalog.min(c.checkpoint) <> 1 OR pg_catalog.max(c.checkpoint) <> pg_catalog.count(*)
    ORDER BY c.runtime_agent_id, c.run_id;

    RETURN QUERY
    SELECT 'tool_result_numbering',
           pg_catalog.format('agent %s: tool call %s', t.runtime_agent_id, t.tool_call_id),
           pg_catalog.format('%s results numbered %s to %s', pg_catalog.count(*),
                             pg_catalog.min(t.result_no), pg_catalog.max(t.result_no))
    FROM agent_state.tool_results AS t
    GROUP BY t.runtime_agent_id, t.tool_call_id
    HAVING pg_catalog.min(t.result_no) <> 1 OR pg_catalog.max(t.result_no) <> pg_catalog.count(*)
    ORDER BY t.runtime_agent_id, t.tool_call_id;

    -- Hosting that grants nothing: its role was dropped (or renamed) after the grant.
    RETURN QUERY
    SELECT 'hosting', pg_catalog.format('agent %s: host %s', h.runtime_agent_id, h.host_name),
           pg_catalog.format('role %s no longer has this name (now %s): the row grants nothing',
                             h.host::oid, pg_catalog.pg_get_userbyid(h.host))
    FROM agent_state.agent_hosts AS h
    WHERE pg_catalog.pg_get_userbyid(h.host) OPERATOR(pg_catalog.<>) h.host_name
    ORDER BY h.runtime_agent_id, h.host_name;

END
$$;

COMMENT ON FUNCTION agent_state.verify() IS
'verify() -> table(check_name, object, detail) (operator): every invariant the triggers hold, '
'checked over the stored rows (after a restore, a crash, or any time); no rows means all hold.';
-- The version comes from agent_state.control: make writes it in place of the
-- placeholder when it builds the install and upgrade scripts.
CREATE OR REPLACE FUNCTION agent_state.version()
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT '0.2.0'::text $$;

COMMENT ON FUNCTION agent_state.version() IS
'version() -> text: the installed agent_state version.';
-- Appends a checkpoint numbered after the run's latest (gap-free: the caller
-- holds the run's row lock, which queues concurrent checkpoints of the run; the
-- checkpoint insert trigger, which would lock and number, skips the extension's
-- own writes). Shared by checkpoint and record_turn.
CREATE OR REPLACE FUNCTION agent_state._append_checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    n integer;
BEGIN
    -- ORDER BY ... LIMIT 1 (not max()): always the backward index scan.
    INSERT INTO agent_state.checkpoints AS k (runtime_agent_id, run_id, checkpoint, frontier)
    SELECT agent, run, coalesce((
        SELECT p.checkpoint + 1 FROM agent_state.checkpoints AS p
        WHERE p.runtime_agent_id = agent AND p.run_id = run
        ORDER BY p.checkpoint DESC
        LIMIT 1), 1), frontier
    RETURNING k.checkpoint INTO n;
    RETURN n;
END
$$;
-- Parses a budget (see above) into its limits; NULL = no limit.
CREATE OR REPLACE FUNCTION agent_state._budget_limits(
    budget jsonb,
    OUT tokens numeric, OUT cost_usd numeric, OUT tool_calls bigint, OUT wall_time_seconds numeric
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    unknown text;
BEGIN
    PERFORM agent_state._json_within(budget, 'budget', 1000000);
    PERFORM agent_state._need_json(budget, 'budget', ARRAY['object']);
    SELECT k INTO unknown
    FROM pg_catalog.jsonb_object_keys(budget - ARRAY['tokens', 'cost_usd', 'tool_calls', 'wall_time_seconds']) AS k
    ORDER BY k
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format(
                'budget.%s: unknown budget key; known keys are tokens, cost_usd, tool_calls, wall_time_seconds',
                unknown);
    END IF;
    tokens := agent_state._json_amount(budget, 'budget', 'tokens', true, true, 1e15);
    cost_usd := agent_state._json_amount(budget, 'budget', 'cost_usd', true, false, 1e12);
    tool_calls := agent_state._json_amount(budget, 'budget', 'tool_calls', true, true, 1e9);
    wall_time_seconds := agent_state._json_amount(budget, 'budget', 'wall_time_seconds', true, false, 1e10);
END
$$;
-- A snapshot has exactly the sources it declares. Run at commit of a new
-- snapshot and by verify().
CREATE OR REPLACE FUNCTION agent_state._check_snapshot(agent uuid, snapshot uuid, declared_memory integer, declared_messages integer)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT pg_catalog.count(*) FROM agent_state.snapshot_memory AS m
        WHERE m.runtime_agent_id = agent AND m.snapshot_id = snapshot)
        <> declared_memory
        OR (SELECT pg_catalog.count(*) FROM agent_state.snapshot_messages AS m
            WHERE m.runtime_agent_id = agent AND m.snapshot_id = snapshot)
        <> declared_messages THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format('prompt_snapshots: snapshot %s does not have the sources it declares',
                                        snapshot);
    END IF;
    RETURN;
END
$$;
-- At commit of a new snapshot (_check_snapshot).
CREATE OR REPLACE FUNCTION agent_state._check_snapshot_sources()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_snapshot(NEW.runtime_agent_id, NEW.snapshot_id, NEW.memory_count, NEW.message_count);
    RETURN NULL;
END
$$;
-- Writes a checked snapshot: the row with the prompt's sha256 and its memory and
-- message sources, each distinct source once, numbered by its first position.
-- The caller has bound the call, checked every source and locked the unfinished
-- run (the snapshot insert trigger, which would do the locking and hashing, skips
-- the extension's own writes). Shared by snapshot_prompt and record_turn.
CREATE OR REPLACE FUNCTION agent_state._insert_snapshot(
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
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
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
-- Is memory, a snapshot's memory sources, in the usual form: a non-empty JSON
-- array of exactly {"entry": lower-case uuid, "revision": 1 .. 999999999}? Its
-- canonical text shows that (jsonb prints keys in a fixed order, strings
-- unescaped only when plain), and then every element passes the detailed
-- checks and its casts cannot fail. The hot path of snapshot_prompt and
-- record_turn; anything else takes their detailed path. A SQL function with no
-- SET clause, inlined into its callers (pinned SECURITY DEFINER functions; only
-- the owner may execute it).
CREATE OR REPLACE FUNCTION agent_state._memory_canonical(memory jsonb)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT memory::pg_catalog.text OPERATOR(pg_catalog.~) (
        '^\[\{"entry": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "revision": [1-9][0-9]{0,8}\}'
        '(, \{"entry": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "revision": [1-9][0-9]{0,8}\})*\]$'
    )
$$;
-- Is usage, a model call's usage, in the usual form: a JSON object with at most
-- the keys tokens and cost_usd, each a number when present? Then its amounts
-- are read directly; anything else takes the detailed checks of
-- _usage_amounts (which raise the right error or parse an unusual valid form).
-- The hot path of record_model_call and record_turn. A SQL function with no
-- SET clause, inlined into its callers (pinned SECURITY DEFINER functions; only
-- the owner may execute it).
CREATE OR REPLACE FUNCTION agent_state._usage_plain(usage jsonb)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT usage IS NOT NULL AND pg_catalog.jsonb_typeof(usage) OPERATOR(pg_catalog.=) 'object'
        AND (usage OPERATOR(pg_catalog.-) ARRAY['tokens', 'cost_usd']) OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb
        AND coalesce(pg_catalog.jsonb_typeof(usage OPERATOR(pg_catalog.->) 'tokens'), 'number')
            OPERATOR(pg_catalog.=) 'number'
        AND coalesce(pg_catalog.jsonb_typeof(usage OPERATOR(pg_catalog.->) 'cost_usd'), 'number')
            OPERATOR(pg_catalog.=) 'number'
$$;
-- The number of a tool call's next result, after locking the call so that
-- concurrent results queue. A call whose believed outcome is ok or error is
-- settled: a further result raises 55000. While the outcome is unknown (no
-- result yet, or the latest is unconfirmed) a result may arrive at any time,
-- also after the run finished: reality arrives late. Used by record_tool_result
-- and, for every other writer, by the tool_results insert trigger.
CREATE OR REPLACE FUNCTION agent_state._next_tool_result(agent uuid, tool_call uuid)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    last_no integer;
    last_status text;
BEGIN
    PERFORM FROM agent_state.tool_calls AS c
    WHERE c.runtime_agent_id = agent AND c.tool_call_id = tool_call
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('tool_call: unknown tool call %s in this perspective', tool_call);
    END IF;
    SELECT r.result_no, r.status INTO last_no, last_status
    FROM agent_state.tool_results AS r
    WHERE r.runtime_agent_id = agent AND r.tool_call_id = tool_call
    ORDER BY r.result_no DESC
    LIMIT 1;
    IF last_status IN ('ok', 'error') THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('tool_call: tool call %s already has a final result (%s)',
                                        tool_call, last_status);
    END IF;
    RETURN coalesce(last_no, 0) + 1;
END
$$;
-- Budget of a run as JSON: limits (NULL = none), spent, remaining (limit - spent,
-- NULL without a limit). Wall time counts from the start of the chain's first run
-- until now, or until the run finished. The run is read here (one primary-key
-- lookup) rather than passed as a row, so this file loads before the table.
CREATE OR REPLACE FUNCTION agent_state._run_budget(agent uuid, run uuid)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    wall numeric;
BEGIN
    SELECT * INTO r FROM agent_state.runs AS x
    WHERE x.runtime_agent_id = agent AND x.run_id = run;
    wall := pg_catalog.round(
        pg_catalog.extract('epoch', coalesce(r.finished_at, pg_catalog.clock_timestamp()) - r.chain_started_at), 3);
    RETURN pg_catalog.jsonb_build_object(
        'limits', pg_catalog.jsonb_build_object(
            'tokens', r.limit_tokens, 'cost_usd', r.limit_cost_usd,
            'tool_calls', r.limit_tool_calls, 'wall_time_seconds', r.limit_wall_time_seconds),
        'spent', pg_catalog.jsonb_build_object(
            'tokens', r.spent_tokens, 'cost_usd', r.spent_cost_usd,
            'tool_calls', r.spent_tool_calls, 'wall_time_seconds', wall),
        'remaining', pg_catalog.jsonb_build_object(
            'tokens', r.limit_tokens - r.spent_tokens,
            'cost_usd', r.limit_cost_usd - r.spent_cost_usd,
            'tool_calls', r.limit_tool_calls - r.spent_tool_calls,
            'wall_time_seconds', r.limit_wall_time_seconds - wall));
END
$$;
-- Tool results written by any role but the extension's own functions (which do
-- this themselves): numbered per call, refused after a settled outcome
-- (_next_tool_result).
CREATE OR REPLACE FUNCTION agent_state._tool_result_before_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.result_no := agent_state._next_tool_result(NEW.runtime_agent_id, NEW.tool_call_id);
    RETURN NEW;
END
$$;
-- Parses a usage object (see above); missing keys are 0.
CREATE OR REPLACE FUNCTION agent_state._usage_amounts(usage jsonb, OUT tokens numeric, OUT cost_usd numeric)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    unknown text;
BEGIN
    PERFORM agent_state._json_within(usage, 'usage', 1000000);
    PERFORM agent_state._need_json(usage, 'usage', ARRAY['object']);
    IF (usage - ARRAY['tokens', 'cost_usd']) = '{}'::jsonb THEN
        tokens := coalesce(agent_state._json_amount(usage, 'usage', 'tokens', false, true, 1e15), 0);
        cost_usd := coalesce(agent_state._json_amount(usage, 'usage', 'cost_usd', false, false, 1e12), 0);
        RETURN;
    END IF;
    SELECT k INTO unknown
    FROM pg_catalog.jsonb_object_keys(usage) AS k
    WHERE k <> ALL (ARRAY['tokens', 'cost_usd'])
    ORDER BY k
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('usage.%s: unknown usage key; known keys are tokens, cost_usd', unknown);
    END IF;
    tokens := coalesce(agent_state._json_amount(usage, 'usage', 'tokens', false, true, 1e15), 0);
    cost_usd := coalesce(agent_state._json_amount(usage, 'usage', 'cost_usd', false, false, 1e12), 0);
END
$$;
-- Checkpoints: the append-only execution frontier of a run.
CREATE OR REPLACE FUNCTION agent_state.checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    n integer;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(frontier, 'frontier');
    IF NOT coalesce(run IS NOT NULL AND pg_catalog.jsonb_typeof(frontier) IN ('object', 'array'), false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need_json(frontier, 'frontier', ARRAY['object', 'array']);
    END IF;
    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    -- What the insert trigger does for other writers (it skips the extension's
    -- own): lock the run, refuse a finished one (55000), take the next number
    -- (gap-free: the lock queues concurrent checkpoints of the run).
    PERFORM agent_state._run_writable(agent, run);
    n := agent_state._append_checkpoint(agent, run, frontier);
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.checkpoint(uuid, uuid, jsonb) IS
'checkpoint(agent, run, frontier) -> int: appends the execution frontier (a JSON object or '
'array, else 22023) numbered 1, 2, ... per run without gaps, also under concurrency. Allowed '
'on open and budget_exhausted runs; finished: 55000.';
CREATE OR REPLACE FUNCTION agent_state.continue_run(
    agent uuid,
    run uuid,
    task_context jsonb,
    budget jsonb DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    lim record;
    old agent_state.runs;
    next_run uuid;
    wall numeric;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(task_context, 'task_context');
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need_json(task_context, 'task_context', ARRAY['object', 'array']);
    -- null keeps every limit: the same as an empty object.
    SELECT * INTO lim FROM agent_state._budget_limits(coalesce(budget, '{}'));

    SELECT r.* INTO old
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.run_id = run
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    SELECT r.run_id INTO next_run
    FROM agent_state.runs AS r
    WHERE r.runtime_agent_id = agent AND r.continued_from = run;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('run: run %s was already continued by run %s', run, next_run),
            HINT = 'Continue the latest run of the chain.';
    END IF;

    -- A limit given must leave something to spend: the chain's spending carries over.
    wall := pg_catalog.extract('epoch', pg_catalog.clock_timestamp() - old.chain_started_at);
    IF lim.tokens <= old.spent_tokens THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('budget.tokens: limit %s is not above the %s tokens already spent',
                                        lim.tokens, old.spent_tokens);
    END IF;
    IF lim.cost_usd <= old.spent_cost_usd THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('budget.cost_usd: limit %s is not above the %s already spent',
                                        lim.cost_usd, old.spent_cost_usd);
    END IF;
    IF lim.tool_calls <= old.spent_tool_calls THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('budget.tool_calls: limit %s is not above the %s tool calls already made',
                                        lim.tool_calls, old.spent_tool_calls);
    END IF;
    IF lim.wall_time_seconds <= wall THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format(
                'budget.wall_time_seconds: limit %s is not above the %s seconds since the task started',
                lim.wall_time_seconds, pg_catalog.round(wall, 3));
    END IF;

    -- The insert trigger links the chain and finishes an unfinished predecessor as
    -- handed_off; a kept limit that is already spent starts the run exhausted.
    INSERT INTO agent_state.runs AS r (
        runtime_agent_id, conversation_id, trigger_message_id, continued_from, task_context,
        limit_tokens, limit_cost_usd, limit_tool_calls, limit_wall_time_seconds,
        spent_tokens, spent_cost_usd, spent_tool_calls
    )
    VALUES (
        agent, old.conversation_id, old.trigger_message_id, run, task_context,
        coalesce(lim.tokens, old.limit_tokens), coalesce(lim.cost_usd, old.limit_cost_usd),
        coalesce(lim.tool_calls, old.limit_tool_calls),
        coalesce(lim.wall_time_seconds, old.limit_wall_time_seconds),
        old.spent_tokens, old.spent_cost_usd, old.spent_tool_calls
    )
    RETURNING r.run_id INTO next_run;
    RETURN next_run;
END
$$;

COMMENT ON FUNCTION agent_state.continue_run(uuid, uuid, jsonb, jsonb) IS
'continue_run(agent, run, task_context, budget => null) -> uuid: a new run continuing the task '
'(continued_from = run). An unfinished run (open or budget_exhausted) is finished as handed_off; '
'a finished run may be continued too. A run is continued at most once (55000). Spent tokens, '
'cost, tool calls and wall time carry over, never reset. budget: null keeps the limits; '
'keys given replace those limits (raise, or lower while above what is spent: else 22023); '
'keys not given keep theirs. task_context: JSON object or array.';
CREATE OR REPLACE FUNCTION agent_state.finish_run(
    agent uuid,
    run uuid,
    outcome text,
    detail jsonb DEFAULT '{}'
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    st text;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(detail, 'detail');
    PERFORM agent_state._need(run, 'run');
    PERFORM agent_state._need_one_of(outcome, 'outcome',
        ARRAY['succeeded', 'failed', 'cancelled', 'handed_off']);
    PERFORM agent_state._need_json(detail, 'detail', ARRAY['object']);

    UPDATE agent_state.runs AS r
    SET status = outcome, detail = detail
    WHERE r.runtime_agent_id = agent AND r.run_id = run
      AND r.status IN ('open', 'budget_exhausted');
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT r.status INTO st FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run;
    IF NOT FOUND THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '55000',
        MESSAGE = pg_catalog.format('run: run %s is already finished (%s)', run, st);
END
$$;

COMMENT ON FUNCTION agent_state.finish_run(uuid, uuid, text, jsonb) IS
'finish_run(agent, run, outcome, detail => ''{}''): finishes an open or budget_exhausted run. '
'outcome: succeeded, failed, cancelled, handed_off (else 22023); detail: JSON object. '
'A finished run takes no further writes: finishing it again raises 55000. Unknown run: P0002.';
-- Model calls: each references the snapshot it was given and charges its usage.
CREATE OR REPLACE FUNCTION agent_state.record_model_call(
    agent uuid,
    run uuid,
    snapshot uuid,
    provider text,
    model text,
    request jsonb,
    response jsonb DEFAULT NULL,
    usage jsonb DEFAULT '{}',
    status text DEFAULT 'ok'
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    tokens numeric;
    cost_usd numeric;
    snap_run uuid;
    call_id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(request, 'request');
    PERFORM agent_state._json_within(response, 'response');
    PERFORM agent_state._json_within(usage, 'usage', 1000000);
    -- Hot path: the usual well-formed arguments are checked inline, in one
    -- expression. Anything else takes the helpers in argument order, which raise
    -- the error of the first bad argument (or parse an unusual valid usage).
    IF agent_state._usage_plain(usage) THEN
        tokens := coalesce((usage ->> 'tokens')::numeric, 0);
        cost_usd := coalesce((usage ->> 'cost_usd')::numeric, 0);
    END IF;
    IF NOT coalesce(
        run IS NOT NULL AND snapshot IS NOT NULL AND request IS NOT NULL
        AND pg_catalog.length(provider) <= 200 AND pg_catalog.btrim(provider, E' \t\r\n') <> ''
        AND pg_catalog.length(model) <= 200 AND pg_catalog.btrim(model, E' \t\r\n') <> ''
        AND tokens >= 0 AND tokens <= 1e15 AND tokens = pg_catalog.trunc(tokens)
        AND cost_usd >= 0 AND cost_usd <= 1e12
        AND status = ANY (ARRAY['ok', 'error', 'timeout']), false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need(snapshot, 'snapshot');
        PERFORM agent_state._need_text(provider, 'provider', 200);
        PERFORM agent_state._need_text(model, 'model', 200);
        PERFORM agent_state._need(request, 'request');
        SELECT a.tokens, a.cost_usd INTO tokens, cost_usd FROM agent_state._usage_amounts(usage) AS a;
        PERFORM agent_state._need_one_of(status, 'status', ARRAY['ok', 'error', 'timeout']);
    END IF;

    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    SELECT s.run_id INTO snap_run
    FROM agent_state.prompt_snapshots AS s
    WHERE s.runtime_agent_id = agent AND s.snapshot_id = snapshot;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('snapshot', 'snapshot', snapshot,
            EXISTS (SELECT FROM agent_state.prompt_snapshots AS s WHERE s.snapshot_id = snapshot));
    END IF;
    IF snap_run <> run THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('snapshot: snapshot %s belongs to run %s, not to run %s',
                                        snapshot, snap_run, run);
    END IF;

    -- What the insert trigger does for other writers (it skips the extension's
    -- own): charge the usage to the run in this transaction (53400 when the run
    -- was already exhausted, 55000 when finished).
    PERFORM agent_state._charge_run(agent, run, tokens, cost_usd, 0);
    INSERT INTO agent_state.model_calls AS c (
        runtime_agent_id, run_id, snapshot_id, provider, model, request, response,
        tokens, cost_usd, status
    )
    VALUES (agent, run, snapshot, provider, model, request, response,
            tokens, cost_usd, status)
    RETURNING c.model_call_id INTO call_id;
    RETURN call_id;
END
$$;

COMMENT ON FUNCTION agent_state.record_model_call(uuid, uuid, uuid, text, text, jsonb, jsonb, jsonb, text) IS
'record_model_call(agent, run, snapshot, provider, model, request, response => null, '
'usage => ''{}'', status => ''ok'') -> uuid. snapshot must be a snapshot of the same run '
'(23503). status: ok, error, timeout. usage: {"tokens": integer, "cost_usd": number}, '
'non-negative, missing keys 0, other keys 22023; charged to the run in the same transaction. '
'Run already budget_exhausted: 53400; finished: 55000; nothing written. The call whose '
'charge makes spending reach a limit is recorded and the run becomes budget_exhausted.';
-- Tool calls and their results.
CREATE OR REPLACE FUNCTION agent_state.record_tool_call(
    agent uuid,
    run uuid,
    tool text,
    input jsonb,
    model_call uuid DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    call_run uuid;
    grant_rev integer;
    call_id uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(input, 'input');
    -- Hot path: well-formed arguments pass one inline check; otherwise the
    -- helpers, in argument order, raise the error of the first bad one.
    IF NOT coalesce(run IS NOT NULL AND input IS NOT NULL
                    AND pg_catalog.length(tool) <= 200 AND pg_catalog.btrim(tool, E' \t\r\n') <> '', false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need_text(tool, 'tool', 200);
        PERFORM agent_state._need(input, 'input');
    END IF;

    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    IF model_call IS NOT NULL THEN
        SELECT c.run_id INTO call_run
        FROM agent_state.model_calls AS c
        WHERE c.runtime_agent_id = agent AND c.model_call_id = model_call;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('model call', 'model_call', model_call,
                EXISTS (SELECT FROM agent_state.model_calls AS c WHERE c.model_call_id = model_call));
        END IF;
        IF call_run <> run THEN
            RAISE EXCEPTION USING
                ERRCODE = '23503',
                MESSAGE = pg_catalog.format('model_call: model call %s belongs to run %s, not to run %s',
                                            model_call, call_run, run);
        END IF;
    END IF;
    -- The current grant, enabled (the helper raises 42501 otherwise).
    SELECT g.revision INTO grant_rev
    FROM (
        SELECT g.revision, g.enabled
        FROM agent_state.tool_grants AS g
        WHERE g.runtime_agent_id = agent AND g.tool_name = tool
        ORDER BY g.revision DESC
        LIMIT 1
    ) AS g
    WHERE g.enabled;
    IF NOT FOUND THEN
        grant_rev := agent_state._tool_grant_for_use(agent, tool);
    END IF;

    -- What the insert trigger does for other writers (it skips the extension's
    -- own): the grant check above, and one tool call charged to the run (53400
    -- when the run was already exhausted, 55000 when finished).
    PERFORM agent_state._charge_run(agent, run, 0, 0, 1);
    INSERT INTO agent_state.tool_calls AS c (
        runtime_agent_id, run_id, model_call_id, tool_name, grant_revision, input
    )
    VALUES (agent, run, model_call, tool, grant_rev, input)
    RETURNING c.tool_call_id INTO call_id;
    RETURN call_id;
END
$$;

COMMENT ON FUNCTION agent_state.record_tool_call(uuid, uuid, text, jsonb, uuid) IS
'record_tool_call(agent, run, tool, input, model_call => null) -> uuid: a tool call under the '
'agent''s current enabled grant of tool (42501 unknown, not granted or disabled), recording the '
'grant revision. model_call must be of the same run (23503). Charges one unit of tool_calls: '
'run already budget_exhausted 53400, finished 55000, nothing written.';
CREATE OR REPLACE FUNCTION agent_state.record_tool_result(
    agent uuid,
    tool_call uuid,
    output jsonb,
    status text
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(output, 'output');
    IF NOT coalesce(tool_call IS NOT NULL AND output IS NOT NULL
                    AND status = ANY (ARRAY['ok', 'error', 'unconfirmed']), false) THEN
        PERFORM agent_state._need(tool_call, 'tool_call');
        PERFORM agent_state._need(output, 'output');
        PERFORM agent_state._need_one_of(status, 'status', ARRAY['ok', 'error', 'unconfirmed']);
    END IF;
    IF NOT EXISTS (
        SELECT FROM agent_state.tool_calls AS c
        WHERE c.runtime_agent_id = agent AND c.tool_call_id = tool_call
    ) THEN
        PERFORM agent_state._missing('tool call', 'tool_call', tool_call,
            EXISTS (SELECT FROM agent_state.tool_calls AS c WHERE c.tool_call_id = tool_call));
    END IF;
    -- What the insert trigger does for other writers (it skips the extension's
    -- own): lock the call, refuse a result after a final one (55000), number it.
    INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
    VALUES (agent, tool_call, agent_state._next_tool_result(agent, tool_call), status, output);
END
$$;

COMMENT ON FUNCTION agent_state.record_tool_result(uuid, uuid, jsonb, text) IS
'record_tool_result(agent, tool_call, output, status): appends a result; status ok, error or '
'unconfirmed (effect unknown). What is believed is the latest result. While the outcome is '
'unknown (no result, or latest unconfirmed) a result may be recorded at any time, also after '
'the run finished; after ok or error the outcome is settled and a further result raises 55000.';
-- One model call of a run and what came of it, in one bound call: the prompt
-- snapshot, the model call (charged to the budget), its tool calls with their
-- results, and a checkpoint; all or nothing.
--
-- The common case is written directly: every argument well-formed, every source
-- and tool this agent's and usable (read after the run's lock, as the five calls
-- read them), and a charge that leaves the run open until its last part (so no
-- part of the turn would be refused for the budget). The run is charged once for
-- the whole turn, then the rows are inserted; the insert triggers that lock and
-- charge the run, hash the prompt and number checkpoints and results skip the
-- extension's own writes, so this function does their work
-- (tests/pgtap/520_own_writes.sql). Anything else takes the composed path: the
-- five functions one after another, with their checks, errors and SQLSTATEs.
-- The fast path only decides before it writes, so the two paths never mix.
CREATE OR REPLACE FUNCTION agent_state.record_turn(
    agent uuid,
    run uuid,
    prompt text,
    provider text,
    model text,
    request jsonb,
    response jsonb DEFAULT NULL,
    usage jsonb DEFAULT '{}',
    status text DEFAULT 'ok',
    persona_revision integer DEFAULT NULL,
    memory jsonb DEFAULT '[]',
    messages uuid [] DEFAULT '{}',
    tool_calls jsonb DEFAULT '[]',
    frontier jsonb DEFAULT NULL
)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    snap uuid;
    call_id uuid;
    tc jsonb;
    tc_id uuid;
    calls jsonb := '[]'::jsonb;
    i integer := 0;
    cp integer;
    fast boolean;
    tokens numeric;
    cost_usd numeric;
    n_tools integer;
    n_memory integer := 0;
    n_messages integer := 0;
    mem_entries uuid [] := '{}'::uuid [];
    mem_revisions integer [] := '{}'::integer [];
    tool_names text [];
    grant_revs integer [];
    tool_ids uuid [];
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(tool_calls, 'tool_calls');
    PERFORM agent_state._need_json(tool_calls, 'tool_calls', ARRAY['array']);
    FOR tc IN SELECT e.value FROM pg_catalog.jsonb_array_elements(tool_calls) AS e LOOP
        IF pg_catalog.jsonb_typeof(tc) <> 'object' OR NOT tc ? 'tool' OR NOT tc ? 'input'
            OR (tc - ARRAY['tool', 'input', 'output', 'status']) <> '{}'::jsonb
            OR (tc ? 'output') <> (tc ? 'status') THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format(
                    'tool_calls[%s]: must be {"tool", "input"} with optional "output" and "status" '
                    'together', i);
        END IF;
        i := i + 1;
    END LOOP;
    n_tools := i;

    -- The fast path's argument checks: what the five functions accept on their
    -- own hot paths (anything unusual, valid or not, goes the composed way).
    IF agent_state._usage_plain(usage) THEN
        tokens := coalesce((usage ->> 'tokens')::numeric, 0);
        cost_usd := coalesce((usage ->> 'cost_usd')::numeric, 0);
    END IF;
    fast := coalesce(
        run IS NOT NULL AND messages IS NOT NULL AND request IS NOT NULL
        AND pg_catalog.octet_length(prompt) <= 10000000 AND prompt ~ '[^ \t\r\n]'
        AND pg_catalog.length(provider) <= 200 AND pg_catalog.btrim(provider, E' \t\r\n') <> ''
        AND pg_catalog.length(model) <= 200 AND pg_catalog.btrim(model, E' \t\r\n') <> ''
        AND tokens >= 0 AND tokens <= 1e15 AND tokens = pg_catalog.trunc(tokens)
        AND cost_usd >= 0 AND cost_usd <= 1e12
        AND status = ANY (ARRAY['ok', 'error', 'timeout'])
        AND (frontier IS NULL OR pg_catalog.jsonb_typeof(frontier) IN ('object', 'array'))
        AND agent_state._json_fits(memory)
        AND (memory = '[]'::jsonb OR agent_state._memory_canonical(memory))
        AND agent_state._json_fits(request) AND agent_state._json_fits(response)
        AND agent_state._json_fits(usage, 1000000) AND agent_state._json_fits(frontier),
        false);
    -- Only now: on a multidimensional array it raises (0A000), as snapshot_prompt's
    -- same test does once the arguments before it passed.
    IF fast THEN
        fast := pg_catalog.array_position(messages, NULL) IS NULL;
    END IF;
    IF fast THEN
        -- The run's lock first, as the composed path takes it first: the grants
        -- and sources below are then read after any concurrent change we waited
        -- for (a grant revoked meanwhile is seen). An unknown run locks nothing;
        -- the charge below then finds no row and the composed path reports it.
        PERFORM FROM agent_state.runs AS r
        WHERE r.runtime_agent_id = agent AND r.run_id = run
        FOR NO KEY UPDATE;
    END IF;
    IF fast AND n_tools > 0 THEN
        -- Every tool call well-formed, under the tool's current enabled grant.
        SELECT pg_catalog.count(*) = n_tools, pg_catalog.array_agg(t.tool ORDER BY t.ord),
               pg_catalog.array_agg(g.revision ORDER BY t.ord)
        INTO fast, tool_names, grant_revs
        FROM (
            SELECT e.ord, e.elem ->> 'tool' AS tool, e.elem
            FROM pg_catalog.jsonb_array_elements(tool_calls) WITH ORDINALITY AS e (elem, ord)
        ) AS t
        CROSS JOIN LATERAL (
            SELECT g.revision, g.enabled
            FROM agent_state.tool_grants AS g
            WHERE g.runtime_agent_id = agent AND g.tool_name = t.tool
            ORDER BY g.revision DESC
            LIMIT 1
        ) AS g
        WHERE g.enabled
          AND pg_catalog.length(t.tool) <= 200 AND pg_catalog.btrim(t.tool, E' \t\r\n') <> ''
          AND pg_catalog.jsonb_typeof(t.elem -> 'input') <> 'null'
          AND agent_state._json_fits(t.elem -> 'input')
          AND (NOT t.elem ? 'output' OR (
              pg_catalog.jsonb_typeof(t.elem -> 'output') <> 'null'
              AND agent_state._json_fits(t.elem -> 'output')
              AND t.elem ->> 'status' = ANY (ARRAY['ok', 'error', 'unconfirmed'])));
    END IF;
    IF fast AND memory <> '[]'::jsonb THEN
        -- The canonical text of the array was matched above: the casts cannot fail.
        SELECT pg_catalog.array_agg((e.elem ->> 'entry')::uuid ORDER BY e.ord),
               pg_catalog.array_agg((e.elem ->> 'revision')::integer ORDER BY e.ord)
        INTO mem_entries, mem_revisions
        FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord);
    END IF;
    IF fast THEN
        -- Every source this agent's and no memory entry of them redacted, in one
        -- query; repeated sources count once, as they are stored.
        SELECT s.n_memory, s.n_messages, s.memory_ok AND s.messages_found = s.n_messages AND s.persona_ok
        INTO n_memory, n_messages, fast
        FROM (
            SELECT
                (SELECT pg_catalog.count(DISTINCT (u.entry, u.rev))
                 FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
                      AS u (entry, rev)) AS n_memory,
                (SELECT pg_catalog.count(DISTINCT u.id) FROM pg_catalog.unnest(messages) AS u (id)) AS n_messages,
                (SELECT pg_catalog.count(*) FROM agent_state.messages AS m
                 WHERE m.runtime_agent_id = agent AND m.message_id = ANY (messages)) AS messages_found,
                NOT EXISTS (
                    SELECT
                    FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
                         AS u (entry, rev)
                    WHERE NOT EXISTS (
                        SELECT FROM agent_state.memory_revisions AS v
                        WHERE v.runtime_agent_id = agent AND v.entry_id = u.entry AND v.revision = u.rev
                    ) OR EXISTS (
                        SELECT FROM agent_state.memory_redactions AS d
                        WHERE d.runtime_agent_id = agent AND d.entry_id = u.entry
                    )
                ) AS memory_ok,
                (persona_revision IS NULL OR EXISTS (
                    SELECT FROM agent_state.persona_revisions AS p
                    WHERE p.runtime_agent_id = agent AND p.revision = persona_revision
                )) AS persona_ok
        ) AS s;
    END IF;
    IF fast THEN
        -- The whole turn's charge in one update, which also locks the run. Only
        -- when no part but the last could reach a limit: otherwise a later part
        -- would be refused (53400), which the composed path reports.
        UPDATE agent_state.runs AS r
        SET spent_tokens = r.spent_tokens + tokens,
            spent_cost_usd = r.spent_cost_usd + cost_usd,
            spent_tool_calls = r.spent_tool_calls + n_tools
        WHERE r.runtime_agent_id = agent AND r.run_id = run AND r.status = 'open'
          AND (n_tools = 0 OR (
              (r.limit_tokens IS NULL OR r.spent_tokens + tokens < r.limit_tokens)
              AND (r.limit_cost_usd IS NULL OR r.spent_cost_usd + cost_usd < r.limit_cost_usd)
              AND (r.limit_tool_calls IS NULL OR r.spent_tool_calls + n_tools - 1 < r.limit_tool_calls)
              AND r.limit_wall_time_seconds IS NULL));
        fast := FOUND;
    END IF;

    IF NOT fast THEN
        snap := agent_state.snapshot_prompt(agent, run, prompt, persona_revision, memory, messages);
        call_id := agent_state.record_model_call(agent, run, snap, provider, model, request, response,
                                                 usage, status);
        FOR tc IN SELECT e.value FROM pg_catalog.jsonb_array_elements(tool_calls) AS e LOOP
            tc_id := agent_state.record_tool_call(agent, run, tc ->> 'tool', tc -> 'input', call_id);
            IF tc ? 'output' THEN
                PERFORM agent_state.record_tool_result(agent, tc_id, tc -> 'output', tc ->> 'status');
            END IF;
            calls := calls || pg_catalog.to_jsonb(tc_id);
        END LOOP;
        IF frontier IS NOT NULL THEN
            cp := agent_state.checkpoint(agent, run, frontier);
        END IF;
        RETURN pg_catalog.jsonb_build_object('snapshot', snap, 'model_call', call_id, 'tool_calls', calls,
                                             'checkpoint', cp);
    END IF;

    -- The run is charged and locked: the rows.
    snap := agent_state._insert_snapshot(agent, run, prompt, persona_revision, mem_entries, mem_revisions,
                                         messages, n_memory, n_messages);
    INSERT INTO agent_state.model_calls AS c (
        runtime_agent_id, run_id, snapshot_id, provider, model, request, response, tokens, cost_usd, status
    )
    VALUES (agent, run, snap, provider, model, request, response, tokens, cost_usd, status)
    RETURNING c.model_call_id INTO call_id;
    IF n_tools > 0 THEN
        -- Ids made here, so that they come back in the order of tool_calls.
        -- Ascending: the calls share one statement, so two may share a created_at
        -- microsecond, and recover_run breaks such ties by id.
        tool_ids := ARRAY(SELECT g.id
                          FROM (SELECT pg_catalog.gen_random_uuid() AS id
                                FROM pg_catalog.generate_series(1, n_tools)) AS g
                          ORDER BY g.id);
        INSERT INTO agent_state.tool_calls (
            runtime_agent_id, run_id, tool_call_id, model_call_id, tool_name, grant_revision, input
        )
        SELECT agent, run, tool_ids[e.ord], call_id, tool_names[e.ord], grant_revs[e.ord], e.elem -> 'input'
        FROM pg_catalog.jsonb_array_elements(tool_calls) WITH ORDINALITY AS e (elem, ord)
        ORDER BY e.ord;
        -- The first result of each call just written (no other transaction can
        -- see the calls yet, so nothing can queue before it).
        INSERT INTO agent_state.tool_results (runtime_agent_id, tool_call_id, result_no, status, output)
        SELECT agent, tool_ids[e.ord], 1, e.elem ->> 'status', e.elem -> 'output'
        FROM pg_catalog.jsonb_array_elements(tool_calls) WITH ORDINALITY AS e (elem, ord)
        WHERE e.elem ? 'output'
        ORDER BY e.ord;
        calls := pg_catalog.to_jsonb(tool_ids);
    END IF;
    IF frontier IS NOT NULL THEN
        -- Numbered under the run's lock, which the charge above holds.
        cp := agent_state._append_checkpoint(agent, run, frontier);
    END IF;
    RETURN pg_catalog.jsonb_build_object('snapshot', snap, 'model_call', call_id, 'tool_calls', calls,
                                         'checkpoint', cp);
END
$$;

COMMENT ON FUNCTION agent_state.record_turn(uuid, uuid, text, text, text, jsonb, jsonb, jsonb, text, integer, jsonb, uuid [], jsonb, jsonb) IS
'record_turn(agent, run, prompt, provider, model, request, response => null, usage => ''{}'', '
'status => ''ok'', persona_revision => null, memory => ''[]'', messages => ''{}'', tool_calls => '
'''[]'', frontier => null) -> {"snapshot", "model_call", "tool_calls": [ids], "checkpoint"}: one '
'model call and what came of it in one call, each part as snapshot_prompt, record_model_call, '
'record_tool_call, record_tool_result and checkpoint write it (same checks and SQLSTATEs); all '
'or nothing. tool_calls: [{"tool", "input", "output" and "status" (optional, together)}].';
-- Recovery: everything a fresh process needs to resume a run, from the database.
CREATE OR REPLACE FUNCTION agent_state.recover_run(agent uuid, run uuid)
RETURNS jsonb
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    r agent_state.runs;
    cp record;
    unknown jsonb;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(run, 'run');
    SELECT x.* INTO r FROM agent_state.runs AS x WHERE x.runtime_agent_id = agent AND x.run_id = run;
    IF NOT FOUND THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;

    SELECT k.checkpoint, k.frontier INTO cp
    FROM agent_state.checkpoints AS k
    WHERE k.runtime_agent_id = agent AND k.run_id = run
    ORDER BY k.checkpoint DESC
    LIMIT 1;

    -- Tool calls of this run and of the runs it continues whose outcome is unknown:
    -- the latest result is unconfirmed, or there is no result at all.
    WITH RECURSIVE chain AS (
        SELECT r.run_id, r.continued_from
        UNION ALL
        SELECT p.run_id, p.continued_from
        FROM agent_state.runs AS p
        JOIN chain AS c ON p.runtime_agent_id = agent AND p.run_id = c.continued_from
    )
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
               'tool_call', t.tool_call_id,
               'run', t.run_id,
               'tool', t.tool_name,
               'input', t.input,
               'grant_revision', t.grant_revision,
               'model_call', t.model_call_id,
               'recorded_at', t.created_at,
               'result', coalesce(l.status, 'none'),
               'output', l.output,
               'result_at', l.created_at
           ) ORDER BY t.created_at, t.tool_call_id), '[]')
    INTO unknown
    FROM chain AS c
    JOIN agent_state.tool_calls AS t ON t.runtime_agent_id = agent AND t.run_id = c.run_id
    LEFT JOIN LATERAL (
        SELECT x.status, x.output, x.created_at
        FROM agent_state.tool_results AS x
        WHERE x.runtime_agent_id = agent AND x.tool_call_id = t.tool_call_id
        ORDER BY x.result_no DESC
        LIMIT 1
    ) AS l ON true
    WHERE l.status IS NULL OR l.status = 'unconfirmed';

    RETURN pg_catalog.jsonb_build_object(
        'run', r.run_id,
        'status', r.status,
        'conversation', r.conversation_id,
        'trigger_message', r.trigger_message_id,
        'continued_from', r.continued_from,
        'continued_by', (
            SELECT n.run_id FROM agent_state.runs AS n
            WHERE n.runtime_agent_id = agent AND n.continued_from = run
        ),
        'task_context', r.task_context,
        'started_at', r.created_at,
        'finished_at', r.finished_at,
        'detail', r.detail,
        'checkpoint', cp.checkpoint,
        'frontier', cp.frontier,
        'budget', agent_state._run_budget(agent, run),
        'unconfirmed_tool_calls', unknown,
        'persona', (
            SELECT pg_catalog.jsonb_build_object('revision', p.revision, 'body', p.body)
            FROM agent_state.persona_revisions AS p
            WHERE p.runtime_agent_id = agent AND p.is_active
        ),
        'tool_grants', (
            SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                       'tool', g.tool_name, 'revision', g.revision,
                       'enabled', g.enabled, 'config', g.config) ORDER BY g.tool_name), '[]')
            FROM (
                SELECT DISTINCT ON (x.tool_name) x.tool_name, x.revision, x.enabled, x.config
                FROM agent_state.tool_grants AS x
                WHERE x.runtime_agent_id = agent
                ORDER BY x.tool_name, x.revision DESC
            ) AS g
        )
    );
END
$$;

COMMENT ON FUNCTION agent_state.recover_run(uuid, uuid) IS
'recover_run(agent, run) -> jsonb with keys run, status, checkpoint (latest number or null), '
'frontier (its frontier or null), budget {limits, spent, remaining} (each with tokens, cost_usd, '
'tool_calls, wall_time_seconds; null = no limit; remaining = limit - spent), '
'unconfirmed_tool_calls (calls of this run and the runs it continues whose outcome is unknown: '
'[{tool_call, run, tool, input, grant_revision, model_call, recorded_at, result: '
'''unconfirmed'' or ''none'', output, result_at}]), persona (the CURRENT active {revision, body} '
'or null, never old prompt text), tool_grants (current grants [{tool, revision, enabled, config}]), '
'and conversation, trigger_message, continued_from, continued_by, task_context, started_at, '
'finished_at, detail. Unknown run: P0002.';
-- Prompt snapshots: what the agent knew for one model call.
CREATE OR REPLACE FUNCTION agent_state.snapshot_prompt(
    agent uuid,
    run uuid,
    prompt text,
    persona_revision integer DEFAULT NULL,
    memory jsonb DEFAULT '[]',
    messages uuid [] DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    bad record;
    mem_entries uuid [] := '{}'::uuid [];
    mem_revisions integer [] := '{}'::integer [];
    n_memory integer := 0;
    n_messages integer := 0;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(memory, 'memory');
    -- Hot path: well-formed arguments pass one inline check; otherwise the
    -- helpers, in argument order, raise the error of the first bad one.
    IF NOT coalesce(run IS NOT NULL AND pg_catalog.jsonb_typeof(memory) = 'array' AND messages IS NOT NULL
                    AND pg_catalog.octet_length(prompt) <= 10000000 AND prompt ~ '[^ \t\r\n]',
                    false) THEN
        PERFORM agent_state._need(run, 'run');
        PERFORM agent_state._need_text(prompt, 'prompt', 10000000);
        PERFORM agent_state._need_json(memory, 'memory', ARRAY['array']);
        PERFORM agent_state._need(messages, 'messages');
    END IF;
    IF pg_catalog.array_position(messages, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'messages: must not contain null';
    END IF;

    IF memory <> '[]'::jsonb AND agent_state._memory_canonical(memory) THEN
        -- Hot path: every element in the usual form; the casts cannot fail.
        SELECT pg_catalog.array_agg((e.elem ->> 'entry')::uuid ORDER BY e.ord),
               pg_catalog.array_agg((e.elem ->> 'revision')::integer ORDER BY e.ord)
        INTO mem_entries, mem_revisions
        FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord);
    ELSIF memory <> '[]'::jsonb THEN
        -- Each element is exactly {"entry": uuid, "revision": positive integer}: the
        -- first malformed one is named (CASE branches in order: a cast is reached
        -- only for a well-formed value), else the parsed arrays come back.
        SELECT pg_catalog.min(p.ord) FILTER (WHERE p.problem IS NOT NULL) AS ord,
               (pg_catalog.array_agg(p.problem ORDER BY p.ord) FILTER (WHERE p.problem IS NOT NULL))[1] AS problem,
               pg_catalog.array_agg(p.entry ORDER BY p.ord) AS entries,
               pg_catalog.array_agg(p.rev ORDER BY p.ord) AS revs
        INTO bad
        FROM (
            SELECT e.ord, c.problem,
                   CASE WHEN c.problem IS NULL THEN (e.elem ->> 'entry')::uuid END AS entry,
                   CASE WHEN c.problem IS NULL THEN (e.elem ->> 'revision')::numeric::integer END AS rev
            FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord)
            CROSS JOIN LATERAL (
                SELECT CASE
                    WHEN pg_catalog.jsonb_typeof(e.elem) <> 'object'
                        THEN 'must be an object {"entry": uuid, "revision": n}'
                    WHEN NOT e.elem ? 'entry' THEN 'entry is missing'
                    WHEN NOT e.elem ? 'revision' THEN 'revision is missing'
                    WHEN (e.elem - ARRAY['entry', 'revision']) <> '{}'::jsonb
                        THEN 'unknown key; an element has only entry and revision'
                    WHEN pg_catalog.jsonb_typeof(e.elem -> 'entry') <> 'string' THEN 'entry must be a uuid'
                    WHEN (e.elem ->> 'entry') !~ (
                        '^(\{[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}'
                        '|[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})$')
                        THEN 'entry must be a uuid'
                    WHEN pg_catalog.jsonb_typeof(e.elem -> 'revision') <> 'number'
                        THEN 'revision must be a positive integer'
                    WHEN (e.elem ->> 'revision')::numeric NOT BETWEEN 1 AND 2147483647
                        OR (e.elem ->> 'revision')::numeric
                        <> pg_catalog.trunc((e.elem ->> 'revision')::numeric)
                        THEN 'revision must be a positive integer'
                END AS problem
            ) AS c
        ) AS p;
        IF bad.ord IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = pg_catalog.format('memory[%s]: %s', bad.ord - 1, bad.problem);
        END IF;
        mem_entries := bad.entries;
        mem_revisions := bad.revs;
    END IF;

    -- Every source must be this perspective's, and no memory entry redacted.
    IF NOT EXISTS (SELECT FROM agent_state.runs AS r WHERE r.runtime_agent_id = agent AND r.run_id = run) THEN
        PERFORM agent_state._need_run(agent, run);
    END IF;
    IF persona_revision IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.persona_revisions AS p
        WHERE p.runtime_agent_id = agent AND p.revision = persona_revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('persona_revision: agent %s has no persona revision %s',
                                        agent, persona_revision);
    END IF;
    IF pg_catalog.cardinality(mem_entries) > 0 THEN
        SELECT u.ord - 1 AS ix, u.entry, u.rev, v.revision IS NULL AS missing INTO bad
        FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions))
             WITH ORDINALITY AS u (entry, rev, ord)
        LEFT JOIN agent_state.memory_revisions AS v
          ON v.runtime_agent_id = agent AND v.entry_id = u.entry AND v.revision = u.rev
        WHERE v.revision IS NULL OR EXISTS (
            SELECT FROM agent_state.memory_redactions AS d
            WHERE d.runtime_agent_id = agent AND d.entry_id = u.entry
        )
        ORDER BY u.ord
        LIMIT 1;
        IF FOUND AND NOT bad.missing THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = pg_catalog.format('memory[%s]: memory entry %s is redacted', bad.ix, bad.entry);
        ELSIF FOUND THEN
            IF EXISTS (
                SELECT FROM agent_state.memory_revisions AS v
                WHERE v.entry_id = bad.entry AND v.runtime_agent_id <> agent
            ) THEN
                RAISE EXCEPTION USING
                    ERRCODE = '23503',
                    MESSAGE = pg_catalog.format('memory[%s]: memory entry %s belongs to another perspective',
                                                bad.ix, bad.entry);
            END IF;
            RAISE EXCEPTION USING
                ERRCODE = 'P0002',
                MESSAGE = pg_catalog.format('memory[%s]: unknown memory entry %s revision %s',
                                            bad.ix, bad.entry, bad.rev);
        END IF;
        -- Repeated sources are stored once, at their first position.
        SELECT pg_catalog.count(DISTINCT (u.entry, u.rev)) INTO n_memory
        FROM ROWS FROM (pg_catalog.unnest(mem_entries), pg_catalog.unnest(mem_revisions)) AS u (entry, rev);
    END IF;
    IF pg_catalog.cardinality(messages) > 0 THEN
        SELECT u.ord - 1 AS ix, u.id INTO bad
        FROM pg_catalog.unnest(messages) WITH ORDINALITY AS u (id, ord)
        WHERE NOT EXISTS (
            SELECT FROM agent_state.messages AS m WHERE m.runtime_agent_id = agent AND m.message_id = u.id
        )
        ORDER BY u.ord
        LIMIT 1;
        IF FOUND THEN
            PERFORM agent_state._missing('message', pg_catalog.format('messages[%s]', bad.ix), bad.id,
                EXISTS (SELECT FROM agent_state.messages AS m WHERE m.message_id = bad.id));
        END IF;
        n_messages := pg_catalog.cardinality(ARRAY(SELECT DISTINCT u.id FROM pg_catalog.unnest(messages) AS u (id)));
    END IF;

    -- What the insert trigger does for other writers (it skips the extension's
    -- own): lock the run, refuse a finished one (55000); the helper hashes.
    PERFORM agent_state._run_writable(agent, run);
    RETURN agent_state._insert_snapshot(agent, run, prompt, persona_revision, mem_entries, mem_revisions,
                                        messages, n_memory, n_messages);
END
$$;

COMMENT ON FUNCTION agent_state.snapshot_prompt(uuid, uuid, text, integer, jsonb, uuid []) IS
'snapshot_prompt(agent, run, prompt, persona_revision => null, memory => ''[]'', messages => ''{}'') '
'-> uuid: the audit record of what the agent knew for one model call: the prompt (required, at most '
'10,000,000 characters, else 22023), its sha256 (hex), and the sources used: persona revision, '
'memory revisions as [{"entry": uuid, "revision": n}] (malformed: 22023 naming memory[i]) and '
'messages. Sources must be this agent''s (P0002 unknown, 23503 another agent''s; enforced by '
'composite foreign keys); a redacted entry cannot be used (55000). The run must be unfinished '
'(55000). Snapshots are immutable; only redact blanks the prompt of a snapshot that used a '
'redacted entry.';
-- Removes the payloads of some checkpoints of one thread (their writes too), after
-- writing the purge record that authorises it (_guard_graph_payload): who, when,
-- why and which checkpoints. Returns how many checkpoints were removed; writes no
-- record when there are none.
CREATE OR REPLACE FUNCTION agent_state._graph_purge(agent uuid, thread text, nss text [], ids text [], reason text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(pg_catalog.cardinality(ids), 0) = 0 THEN
        RETURN 0;
    END IF;
    INSERT INTO agent_state.graph_purges (runtime_agent_id, thread_id, reason, removed)
    SELECT agent, thread, reason, pg_catalog.jsonb_build_object(
        'checkpoints', pg_catalog.jsonb_agg(
            pg_catalog.jsonb_build_object('checkpoint_ns', u.ns, 'checkpoint_id', u.id)
            ORDER BY u.ns, u.id))
    FROM ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS u (ns, id);
    DELETE FROM agent_state.graph_writes AS w
    USING ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS u (ns, id)
    WHERE w.runtime_agent_id = agent AND w.thread_id = thread
      AND w.checkpoint_ns = u.ns AND w.checkpoint_id = u.id;
    DELETE FROM agent_state.graph_checkpoints AS c
    USING ROWS FROM (pg_catalog.unnest(nss), pg_catalog.unnest(ids)) AS u (ns, id)
    WHERE c.runtime_agent_id = agent AND c.thread_id = thread
      AND c.checkpoint_ns = u.ns AND c.checkpoint_id = u.id;
    RETURN pg_catalog.cardinality(ids);
END
$$;
-- The thread's row, locked (its runs are started and continued one at a time),
-- created with its conversation on first use: returns the conversation and the
-- thread's current run (NULL before its first checkpoint).
CREATE OR REPLACE FUNCTION agent_state._graph_thread(agent uuid, thread text, OUT conversation uuid, OUT run uuid)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT t.conversation_id, t.current_run_id INTO conversation, run
    FROM agent_state.graph_threads AS t
    WHERE t.runtime_agent_id = agent AND t.thread_id = thread
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        conversation := agent_state.open_conversation(agent, 'langgraph', thread, 'group');
        INSERT INTO agent_state.graph_threads (runtime_agent_id, thread_id, conversation_id)
        VALUES (agent, thread, conversation)
        ON CONFLICT ON CONSTRAINT graph_threads_pkey DO NOTHING;
        SELECT t.conversation_id, t.current_run_id INTO conversation, run
        FROM agent_state.graph_threads AS t
        WHERE t.runtime_agent_id = agent AND t.thread_id = thread
        FOR NO KEY UPDATE;
    END IF;
END
$$;
-- Graph payloads: a checkpoint or write is deleted only in the transaction that
-- wrote a purge record of its thread (a restored purge row keeps its old
-- transaction id, but was not created in this transaction); a write is updated only when
-- it is a special write (idx < 0: an interrupt or error LangGraph replaces), and
-- then only its value. Nothing else changes.
CREATE OR REPLACE FUNCTION agent_state._guard_graph_payload()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF EXISTS (
            SELECT FROM agent_state.graph_purges AS p
            WHERE p.runtime_agent_id = OLD.runtime_agent_id AND p.thread_id = OLD.thread_id
              AND p.purge_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
              AND p.created_at >= pg_catalog.transaction_timestamp()
        ) THEN
            RETURN OLD;
        END IF;
    ELSIF TG_TABLE_NAME = 'graph_writes' AND (pg_catalog.to_jsonb(OLD) ->> 'idx')::integer < 0
        AND (pg_catalog.to_jsonb(NEW) - ARRAY['value_type', 'value', 'task_path', 'created_at'])
            = (pg_catalog.to_jsonb(OLD) - ARRAY['value_type', 'value', 'task_path', 'created_at']) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s refused; checkpoint payloads are removed only by a purge',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP)),
        HINT = 'Use the saver''s delete_thread, delete_for_runs or prune.';
END
$$;
-- Direct DML deleting a checkpoint or write: its checkpoint must be one the
-- purge record of this transaction lists (_guard_graph_payload only asks for a
-- purge of the thread). The product's own purges delete exactly what they list
-- (_graph_purge), so the trigger skips them (_own_write, SPEC section 1): a
-- containment test per deleted row against the whole list would make a big
-- purge quadratic.
CREATE OR REPLACE FUNCTION agent_state._guard_graph_purge_listed()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (
        SELECT FROM agent_state.graph_purges AS p
        WHERE p.runtime_agent_id = OLD.runtime_agent_id AND p.thread_id = OLD.thread_id
          AND p.purge_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
          AND p.created_at >= pg_catalog.transaction_timestamp()
          AND p.removed -> 'checkpoints' @> pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
              'checkpoint_ns', OLD.checkpoint_ns, 'checkpoint_id', OLD.checkpoint_id))
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format(
                '%s: delete refused; checkpoint %L of thread %L is not listed by a purge of this '
                'transaction', TG_TABLE_NAME, OLD.checkpoint_id, OLD.thread_id),
            HINT = 'Use the saver''s delete_thread, delete_for_runs or prune.';
    END IF;
    RETURN OLD;
END
$$;
-- A LangGraph store namespace: 1 to 100 non-empty labels without dots (LangGraph's
-- own rule), each at most 200 characters; 22004 null, 22023 otherwise.
CREATE OR REPLACE FUNCTION agent_state._need_graph_namespace(namespace text [])
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF namespace IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'namespace: must not be null';
    END IF;
    IF NOT pg_catalog.cardinality(namespace) BETWEEN 1 AND 100 OR pg_catalog.array_ndims(namespace) <> 1
        OR EXISTS (SELECT FROM pg_catalog.unnest(namespace) AS l
                   WHERE l IS NULL OR l = '' OR pg_catalog.strpos(l, '.') > 0
                      OR pg_catalog.length(l) > 200) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'namespace: 1 to 100 labels, each non-empty, without dots, at most 200 characters';
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION agent_state.graph_copy_thread(agent uuid, source_thread_id text, target_thread_id text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    conv uuid;
    run uuid;
    n integer;
    latest record;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_text(source_thread_id, 'source_thread_id', 1000);
    PERFORM agent_state._need_text(target_thread_id, 'target_thread_id', 1000);
    IF NOT EXISTS (
        SELECT FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.thread_id = source_thread_id
    ) THEN
        RETURN 0;
    END IF;
    -- The target is a thread (conversation) of its own, with a run of its own.
    SELECT t.conversation, t.run INTO conv, run FROM agent_state._graph_thread(agent, target_thread_id) AS t;
    IF run IS NULL THEN
        run := agent_state.start_run(agent, conv);
        UPDATE agent_state.graph_threads AS t SET current_run_id = run
        WHERE t.runtime_agent_id = agent AND t.thread_id = target_thread_id;
    END IF;
    INSERT INTO agent_state.graph_checkpoints
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, run_id,
         graph_run_id, payload_type, payload, metadata)
    SELECT agent, target_thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, run,
           c.graph_run_id, c.payload_type, c.payload, c.metadata
    FROM agent_state.graph_checkpoints AS c
    WHERE c.runtime_agent_id = agent AND c.thread_id = source_thread_id
    ON CONFLICT ON CONSTRAINT graph_checkpoints_pkey DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    INSERT INTO agent_state.graph_writes
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value_type,
         value, task_path)
    SELECT agent, target_thread_id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel,
           w.value_type, w.value, w.task_path
    FROM agent_state.graph_writes AS w
    WHERE w.runtime_agent_id = agent AND w.thread_id = source_thread_id
    ON CONFLICT ON CONSTRAINT graph_writes_pkey DO NOTHING;
    -- The target run resumes from the newest copied checkpoint.
    SELECT c.checkpoint_ns, c.checkpoint_id INTO latest
    FROM agent_state.graph_checkpoints AS c
    WHERE c.runtime_agent_id = agent AND c.thread_id = target_thread_id AND c.checkpoint_ns = ''
    ORDER BY c.checkpoint_id DESC
    LIMIT 1;
    IF FOUND THEN
        PERFORM agent_state.checkpoint(agent, run, pg_catalog.jsonb_build_object(
            'thread_id', target_thread_id, 'checkpoint_ns', latest.checkpoint_ns,
            'checkpoint_id', latest.checkpoint_id));
    END IF;
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.graph_copy_thread(uuid, text, text) IS
'graph_copy_thread(agent, source_thread_id, target_thread_id) -> int (for the LangGraph '
'checkpointer): copies every checkpoint and write of a thread to another thread of the same '
'agent (a conversation and a run of its own, resuming from the newest copied checkpoint). A '
'source without checkpoints: 0.';
CREATE OR REPLACE FUNCTION agent_state.graph_delete_for_runs(
    agent uuid,
    graph_run_ids text [],
    reason text DEFAULT 'delete_for_runs'
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    t record;
    n integer := 0;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(graph_run_ids, 'graph_run_ids');
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    FOR t IN
        SELECT c.thread_id, pg_catalog.array_agg(c.checkpoint_ns) AS nss,
               pg_catalog.array_agg(c.checkpoint_id) AS ids
        FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.graph_run_id = ANY (graph_run_ids)
        GROUP BY c.thread_id
        ORDER BY c.thread_id
    LOOP
        n := n + agent_state._graph_purge(agent, t.thread_id, t.nss, t.ids, reason);
    END LOOP;
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.graph_delete_for_runs(uuid, text [], text) IS
'graph_delete_for_runs(agent, graph_run_ids, reason => ''delete_for_runs'') -> int (for the '
'LangGraph checkpointer): removes the checkpoints (and their writes) whose metadata run_id is '
'one of graph_run_ids, through one audited purge record per thread.';
CREATE OR REPLACE FUNCTION agent_state.graph_delete_thread(
    agent uuid,
    thread_id text,
    reason text DEFAULT 'delete_thread'
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    nss text [];
    ids text [];
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_text(thread_id, 'thread_id', 1000);
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    -- Every checkpoint of the thread, and any whose writes arrived without it.
    SELECT pg_catalog.array_agg(u.ns), pg_catalog.array_agg(u.id) INTO nss, ids
    FROM (
        SELECT c.checkpoint_ns, c.checkpoint_id FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.thread_id = thread_id
        UNION
        SELECT w.checkpoint_ns, w.checkpoint_id FROM agent_state.graph_writes AS w
        WHERE w.runtime_agent_id = agent AND w.thread_id = thread_id
    ) AS u (ns, id);
    RETURN agent_state._graph_purge(agent, thread_id, nss, ids, reason);
END
$$;

COMMENT ON FUNCTION agent_state.graph_delete_thread(uuid, text, text) IS
'graph_delete_thread(agent, thread_id, reason => ''delete_thread'') -> int (for the LangGraph '
'checkpointer): removes every checkpoint payload and write of the thread through an audited '
'purge record (graph_purges); the thread''s conversation, runs and run checkpoints stay. Returns '
'how many checkpoints were removed (a thread without any: 0, nothing written).';
CREATE OR REPLACE FUNCTION agent_state.graph_item_delete(agent uuid, namespace text [], key text)
RETURNS boolean
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    cur_entry uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_graph_namespace(namespace);
    PERFORM agent_state._need_text(key, 'key', 1000);
    SELECT i.entry_id INTO cur_entry
    FROM agent_state.graph_items AS i
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id AND e.live
    WHERE i.runtime_agent_id = agent AND i.namespace = namespace AND i.key = key
    FOR NO KEY UPDATE OF i;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM agent_state.forget(agent, cur_entry, NULL, 'deleted through the LangGraph store');
    RETURN true;
END
$$;

COMMENT ON FUNCTION agent_state.graph_item_delete(uuid, text [], text) IS
'graph_item_delete(agent, namespace, key) -> boolean (for the LangGraph store): forgets the '
'item''s entry (its history stays); false when there is no live item.';
-- LangGraph store put: the item's entry is remembered (from a message: its
-- provenance), amended when the key is live, or re-created after a delete; the
-- value is kept for the new revision. Without a message, an operator's put records
-- an operator-authored entry with visibility conversation and no evidence, which no
-- conversation's recall or context returns (reachable through the store only); a
-- runtime's put needs the message it comes from (22004): no evidence is invented.
CREATE OR REPLACE FUNCTION agent_state.graph_item_put(
    agent uuid,
    namespace text [],
    key text,
    value jsonb,
    body text,
    message uuid DEFAULT NULL
)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    cur_entry uuid;
    cur_rev integer;
    is_live boolean;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(value, 'value');
    PERFORM agent_state._need_graph_namespace(namespace);
    PERFORM agent_state._need_text(key, 'key', 1000);
    PERFORM agent_state._need_json(value, 'value', ARRAY['object']);
    SELECT i.entry_id, e.current_revision, e.live INTO cur_entry, cur_rev, is_live
    FROM agent_state.graph_items AS i
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id
    WHERE i.runtime_agent_id = agent AND i.namespace = namespace AND i.key = key
    FOR NO KEY UPDATE OF i;
    IF FOUND AND is_live THEN
        entry := cur_entry;
        revision := agent_state.amend(agent, cur_entry, body, cur_rev, message);
    ELSE
        IF message IS NOT NULL THEN
            SELECT r.entry, r.revision INTO entry, revision
            FROM agent_state.remember(agent, body, message) AS r;
        ELSIF agent_state._caller_is_operator() THEN
            PERFORM agent_state._need_text(body, 'body');
            SELECT r.entry, r.revision INTO entry, revision
            FROM agent_state._insert_memory(agent, body, NULL, 'conversation', 'operator', NULL, NULL, NULL) AS r;
        ELSE
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'message: a runtime''s store writes need the message they come from',
                HINT = 'Bind the store to a conversation and message (store.bind); agent memory '
                    || 'always has evidence.';
        END IF;
        IF cur_entry IS NULL THEN
            INSERT INTO agent_state.graph_items (runtime_agent_id, namespace, key, entry_id)
            VALUES (agent, namespace, key, entry);
        ELSE
            UPDATE agent_state.graph_items AS i SET entry_id = entry
            WHERE i.runtime_agent_id = agent AND i.namespace = namespace AND i.key = key;
        END IF;
    END IF;
    INSERT INTO agent_state.graph_item_values (runtime_agent_id, entry_id, revision, value)
    VALUES (agent, entry, revision, value);
    RETURN NEXT;
END
$$;

COMMENT ON FUNCTION agent_state.graph_item_put(uuid, text [], text, jsonb, text, uuid) IS
'graph_item_put(agent, namespace, key, value, body, message => null) -> (entry, revision) (for '
'the LangGraph store): the item is a memory entry (body: its searchable text) with the value '
'kept per revision; a live key is amended, a deleted one re-created. With message: remembered '
'from it (its author and audience are the provenance). Without: an operator records an item '
'no conversation''s recall returns; a runtime gets 22004 (no evidence is invented).';
-- LangGraph store reads: get (one key) and search (a namespace prefix, with an
-- optional query and a filter on the value), over live items. With a conversation,
-- only items that may enter its context (recall's eligibility rules); without one,
-- every item of the agent. Never writes.
CREATE OR REPLACE FUNCTION agent_state.graph_item_search(
    agent uuid,
    namespace_prefix text [],
    query text DEFAULT NULL,
    filter jsonb DEFAULT NULL,
    max_results integer DEFAULT 10,
    skip integer DEFAULT 0,
    conversation uuid DEFAULT NULL,
    item_key text DEFAULT NULL
)
RETURNS TABLE (
    namespace text [], key text, value jsonb, created_at timestamptz, updated_at timestamptz,
    score double precision
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    t record;
    q tsquery;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(filter, 'filter', 1000000);
    IF namespace_prefix IS NULL THEN
        namespace_prefix := '{}';
    END IF;
    IF max_results IS NULL OR skip IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'max_results: must not be null';
    END IF;
    IF max_results < 0 OR skip < 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must not be negative';
    END IF;
    IF pg_catalog.length(query) > 10000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'query: longer than 10000 characters';
    END IF;
    q := agent_state._match_query(query, 'any');
    t := agent_state._conversation_target(agent, conversation, NULL);
    -- Driven by the items under the prefix, each item's entry and value read by
    -- primary key (OFFSET 0 keeps these lookups per item: planned as joins
    -- before the first ANALYZE, they scanned every entry of the agent for each
    -- item). Eligibility is tested on each item's entry (rules 2 and 3, as recall
    -- applies them).
    RETURN QUERY
    SELECT i.namespace, i.key, e.value, i.created_at, e.revised_at,
           CASE WHEN q IS NULL THEN NULL ELSE pg_catalog.ts_rank(e.tsv, q)::double precision END
    FROM agent_state.graph_items AS i
    CROSS JOIN LATERAL (
        SELECT m.entry_id, m.revised_at, m.tsv, v.value
        FROM agent_state.memory_entries AS m
        -- The value of the newest revision that has one: an entry amended
        -- through amend() (not the store) keeps its item and its last value.
        CROSS JOIN LATERAL (
            SELECT w.value FROM agent_state.graph_item_values AS w
            WHERE w.runtime_agent_id = m.runtime_agent_id AND w.entry_id = m.entry_id
              AND w.revision <= m.current_revision
            ORDER BY w.revision DESC
            LIMIT 1
        ) AS v
        CROSS JOIN LATERAL agent_state._memory_admits(
            agent, m.entry_id, m.current_revision, m.visibility, m.evidence_observers,
            m.evidence_conversations, conversation, t.known, t.audience, NULL
        ) AS ok
        WHERE m.runtime_agent_id = i.runtime_agent_id AND m.entry_id = i.entry_id AND m.live
          AND (filter IS NULL OR v.value @> filter)
          AND (q IS NULL OR m.tsv @@ q)
          AND (conversation IS NULL OR ok.admitted)
        OFFSET 0
    ) AS e
    WHERE i.runtime_agent_id = agent
      AND i.namespace[1:pg_catalog.cardinality(namespace_prefix)] = namespace_prefix
      -- With item_key, one item: that key in exactly that namespace (a get reads
      -- it by primary key, whatever lies under the namespace).
      AND (item_key IS NULL OR (i.key = item_key AND i.namespace = namespace_prefix))
    ORDER BY 6 DESC NULLS LAST, e.revised_at DESC, i.namespace, i.key
    LIMIT max_results OFFSET skip;
END
$$;

COMMENT ON FUNCTION agent_state.graph_item_search(uuid, text [], text, jsonb, integer, integer, uuid, text) IS
'graph_item_search(agent, namespace_prefix, query => null, filter => null, max_results => 10, '
'skip => 0, conversation => null, item_key => null) -> (namespace, key, value, created_at, '
'updated_at, score) (for the LangGraph store): live items under the prefix (with item_key, '
'the one item of that key in exactly the namespace namespace_prefix; get is this), '
'value containing filter, matching any word of query (score: its rank), newest first otherwise. '
'With a conversation, only items eligible for its context. Reads only.';
-- LangGraph checkpointer reads, one round trip: checkpoints newest first (ids sort
-- by time), each with its pending writes in LangGraph's order (task_path, task_id,
-- idx). get_tuple is this with a thread, a namespace and max_results 1.
CREATE OR REPLACE FUNCTION agent_state.graph_list(
    agent uuid,
    thread text DEFAULT NULL,
    namespace text DEFAULT NULL,
    checkpoint text DEFAULT NULL,
    filter jsonb DEFAULT NULL,
    before text DEFAULT NULL,
    max_results integer DEFAULT NULL
)
RETURNS TABLE (
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    parent_checkpoint_id text,
    payload_type text,
    payload bytea,
    metadata jsonb,
    run_id uuid,
    write_task_ids text [],
    write_channels text [],
    write_types text [],
    write_values bytea []
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Planned per call: which of thread, namespace, checkpoint and before are given
-- decides whether the primary key serves the read (a generic plan cannot tell).
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(filter, 'filter', 1000000);
    IF filter IS NOT NULL AND pg_catalog.jsonb_typeof(filter) <> 'object' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'filter: must be a JSON object';
    END IF;
    IF max_results < 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must not be negative';
    END IF;
    -- The checkpoints first (the primary key's order, limit applied), their
    -- pending writes then for those only.
    RETURN QUERY
    SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.payload_type,
           c.payload, c.metadata, c.run_id, w.task_ids, w.channels, w.types, w.vals
    FROM (
        SELECT k.*
        FROM agent_state.graph_checkpoints AS k
        WHERE k.runtime_agent_id = graph_list.agent
          AND (graph_list.thread IS NULL OR k.thread_id = graph_list.thread)
          AND (graph_list.namespace IS NULL OR k.checkpoint_ns = graph_list.namespace)
          AND (graph_list.checkpoint IS NULL OR k.checkpoint_id = graph_list.checkpoint)
          AND (graph_list.filter IS NULL OR k.metadata @> graph_list.filter)
          AND (graph_list.before IS NULL OR k.checkpoint_id < graph_list.before)
        ORDER BY k.checkpoint_id DESC, k.thread_id, k.checkpoint_ns
        LIMIT graph_list.max_results
    ) AS c
    LEFT JOIN LATERAL (
        SELECT pg_catalog.array_agg(x.task_id ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx),
               pg_catalog.array_agg(x.channel ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx),
               pg_catalog.array_agg(x.value_type ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx),
               pg_catalog.array_agg(x.value ORDER BY x.task_path COLLATE "C", x.task_id COLLATE "C", x.idx)
        FROM agent_state.graph_writes AS x
        WHERE x.runtime_agent_id = c.runtime_agent_id AND x.thread_id = c.thread_id
          AND x.checkpoint_ns = c.checkpoint_ns AND x.checkpoint_id = c.checkpoint_id
    ) AS w (task_ids, channels, types, vals) ON true
    ORDER BY c.checkpoint_id DESC, c.thread_id, c.checkpoint_ns;
END
$$;

COMMENT ON FUNCTION agent_state.graph_list(uuid, text, text, text, jsonb, text, integer) IS
'graph_list(agent, thread => null, namespace => null, checkpoint => null (an id), filter => '
'null, before => null (an id), max_results => null) -> (thread_id, checkpoint_ns, checkpoint_id, '
'parent_checkpoint_id, payload_type, payload, metadata, run_id, write_task_ids, write_channels, '
'write_types, write_values) (for the LangGraph checkpointer): stored checkpoints newest first '
'(run_id: the agent_state run each belongs to, for recover_run), '
'each with its pending writes; filter matches metadata (JSON containment). Reads only.';
CREATE OR REPLACE FUNCTION agent_state.graph_list_namespaces(
    agent uuid,
    prefix text [] DEFAULT NULL,
    suffix text [] DEFAULT NULL,
    max_depth integer DEFAULT NULL,
    max_results integer DEFAULT 100,
    skip integer DEFAULT 0
)
RETURNS TABLE (namespace text [])
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._bind(agent);
    IF max_results < 0 OR skip < 0 OR max_depth < 1 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'max_results: max_results and skip >= 0, max_depth >= 1';
    END IF;
    -- '*' in a prefix or suffix matches any one label (LangGraph's wildcard).
    RETURN QUERY
    SELECT DISTINCT n.ns
    FROM (
        SELECT CASE WHEN max_depth IS NULL THEN i.namespace ELSE i.namespace[1:max_depth] END AS ns,
               i.namespace AS full_ns
        FROM agent_state.graph_items AS i
        JOIN agent_state.memory_entries AS e
          ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id AND e.live
        WHERE i.runtime_agent_id = agent
    ) AS n
    WHERE (prefix IS NULL OR (
              pg_catalog.cardinality(n.full_ns) >= pg_catalog.cardinality(prefix)
              AND NOT EXISTS (
                  SELECT FROM pg_catalog.generate_subscripts(prefix, 1) AS g
                  WHERE prefix[g] <> '*' AND prefix[g] <> n.full_ns[g])))
      AND (suffix IS NULL OR (
              pg_catalog.cardinality(n.full_ns) >= pg_catalog.cardinality(suffix)
              AND NOT EXISTS (
                  SELECT FROM pg_catalog.generate_subscripts(suffix, 1) AS g
                  WHERE suffix[g] <> '*'
                    AND suffix[g] <> n.full_ns[pg_catalog.cardinality(n.full_ns)
                                              - pg_catalog.cardinality(suffix) + g])))
    ORDER BY 1
    LIMIT max_results OFFSET skip;
END
$$;

COMMENT ON FUNCTION agent_state.graph_list_namespaces(uuid, text [], text [], integer, integer, integer) IS
'graph_list_namespaces(agent, prefix => null, suffix => null, max_depth => null, max_results => '
'100, skip => 0) -> namespace (for the LangGraph store): the distinct namespaces of live items '
'(''*'' in prefix or suffix matches any label), cut to max_depth labels, sorted. Reads only.';
CREATE OR REPLACE FUNCTION agent_state.graph_prune(
    agent uuid,
    thread_ids text [],
    strategy text DEFAULT 'keep_latest',
    reason text DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    t record;
    n integer := 0;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(thread_ids, 'thread_ids');
    PERFORM agent_state._need_one_of(strategy, 'strategy', ARRAY['keep_latest', 'delete']);
    reason := coalesce(reason, 'prune ' || strategy);
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    FOR t IN
        SELECT c.thread_id, pg_catalog.array_agg(c.checkpoint_ns) AS nss,
               pg_catalog.array_agg(c.checkpoint_id) AS ids
        FROM agent_state.graph_checkpoints AS c
        WHERE c.runtime_agent_id = agent AND c.thread_id = ANY (thread_ids)
          -- keep_latest: all but the newest checkpoint of each namespace
          AND (strategy = 'delete' OR EXISTS (
              SELECT FROM agent_state.graph_checkpoints AS newer
              WHERE newer.runtime_agent_id = c.runtime_agent_id AND newer.thread_id = c.thread_id
                AND newer.checkpoint_ns = c.checkpoint_ns
                AND newer.checkpoint_id > c.checkpoint_id))
        GROUP BY c.thread_id
        ORDER BY c.thread_id
    LOOP
        n := n + agent_state._graph_purge(agent, t.thread_id, t.nss, t.ids, reason);
    END LOOP;
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.graph_prune(uuid, text [], text, text) IS
'graph_prune(agent, thread_ids, strategy => ''keep_latest'', reason => null) -> int (for the '
'LangGraph checkpointer): keep_latest removes all but the newest checkpoint of each namespace of '
'each thread, delete removes all; through one audited purge record per thread. strategy: 22023 '
'otherwise.';
-- LangGraph checkpointer: store one checkpoint of a thread (see sql/graph.sql).
-- The thread becomes a conversation on first use; a new LangGraph run id becomes
-- a run continuing the thread's latest one (so its budget carries over), and the
-- checkpoint is recorded as that run's frontier, for recover_run.
CREATE OR REPLACE FUNCTION agent_state.graph_put(
    agent uuid,
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    parent_checkpoint_id text,
    payload_type text,
    payload bytea,
    metadata jsonb
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    graph_run text;
    conv uuid;
    cur uuid;
    run uuid;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(metadata, 'metadata');
    PERFORM agent_state._need_text(thread_id, 'thread_id', 1000);
    PERFORM agent_state._need(checkpoint_ns, 'checkpoint_ns');
    IF pg_catalog.length(checkpoint_ns) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'checkpoint_ns: longer than 1000 characters';
    END IF;
    PERFORM agent_state._need_text(checkpoint_id, 'checkpoint_id', 200);
    PERFORM agent_state._need_text(payload_type, 'payload_type', 200);
    PERFORM agent_state._need(payload, 'payload');
    PERFORM agent_state._need_json(metadata, 'metadata', ARRAY['object']);
    graph_run := metadata ->> 'run_id';

    SELECT t.conversation, t.run INTO conv, cur FROM agent_state._graph_thread(agent, thread_id) AS t;

    IF graph_run IS NOT NULL THEN
        SELECT r.run_id INTO run
        FROM agent_state.graph_runs AS r
        WHERE r.runtime_agent_id = agent AND r.thread_id = thread_id AND r.graph_run_id = graph_run;
    ELSE
        run := cur;
    END IF;
    IF run IS NULL THEN
        IF cur IS NULL THEN
            run := agent_state.start_run(agent, conv);
        ELSE
            run := agent_state.continue_run(agent, cur,
                pg_catalog.jsonb_build_object('thread_id', thread_id, 'graph_run_id', graph_run));
        END IF;
        UPDATE agent_state.graph_threads AS t SET current_run_id = run
        WHERE t.runtime_agent_id = agent AND t.thread_id = thread_id;
        IF graph_run IS NOT NULL THEN
            INSERT INTO agent_state.graph_runs (runtime_agent_id, thread_id, graph_run_id, run_id)
            VALUES (agent, thread_id, graph_run, run);
        END IF;
        cur := run;
    END IF;

    INSERT INTO agent_state.graph_checkpoints AS c
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, run_id,
         graph_run_id, payload_type, payload, metadata)
    VALUES (agent, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, run, graph_run,
            payload_type, payload, metadata)
    ON CONFLICT ON CONSTRAINT graph_checkpoints_pkey DO NOTHING;
    -- The run ledger's frontier: where to resume. (A checkpoint of an earlier
    -- LangGraph run of the thread, whose run was handed off, is stored only.)
    IF FOUND AND run = cur THEN
        PERFORM agent_state.checkpoint(agent, run, pg_catalog.jsonb_build_object(
            'thread_id', thread_id, 'checkpoint_ns', checkpoint_ns, 'checkpoint_id', checkpoint_id));
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.graph_put(uuid, text, text, text, text, text, bytea, jsonb) IS
'graph_put(agent, thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, payload_type, '
'payload, metadata) (for the LangGraph checkpointer): stores a serialized checkpoint. The thread '
'is a conversation (connector langgraph); metadata.run_id names the LangGraph run, which becomes a '
'run continuing the thread''s latest one; the checkpoint is recorded as that run''s frontier '
'(recover_run). Storing an id again is a no-op.';
CREATE OR REPLACE FUNCTION agent_state.graph_put_writes(
    agent uuid,
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    task_id text,
    task_path text,
    idxs integer [],
    channels text [],
    value_types text [],
    writes_values bytea []
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_text(thread_id, 'thread_id', 1000);
    PERFORM agent_state._need(checkpoint_ns, 'checkpoint_ns');
    IF pg_catalog.length(checkpoint_ns) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'checkpoint_ns: longer than 1000 characters';
    END IF;
    PERFORM agent_state._need_text(checkpoint_id, 'checkpoint_id', 200);
    PERFORM agent_state._need_text(task_id, 'task_id', 1000);
    IF idxs IS NULL OR channels IS NULL OR value_types IS NULL OR writes_values IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'idxs: the write arrays must not be null';
    END IF;
    IF NOT (pg_catalog.cardinality(idxs) = pg_catalog.cardinality(channels)
            AND pg_catalog.cardinality(idxs) = pg_catalog.cardinality(value_types)
            AND pg_catalog.cardinality(idxs) = pg_catalog.cardinality(writes_values)) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'idxs: the write arrays must have one length';
    END IF;
    IF EXISTS (
        SELECT FROM ROWS FROM (pg_catalog.unnest(channels), pg_catalog.unnest(value_types)) AS u (c, t)
        WHERE u.c IS NULL OR u.t IS NULL OR pg_catalog.length(u.c) > 1000 OR pg_catalog.length(u.t) > 1000
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'channels, value_types: every channel and value type is 1 to 1000 characters';
    END IF;
    -- Writes may reach the database before their checkpoint (LangGraph saves
    -- checkpoints in the background): they belong to the thread, not to a stored
    -- checkpoint.
    PERFORM agent_state._graph_thread(agent, thread_id);
    -- A write already stored is kept (LangGraph retries), except a special write
    -- (idx < 0), which the next one replaces.
    INSERT INTO agent_state.graph_writes AS w
        (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value_type,
         value, task_path)
    SELECT agent, thread_id, checkpoint_ns, checkpoint_id, task_id, u.idx, u.channel, u.value_type,
           u.value, coalesce(task_path, '')
    FROM ROWS FROM (pg_catalog.unnest(idxs), pg_catalog.unnest(channels), pg_catalog.unnest(value_types),
                    pg_catalog.unnest(writes_values)) AS u (idx, channel, value_type, value)
    ON CONFLICT ON CONSTRAINT graph_writes_pkey DO UPDATE
    SET value_type = excluded.value_type, value = excluded.value, task_path = excluded.task_path
    WHERE w.idx < 0;
END
$$;

COMMENT ON FUNCTION agent_state.graph_put_writes(uuid, text, text, text, text, text, integer [], text [], text [], bytea []) IS
'graph_put_writes(agent, thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idxs, '
'channels, value_types, writes_values) (for the LangGraph checkpointer): stores a task''s '
'pending writes of a checkpoint of the thread (which may be stored after them); a write stored '
'again is kept, except special writes (idx < 0), which are replaced.';
-- The list items of a markdown document, in document order: line_no of the item's
-- first line, its text, and the actor id named by the enclosing "### Name (<uuid>)"
-- heading (null when there is none).
--
-- An item starts at a line "- text" or "* text" (indented at most 3 spaces). Lines
-- that follow it belong to it when indented (nested lists, continuation paragraphs,
-- also after blank lines) or, without a blank line in between, when they are plain
-- text (lazy continuation); they are joined with newlines, leading whitespace
-- removed. Everything else (headings, paragraphs, fenced code blocks, thematic
-- breaks) ends the item and is not an item itself. Blank items are skipped.
-- So that an export can be imported again, an item whose first line is a
-- provenance line written by export_markdown ("(entry <uuid>, revision n, ...)")
-- keeps only the lines after it, and the export's own "## Persona (revision n)" /
-- "## Persona (none)" and "## Tool grants" sections are skipped.
--
-- Linear in the document: an item's lines are collected in an array (PL/pgSQL
-- appends to an array variable in place) and joined once, when the item ends;
-- appending to a string would copy it for every line.
CREATE OR REPLACE FUNCTION agent_state._markdown_items(document text)
RETURNS TABLE (line_no integer, body text, subject_ref uuid)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    ln text;
    n integer := 0;
    in_fence boolean := false;
    skipping boolean := false;
    prev_blank boolean := true;
    cur text [];
    cur_line integer;
    subj uuid;
    m text [];
    heading text;
    first_line text;
BEGIN
    FOREACH ln IN ARRAY pg_catalog.string_to_array(
        pg_catalog.replace(document, E'\r\n', E'\n'), E'\n') LOOP
        n := n + 1;
        ln := pg_catalog.replace(ln, E'\r', '');
        IF in_fence THEN
            IF ln ~ '^ {0,3}(```|~~~)' THEN
                in_fence := false;
            END IF;
            CONTINUE;
        END IF;
        IF pg_catalog.btrim(ln, E' \t') = '' THEN
            prev_blank := true;
            CONTINUE;
        END IF;

        -- Inside an item: lines indented two spaces or a tab (nested lists too)
        -- continue it; one space continues it unless the line is a sibling item.
        IF cur IS NOT NULL AND (ln ~ E'^(  |\t)' OR (ln ~ '^ ' AND ln !~ E'^ [-*]([ \t]|$)')) THEN
            cur := cur || pg_catalog.btrim(ln, E' \t');
            prev_blank := false;
            CONTINUE;
        END IF;

        m := pg_catalog.regexp_match(ln, E'^ {0,3}[-*](?:[ \t]+(.*))?$');
        IF m IS NOT NULL AND ln !~ E'^ {0,3}([-*])([ \t]*\\1){2,}[ \t]*$' THEN
            body := pg_catalog.array_to_string(cur, E'\n');
            IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(body, E' \t\n') <> '' THEN
                line_no := cur_line; subject_ref := subj;
                RETURN NEXT;
            END IF;
            first_line := pg_catalog.btrim(coalesce(m[1], ''), E' \t');
            -- Empty, or a provenance line of an export: the item is its other lines.
            cur := CASE
                WHEN first_line = ''
                  OR first_line ~ '^\(entry [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}, revision [0-9]+, .*\)$'
                THEN '{}'::text []
                ELSE ARRAY[first_line]
            END;
            cur_line := n;
            prev_blank := false;
            CONTINUE;
        END IF;

        -- Any other line: lazy continuation of an item, or the item ends here.
        IF cur IS NOT NULL AND NOT prev_blank
            AND ln !~ '^ {0,3}(#{1,6}([ \t]|$)|```|~~~)'
            AND ln !~ E'^ {0,3}([-*_])([ \t]*\\1){2,}[ \t]*$' THEN
            cur := cur || pg_catalog.btrim(ln, E' \t');
            CONTINUE;
        END IF;
        body := pg_catalog.array_to_string(cur, E'\n');
        IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(body, E' \t\n') <> '' THEN
            line_no := cur_line; subject_ref := subj;
            RETURN NEXT;
        END IF;
        cur := NULL;
        prev_blank := false;

        IF ln ~ '^ {0,3}(```|~~~)' THEN
            in_fence := true;
            CONTINUE;
        END IF;
        m := pg_catalog.regexp_match(ln, E'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$');
        IF m IS NOT NULL THEN
            heading := pg_catalog.btrim(pg_catalog.regexp_replace(coalesce(m[2], ''), E'[ \t]+#+$', ''), E' \t');
            IF pg_catalog.length(m[1]) <= 2 THEN
                skipping := pg_catalog.length(m[1]) = 2
                    AND heading ~ '^(Persona \((revision [0-9]+|none)\)|Tool grants)$';
                subj := NULL;
            ELSIF pg_catalog.length(m[1]) = 3 THEN
                subj := pg_catalog.substring(heading,
                    '\(([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\)$')::uuid;
            END IF;
        END IF;
    END LOOP;
    body := pg_catalog.array_to_string(cur, E'\n');
    IF cur IS NOT NULL AND NOT skipping AND pg_catalog.btrim(body, E' \t\n') <> '' THEN
        line_no := cur_line; subject_ref := subj;
        RETURN NEXT;
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION agent_state.export_markdown(agent uuid)
RETURNS text
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    title text;
    handle text;
    persona text;
    memories text;
    grants text;
BEGIN
    PERFORM agent_state._bind(agent);

    SELECT agent_state._md_line(coalesce(a.display_name, a.handle)), agent_state._md_line(a.handle)
    INTO title, handle
    FROM agent_state.agents AS a
    WHERE a.runtime_agent_id = agent;

    -- The persona is quoted, so its text can never read as a section of the export.
    SELECT '## Persona (revision ' || r.revision || E')\n\n'
        || pg_catalog.regexp_replace(
            '> ' || pg_catalog.replace(agent_state._md_body(r.body), E'\n', E'\n> '), '> $', '>', 'gn')
    INTO persona
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = agent AND r.is_active;

    -- Live entries grouped by subject (by display name, then actor id; unattributed
    -- last), each group oldest entry first. Each item's first line is its
    -- provenance (entry, current revision, visibility, source), written by the
    -- database, so no body text can pass for it; the body follows, indented.
    WITH e AS (
        SELECT m.entry_id, m.current_revision, m.body, m.subject_id, m.visibility, m.created_at,
               r.source_type, r.source_actor_id, r.source_import_id,
               subj.display_name AS subject_name,
               src.display_name AS source_name,
               (SELECT pg_catalog.count(*)
                FROM agent_state._revision_evidence(m.runtime_agent_id, m.entry_id,
                                                    m.current_revision)) AS evidence_count
        FROM agent_state.memory_entries AS m
        JOIN agent_state.memory_revisions AS r
          ON r.runtime_agent_id = m.runtime_agent_id AND r.entry_id = m.entry_id
         AND r.revision = m.current_revision
        LEFT JOIN agent_state.actors AS subj
          ON subj.runtime_agent_id = m.runtime_agent_id AND subj.actor_id = m.subject_id
        LEFT JOIN agent_state.actors AS src
          ON src.runtime_agent_id = r.runtime_agent_id AND src.actor_id = r.source_actor_id
        WHERE m.runtime_agent_id = agent AND m.live
          AND NOT EXISTS (
              SELECT FROM agent_state.memory_redactions AS x
              WHERE x.runtime_agent_id = m.runtime_agent_id AND x.entry_id = m.entry_id
          )
    ),
    groups AS (
        SELECT e.subject_id, e.subject_name,
               CASE WHEN e.subject_id IS NULL THEN '### Unattributed'
                   ELSE '### ' || agent_state._md_line(coalesce(e.subject_name, 'Unnamed actor'))
                       || ' (' || e.subject_id || ')'
               END || E'\n\n' || pg_catalog.string_agg(
                   '- (entry ' || e.entry_id || ', revision ' || e.current_revision
                   || ', ' || e.visibility || ', source ' || e.source_type
                   || CASE WHEN e.source_actor_id IS NOT NULL
                       THEN ', actor ' || agent_state._md_line(coalesce(e.source_name, 'Unnamed actor'))
                           || ' (' || e.source_actor_id || ')'
                       ELSE '' END
                   || CASE WHEN e.source_import_id IS NOT NULL
                       THEN ', import ' || e.source_import_id ELSE '' END
                   || CASE WHEN e.evidence_count = 1 THEN ', 1 evidence message'
                       WHEN e.evidence_count > 1 THEN ', ' || e.evidence_count || ' evidence messages'
                       ELSE '' END
                   || E')\n  ' || pg_catalog.regexp_replace(
                       agent_state._md_body(e.body), E'\n(?=[^\n])', E'\n  ', 'g'),
                   E'\n' ORDER BY e.created_at, e.entry_id) AS txt
        FROM e
        GROUP BY e.subject_id, e.subject_name
    )
    SELECT pg_catalog.string_agg(g.txt, E'\n\n'
        ORDER BY g.subject_id IS NULL, g.subject_name COLLATE "C" NULLS LAST, g.subject_id)
    INTO memories
    FROM groups AS g;

    SELECT pg_catalog.string_agg(
        '- ' || agent_state._md_line(g.tool_name) || ': revision ' || g.revision
        || CASE WHEN g.enabled THEN ', enabled' ELSE ', disabled' END
        || ', config ' || agent_state._json_canonical(g.config)
        || ', tool version ' || agent_state._md_line(g.tool_version),
        E'\n' ORDER BY g.tool_name COLLATE "C")
    INTO grants
    FROM (
        SELECT DISTINCT ON (tg.tool_name) tg.tool_name, tg.revision, tg.enabled, tg.config, tg.tool_version
        FROM agent_state.tool_grants AS tg
        WHERE tg.runtime_agent_id = agent
        ORDER BY tg.tool_name, tg.revision DESC
    ) AS g;

    RETURN pg_catalog.array_to_string(ARRAY[
        '# ' || title,
        'Agent `' || handle || '` (' || agent || '), exported from agent_state. '
        || 'This file is a view; the database is canonical.',
        coalesce(persona, E'## Persona (none)\n\nNo persona revision is active.'),
        '## Memories',
        coalesce(memories, 'No live memories.'),
        '## Tool grants',
        coalesce(grants, 'No tool grants.')
    ], E'\n\n') || E'\n';
END
$$;

COMMENT ON FUNCTION agent_state.export_markdown(uuid) IS
'export_markdown(agent) -> text: deterministic markdown view of the agent: active persona with '
'its revision, live memories grouped by subject with revision, visibility and provenance, and '
'the current grant of each tool. Reads only; the same state gives the same text.';
CREATE OR REPLACE FUNCTION agent_state.import_markdown(agent uuid, document text)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    bodies text [];
    subjects uuid [];
    long_line integer;
    imp bigint;
    i integer;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(document, 'document', 1000000);

    -- Parse and check everything before the first write. A heading's actor id is
    -- used as the subject only when it names an actor of this perspective.
    SELECT pg_catalog.array_agg(it.body ORDER BY it.line_no),
           pg_catalog.array_agg(a.actor_id ORDER BY it.line_no),
           pg_catalog.min(it.line_no) FILTER (WHERE pg_catalog.length(it.body) > 100000)
    INTO bodies, subjects, long_line
    FROM agent_state._markdown_items(document) AS it
    LEFT JOIN agent_state.actors AS a
      ON a.runtime_agent_id = agent AND a.actor_id = it.subject_ref;
    IF long_line IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format(
                'document: the list item at line %s is longer than 100000 characters', long_line);
    END IF;
    IF bodies IS NULL THEN
        RETURN 0;
    END IF;

    INSERT INTO agent_state.memory_imports AS mi (runtime_agent_id, document, document_sha256)
    VALUES (agent, document,
            pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(document, 'UTF8')), 'hex'))
    RETURNING mi.import_id INTO imp;

    FOR i IN 1 .. pg_catalog.cardinality(bodies) LOOP
        PERFORM agent_state._insert_memory(
            agent, bodies[i], subjects[i], 'perspective', 'import', NULL, NULL, imp);
    END LOOP;
    RETURN pg_catalog.cardinality(bodies);
END
$$;

COMMENT ON FUNCTION agent_state.import_markdown(uuid, text) IS
'import_markdown(agent, document) -> int (operator): stores the document as an import and '
'makes one memory entry (source_type import, visibility perspective) per list item; returns '
'the number created (0 when the document has no list items). Headings create no actors: a '
'"### Name (<actor id>)" heading sets the subject only for an actor of this agent. '
'Blank document or longer than 1,000,000 characters, or an item over 100,000: 22023.';
-- At commit of a redaction (_check_redaction).
CREATE OR REPLACE FUNCTION agent_state._check_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_redaction(NEW.runtime_agent_id, NEW.entry_id);
    RETURN NULL;
END
$$;
-- At commit of a new revision: what it claims, and the entry state written with
-- it (_check_revision).
CREATE OR REPLACE FUNCTION agent_state._check_memory_revision()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_revision(
        NEW.runtime_agent_id, NEW.entry_id, NEW.revision, NEW.source_message_id, NEW.source_actor_id,
        NEW.evidence_observers, NEW.evidence_conversations, NEW.visibility, NEW.created_at);
    RETURN NULL;
END
$$;
-- A redacted entry: every revision carries the marker, the entry is retired with
-- the marker as its body, and nothing derived from its text (embeddings, item
-- values) is left. Run at commit of a redaction and by verify().
CREATE OR REPLACE FUNCTION agent_state._check_redaction(agent uuid, entry uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry
          AND r.body <> '[redacted]'
    ) OR EXISTS (
        SELECT FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = agent AND e.entry_id = entry
          AND (e.live OR e.body <> '[redacted]')
    ) OR EXISTS (
        SELECT FROM agent_state.memory_embeddings AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry
    ) OR EXISTS (
        SELECT FROM agent_state.graph_item_values AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_redactions: entry %s still holds text that its redaction removed', entry);
    END IF;
    RETURN;
END
$$;
-- What a revision claims, and the entry state written with it: the check run at
-- commit for every new revision (_check_memory_revision) and by verify() for
-- every stored one. One query gathers what the evidence gives, the entry state and
-- what the revision before it allows; the checks below then raise in a fixed
-- order.
CREATE OR REPLACE FUNCTION agent_state._check_revision(
    agent uuid,
    entry uuid,
    rev integer,
    source_message uuid,
    source_actor uuid,
    claimed_observers uuid [],
    claimed_conversations uuid [],
    vis text,
    written_at timestamptz
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n_messages bigint;
    n_private bigint;
    convs uuid [];
    source_author uuid [];
    observers uuid [];
    bad text;
    entry_found boolean;
    cur integer;
    has_revision boolean;
    state_ok boolean;
    prev_found boolean;
BEGIN
    SELECT ev.n_messages, ev.n_private, ev.convs, ev.source_author, ev.observers,
           st.current_revision IS NOT NULL, st.current_revision, st.has_revision, st.ok,
           prev.revision IS NOT NULL, prev.bad
    INTO n_messages, n_private, convs, source_author, observers,
         entry_found, cur, has_revision, state_ok, prev_found, bad
    FROM (
        -- What the evidence gives (one message: its audience is the observer set).
        -- The revision's row is there (this runs after its insert, or on stored
        -- rows), so _revision_evidence reads its source message with its rows.
        SELECT pg_catalog.count(*) AS n_messages,
               pg_catalog.count(*) FILTER (WHERE m.audience IS NOT NULL) AS n_private,
               coalesce(pg_catalog.array_agg(DISTINCT m.conversation_id), '{}') AS convs,
               pg_catalog.array_agg(m.author_id) FILTER (WHERE m.message_id = source_message)
                   AS source_author,
               pg_catalog.min(m.audience) AS observers
        FROM agent_state._revision_evidence(agent, entry, rev) AS v (message_id)
        JOIN agent_state.messages AS m
          ON m.runtime_agent_id = agent AND m.message_id = v.message_id
    ) AS ev
    LEFT JOIN LATERAL (
        -- The entry's current state against its current revision (what
        -- _check_entry_state checks, inlined).
        SELECT e.current_revision, r.revision IS NOT NULL AS has_revision,
               e.current_revision = (
                   SELECT x.revision FROM agent_state.memory_revisions AS x
                   WHERE x.runtime_agent_id = e.runtime_agent_id AND x.entry_id = e.entry_id
                   ORDER BY x.revision DESC LIMIT 1)
               AND e.body = r.body
               AND e.subject_id IS NOT DISTINCT FROM r.subject_id
               AND e.visibility = r.visibility
               AND e.source_type = r.source_type
               AND e.evidence_observers IS NOT DISTINCT FROM r.evidence_observers
               AND e.evidence_conversations = r.evidence_conversations
               AND e.revised_at = r.created_at
               AND e.live = (r.operation <> 'forget' AND NOT EXISTS (
                   SELECT FROM agent_state.memory_redactions AS d
                   WHERE d.runtime_agent_id = e.runtime_agent_id AND d.entry_id = e.entry_id))
               AS ok
        FROM agent_state.memory_entries AS e
        LEFT JOIN agent_state.memory_revisions AS r
          ON r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id
         AND r.revision = e.current_revision
        WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    ) AS st ON true
    LEFT JOIN LATERAL (
        -- What the revision before it allows (none for a create: revisions start
        -- at 1). The subqueries only run when that revision exists.
        SELECT p.revision,
               CASE
                   WHEN p.operation = 'forget' THEN 'follows a forget'
                   WHEN p.visibility = 'conversation' AND vis <> 'conversation'
                       THEN 'widens visibility'
                   WHEN EXISTS (
                       SELECT FROM agent_state.memory_redactions AS d
                       WHERE d.runtime_agent_id = agent AND d.entry_id = entry
                         AND d.created_at <= written_at)
                       THEN 'follows a redaction'
                   WHEN EXISTS (
                       SELECT pv.message_id FROM agent_state._revision_evidence(agent, entry, rev - 1) AS pv (message_id)
                       EXCEPT
                       SELECT v.message_id FROM agent_state._revision_evidence(agent, entry, rev) AS v (message_id))
                       THEN 'drops evidence of the revision before it'
               END AS bad
        FROM agent_state.memory_revisions AS p
        WHERE p.runtime_agent_id = agent AND p.entry_id = entry
          AND p.revision = rev - 1
    ) AS prev ON true;

    IF n_private = 0 THEN
        observers := NULL;
    ELSIF n_messages > 1 THEN
        -- Who could observe every non-public evidence message.
        SELECT coalesce(pg_catalog.array_agg(x.a), '{}') INTO observers
        FROM (
            SELECT a.a
            FROM agent_state._revision_evidence(agent, entry, rev) AS v (message_id)
            JOIN agent_state.messages AS m
              ON m.runtime_agent_id = agent AND m.message_id = v.message_id
            CROSS JOIN LATERAL pg_catalog.unnest(m.audience) AS a (a)
            GROUP BY a.a
            HAVING pg_catalog.count(DISTINCT v.message_id) = n_private
        ) AS x;
    END IF;

    -- NULL (unrestricted) equals only NULL; otherwise set equality.
    IF (claimed_observers IS NULL) <> (observers IS NULL)
        OR NOT coalesce(claimed_observers <@ observers AND observers <@ claimed_observers, true)
        OR NOT (claimed_conversations <@ convs AND convs <@ claimed_conversations) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_revisions: revision %s of entry %s claims evidence observers or '
                'conversations its evidence messages do not give', rev, entry);
    END IF;
    IF source_message IS NOT NULL
        AND (source_author IS NULL OR source_author[1] IS DISTINCT FROM source_actor) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_revisions: revision %s of entry %s: the source message must be part of '
                'its evidence and the source actor its author', rev, entry);
    END IF;
    IF rev > 1 THEN
        IF NOT prev_found THEN
            bad := 'follows no revision';
        END IF;
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = CASE WHEN bad IN ('follows a forget', 'follows a redaction') THEN '55000'
                               ELSE '23514' END,
                MESSAGE = pg_catalog.format('memory_revisions: revision %s of entry %s %s',
                                            rev, entry, bad);
        END IF;
    END IF;

    -- The revision is written together with the entry state it produced (a
    -- missing entry is reported by the revision's own foreign key).
    IF entry_found THEN
        IF NOT has_revision THEN
            RAISE EXCEPTION USING
                ERRCODE = '23503',
                MESSAGE = pg_catalog.format('memory_entries: entry %s has no revision %s',
                                            entry, cur),
                HINT = 'An entry and its revision commit in one transaction.';
        END IF;
        IF state_ok IS NOT TRUE THEN
            RAISE EXCEPTION USING
                ERRCODE = '23514',
                MESSAGE = pg_catalog.format(
                    'memory_entries: entry %s does not match its latest revision', entry),
                HINT = 'The current state of an entry is always its latest revision.';
        END IF;
    END IF;
    RETURN;
END
$$;
-- The target of a read for a conversation: whether it has a message, and the
-- audience of its latest one (latest observed_at, then latest recorded), as of a
-- moment or now. P0002 (23503 if another perspective's) for an unknown one.
-- (context_for computes it in the statement that also reads the message's text
-- and author.)
CREATE OR REPLACE FUNCTION agent_state._conversation_target(
    agent uuid,
    conversation uuid,
    as_of timestamptz,
    OUT known boolean,
    OUT audience uuid []
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    known := false;
    IF conversation IS NULL THEN
        RETURN;
    END IF;
    SELECT coalesce(m.known, false), m.audience INTO known, audience
    FROM agent_state.conversations AS c
    LEFT JOIN LATERAL (
        SELECT true AS known, x.audience
        FROM agent_state.messages AS x
        WHERE x.runtime_agent_id = agent AND x.conversation_id = conversation
          AND (as_of IS NULL OR x.created_at <= as_of)
        ORDER BY x.observed_at DESC, x.created_at DESC, x.message_id DESC
        LIMIT 1
    ) AS m ON true
    WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation,
            EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
    END IF;
END
$$;
-- The current state, with a query, in some of the agent's weeks: live entries of
-- the agent revised in those weeks (windows: weeks as _memory_week counts them)
-- matching the query, with their ts_rank, through the third column of
-- memory_entries_search_idx. The same rows as _eligible_memory_search, only
-- restricted to those weeks.
CREATE OR REPLACE FUNCTION agent_state._eligible_memory_window(
    agent uuid,
    windows bigint [],
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid []
)
RETURNS TABLE (
    entry_id uuid,
    revision integer,
    body text,
    subject_id uuid,
    revised_at timestamptz,
    text_rank double precision
)
LANGUAGE sql
STABLE
AS $$
    SELECT e.entry_id, e.current_revision, e.body, e.subject_id, e.revised_at,
           pg_catalog.ts_rank(e.tsv, _eligible_memory_window.query)::double precision
    FROM agent_state.memory_entries AS e
    CROSS JOIN LATERAL agent_state._memory_admits(
        _eligible_memory_window.agent, e.entry_id, e.current_revision, e.visibility,
        e.evidence_observers, e.evidence_conversations,
        _eligible_memory_window.target_conversation, _eligible_memory_window.target_known,
        _eligible_memory_window.target_audience, NULL
    ) AS ok
    WHERE ok.admitted
      -- The three keys of memory_entries_search_idx: the agent, the weeks and
      -- the query (a week key holds every agent's entries of that week).
      AND ARRAY[e.runtime_agent_id] OPERATOR(pg_catalog.@>) ARRAY[_eligible_memory_window.agent]
      -- The week written out as the index writes it (see sql/memory.sql).
      AND ARRAY[pg_catalog.floor(
              EXTRACT(EPOCH FROM e.revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800
          )::bigint] OPERATOR(pg_catalog.&&) _eligible_memory_window.windows
      AND e.runtime_agent_id OPERATOR(pg_catalog.=) _eligible_memory_window.agent
      AND e.live
      AND e.tsv OPERATOR(pg_catalog.@@) _eligible_memory_window.query
    -- Not flattened into the caller, so ts_rank runs once per row.
    OFFSET 0
$$;
-- The name of the HNSW index that index_embeddings builds for one model and
-- dimension, over every agent's embeddings (agent NULL) or over one agent's:
-- deterministic, within PostgreSQL's 63 bytes for any model name (a model has
-- up to 200 characters, so it is named by a digest; a NUL byte, which text
-- cannot hold, separates the model from the agent in the digested bytes).
CREATE OR REPLACE FUNCTION agent_state._embedding_index(model text, dimensions integer, agent uuid)
RETURNS name
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format(
        CASE WHEN agent IS NULL THEN 'memory_embeddings_hnsw_%s_%s'
             ELSE 'memory_embeddings_hnsw_agent_%s_%s' END,
        dimensions,
        pg_catalog.left(pg_catalog.encode(pg_catalog.sha256(
            pg_catalog.convert_to(model, 'UTF8')
            || CASE WHEN agent IS NULL THEN ''::bytea
                    ELSE pg_catalog.decode('00', 'hex') || pg_catalog.uuid_send(agent) END
        ), 'hex'), 16)
    )::name
$$;
-- Data derived from a memory revision's text (embeddings, LangGraph item values):
-- never attached to a redacted entry (its text is gone), never updated, and
-- deleted only by redact, in the transaction that redacts the entry.
CREATE OR REPLACE FUNCTION agent_state._guard_derived_memory()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF EXISTS (
            SELECT FROM agent_state.memory_redactions AS d
            WHERE d.runtime_agent_id = NEW.runtime_agent_id AND d.entry_id = NEW.entry_id
        ) THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = pg_catalog.format('entry: memory entry %s is redacted', NEW.entry_id);
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND agent_state._redaction_allowed(OLD.runtime_agent_id, OLD.entry_id) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s refused; derived memory data is erased only by redact',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP));
END
$$;
-- Redactions: stamped with the writing transaction; append-only, except that the
-- transaction that wrote a row may append hashes to removed_sha256.
CREATE OR REPLACE FUNCTION agent_state._guard_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.redaction_xact := pg_catalog.pg_current_xact_id();
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE'
        AND OLD.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
        AND OLD.created_at >= pg_catalog.transaction_timestamp()
        AND (pg_catalog.to_jsonb(NEW) - 'removed_sha256') = (pg_catalog.to_jsonb(OLD) - 'removed_sha256')
        AND NEW.removed_sha256[1:pg_catalog.cardinality(OLD.removed_sha256)] = OLD.removed_sha256 THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s refused; the redaction record is append-only',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP));
END
$$;
-- hnsw.ef_search for the HNSW path of _rank_memory: how many candidates the
-- index keeps while it walks its graph, which bounds how close its answer comes
-- to the exact one. The setting agent_state.hnsw_ef_search (1 to 1000, pgvector's
-- range; 22023 otherwise), default 1000.
--
-- Why 1000: recall and context_for fuse the vector ranks of at least 50
-- neighbours, so the fused top 10 changes when the index misses any of the
-- nearest 50 or swaps two of them; the index's answer must be right to 50
-- places, not 10. Measured with bench/hybrid.py (clustered 384-dimension
-- embeddings, half the queries near an ineligible cluster), recall@10 of
-- hybrid recall against the exact scan: a 50,000-entry agent 0.85 at 200, 0.93
-- at 500, 0.95 at 700, 0.97 at 1000; a 200,000-entry agent 0.92 at 200, 0.96 at
-- 600, 0.98 at 1000 (370,000 embeddings, one shared index; at 1.2M embeddings,
-- where that agent is a sixth of the shared index, 0.86 from it and 0.96 from
-- an index of its own). The scan's cost grows with it (at 200,000 entries: p50
-- 18 ms at 200, 46 ms at 1000). Neither a strict order nor asking the index for
-- more candidates than the 50 and keeping the nearest by exact distance changed
-- the recall: the index's first batch of ef_search candidates decides it.
CREATE OR REPLACE FUNCTION agent_state._hnsw_ef_search()
RETURNS integer
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    setting text := pg_catalog.current_setting('agent_state.hnsw_ef_search', true);
BEGIN
    IF setting IS NULL OR setting = '' THEN
        RETURN 1000;
    END IF;
    IF setting ~ '^\s*[0-9]{1,4}\s*$' THEN
        IF setting::integer BETWEEN 1 AND 1000 THEN
            RETURN setting::integer;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '22023',
        MESSAGE = 'agent_state.hnsw_ef_search: must be an integer from 1 to 1000';
END
$$;
-- recall and context_for with a query embedding: the HNSW index to take the
-- agent's nearest neighbours from, or NULL for the exact scan. An index is used
-- when index_embeddings built it for this model and dimension (valid): the
-- agent's own one or the one over every agent's embeddings (where both exist,
-- the planner chooses by cost, and takes the agent's smaller one: a pytest
-- checks which one is scanned);
-- when pgvector has iterative index scans (0.8 or later), and the agent has at
-- least agent_state.hnsw_min_embeddings embeddings of the model (default 10000:
-- below that the exact scan is cheap and exact). The count stops at the
-- threshold, so the probe costs at most that many index entries.
CREATE OR REPLACE FUNCTION agent_state._hnsw_index(agent uuid, embedding_model text, dimensions integer)
RETURNS name
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    index_name name;
    own_index name := agent_state._embedding_index(embedding_model, dimensions, agent);
    setting text := pg_catalog.current_setting('agent_state.hnsw_min_embeddings', true);
    threshold integer := 10000;
BEGIN
    IF setting IS NOT NULL AND setting <> '' THEN
        IF setting !~ '^\s*[0-9]{1,9}\s*$' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'agent_state.hnsw_min_embeddings: must be an integer from 0 to 999999999';
        END IF;
        threshold := setting::integer;
    END IF;
    SELECT c.relname INTO index_name
    FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_index AS i ON i.indexrelid = c.oid
    WHERE c.relname IN (own_index, agent_state._embedding_index(embedding_model, dimensions, NULL))
      AND c.relnamespace = 'agent_state'::regnamespace
      AND i.indisvalid AND i.indisready
    ORDER BY c.relname = own_index DESC
    LIMIT 1;
    IF index_name IS NULL OR NOT agent_state._vector_iterative(
        (SELECT e.extversion FROM pg_catalog.pg_extension AS e WHERE e.extname = 'vector')
    ) OR (
        SELECT pg_catalog.count(*) FROM (
            SELECT FROM agent_state.memory_embeddings AS x
            WHERE x.runtime_agent_id = agent AND x.model = embedding_model
            LIMIT threshold
        ) AS s
    ) < threshold THEN
        RETURN NULL;
    END IF;
    RETURN index_name;
END
$$;
-- The one writer of new memory entries: remember, note and import_markdown all
-- create entries here, so an entry, its first revision and its evidence are always
-- written the same way.
--
-- _insert_memory(agent, body, subject, visibility, source_type, source_actor,
--   source_message, source_import) -> (entry, revision): the caller has bound the
-- call and checked body, subject and visibility. With a source_message the source
-- actor is that message's author (a different source_actor is refused, 22023),
-- its audience becomes evidence_observers (NULL when public) and its conversation
-- evidence_conversations; an unknown message raises P0002 (23503 when it belongs
-- to another perspective). Without one the entry restricts nobody (operator
-- notes, imports).
CREATE OR REPLACE FUNCTION agent_state._insert_memory(
    agent uuid,
    body text,
    subject uuid,
    visibility text,
    source_type text,
    source_actor uuid,
    source_message uuid,
    source_import bigint
)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    new_entry uuid := pg_catalog.gen_random_uuid();
    author uuid;
    observers uuid [];
    convs uuid [] := '{}'::uuid [];
BEGIN
    IF source_message IS NOT NULL THEN
        SELECT m.author_id, m.audience, ARRAY[m.conversation_id]
        INTO author, observers, convs
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = source_message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'source_message', source_message,
                EXISTS (SELECT FROM agent_state.messages AS m WHERE m.message_id = source_message));
        END IF;
        IF source_actor IS NOT NULL AND source_actor <> author THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'source_actor: must be the author of the source message';
        END IF;
    ELSIF source_actor IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'source_actor: only the author of a source message can be the source actor';
    END IF;

    -- The source message is the revision's evidence (its source_message_id
    -- column): a new entry has no evidence rows. One statement, so that even
    -- with SET CONSTRAINTS ALL IMMEDIATE the checks see the entry and its
    -- revision together.
    WITH rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, source_actor_id, source_message_id, source_import_id,
             evidence_observers, evidence_conversations)
        SELECT agent, new_entry, 1, 'create', body, subject, visibility,
               source_type, author, source_message, source_import, observers, convs
        RETURNING r.created_at
    )
    INSERT INTO agent_state.memory_entries
        (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
         source_type, evidence_observers, evidence_conversations, revised_at)
    SELECT agent, new_entry, 1, true, body, subject, visibility,
           source_type, observers, convs, rev.created_at
    FROM rev;

    entry := new_entry;
    revision := 1;
    RETURN NEXT;
END
$$;
-- The full-text query of recall and context_for. match 'all': websearch_to_tsquery
-- (every word, quoted phrases, OR, -not); 'any': the OR of the text's lexemes, so
-- that a revision containing any of them is a candidate, and ts_rank ranks those
-- covering more of them higher. NULL when the text has no lexemes (blank, stop
-- words only, punctuation). Any other match: 22023.
CREATE OR REPLACE FUNCTION agent_state._match_query(query text, match text)
RETURNS tsquery
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    q tsquery;
BEGIN
    IF match IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'match: must not be null';
    END IF;
    IF match = 'all' THEN
        IF pg_catalog.btrim(query, E' \t\r\n') <> '' THEN
            q := pg_catalog.websearch_to_tsquery('english'::regconfig, query);
        END IF;
    ELSIF match = 'any' THEN
        SELECT pg_catalog.string_agg(
                   '''' || pg_catalog.replace(pg_catalog.replace(l.lexeme, '\', '\\'), '''', '''''')
                   || '''', ' | ')::tsquery
        INTO q
        FROM pg_catalog.unnest(pg_catalog.to_tsvector('english'::regconfig, query)) AS l;
    ELSE
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'match: must be ''all'' or ''any''';
    END IF;
    IF pg_catalog.numnode(q) = 0 THEN
        q := NULL;
    END IF;
    RETURN q;
END
$$;
-- Time windows of memory_entries_search_idx (the exact top-k search of
-- _top_memory_search reads the agent's matches window by window, newest first).
-- A window is one agent's entries revised in one week: weeks counted from
-- 2000-01-01 00:00 UTC, week b holding the revised_at in
-- [to_timestamp(946684800 + 604800 b), to_timestamp(946684800 + 604800 (b + 1))).
-- Exact: the epoch of an interval is a numeric, so no entry is ever counted in a
-- neighbouring week. The index key is the week alone, in a column of its own:
-- it never mixes with the lexemes of tsv, so it cannot change what a query
-- matches, and the search intersects it with the agent's key (the first
-- column) and the query's lexemes, as GIN does for any three keys. A key per
-- agent and week was measured too: one key per entry for the many small
-- agents (an index 3x the size; the week alone adds 5%), for a window scan
-- about 0.8 ms faster on a 200,000-entry agent.
--
-- The index (sql/memory.sql) and _eligible_memory_window write this formula out
-- instead of calling the function (see the index's comment); the owner's
-- functions call it to number weeks.
CREATE OR REPLACE FUNCTION agent_state._memory_week(revised_at timestamptz)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT pg_catalog.floor(
               EXTRACT(EPOCH FROM revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800
           )::bigint
$$;

-- An embedding argument: a one-dimensional array of 1 to 16,000 finite numbers,
-- not all zero (cosine distance is undefined for the zero vector), with a
-- Euclidean norm from 1e-15 to 1e15: pgvector sums the squares in float4, which
-- overflows beyond a norm of about 1.8e19 and vanishes below about 1e-19, and
-- the cosine distance then is NaN, which would order neighbours wrongly (the
-- bounds keep a margin from both). 22004 null,
-- 22023 otherwise. The length first, before anything reads the elements.
CREATE OR REPLACE FUNCTION agent_state._need_embedding(val real [], arg text)
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF pg_catalog.cardinality(val) > 16000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': more than 16000 dimensions';
    END IF;
    IF pg_catalog.cardinality(val) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be empty';
    END IF;
    IF pg_catalog.array_ndims(val) <> 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must be a one-dimensional array';
    END IF;
    IF pg_catalog.array_position(val, NULL) IS NOT NULL
        OR 'NaN'::real = ANY (val) OR 'Infinity'::real = ANY (val) OR '-Infinity'::real = ANY (val) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': every component must be a finite number';
    END IF;
    IF 0::real = ALL (val) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be all zeros';
    END IF;
    IF (SELECT pg_catalog.sum(x::double precision * x::double precision)
        FROM pg_catalog.unnest(val) AS u (x)) NOT BETWEEN 1e-30 AND 1e30 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = arg || ': its Euclidean norm must be from 1e-15 to 1e15';
    END IF;
END
$$;
-- Every embedding of one model in one agent has the dimension its first one
-- fixed (SPEC section 6): 22023 naming the argument otherwise. A model the agent
-- has no embedding of yet has no dimension, and passes.
CREATE OR REPLACE FUNCTION agent_state._need_model_dimension(agent uuid, model text, dimensions integer, arg text)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    fixed integer;
BEGIN
    SELECT m.dimensions INTO fixed
    FROM agent_state.memory_embedding_models AS m
    WHERE m.runtime_agent_id = agent AND m.model = model;
    IF fixed <> dimensions THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: model %L has %s dimensions in this agent, not %s',
                                        arg, model, fixed, dimensions);
    END IF;
END
$$;
-- recall and context_for: a query embedding needs pgvector (0A000), a model
-- (22004), a valid shape, and the model's dimension in this agent when the agent
-- has embeddings of that model (22023). A model without an embedding is ignored.
CREATE OR REPLACE FUNCTION agent_state._need_query_embedding(agent uuid, query_embedding real [], embedding_model text)
RETURNS void
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF query_embedding IS NULL THEN
        RETURN;
    END IF;
    PERFORM agent_state._vector_schema('query_embedding');
    IF embedding_model IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'embedding_model: required with query_embedding';
    END IF;
    PERFORM agent_state._need_text(embedding_model, 'embedding_model', 200);
    PERFORM agent_state._need_embedding(query_embedding, 'query_embedding');
    PERFORM agent_state._need_model_dimension(agent, embedding_model,
                                              pg_catalog.cardinality(query_embedding), 'query_embedding');
END
$$;
-- Ranked eligible memory for one target. With fill, the rows relevant to the
-- query come first and the newest other eligible entries fill up to max_results
-- (text_rank 0, score 0).
--
-- Generic plans, always: the expanded eligibility query costs more to plan than
-- to run, and its branches are chosen at run time (one-time filters on the
-- parameters); the live branch with a query keeps its bitmap scan of
-- memory_entries_search_idx on (ARRAY[agent], tsv) with the agent and the query
-- as parameters.
CREATE OR REPLACE FUNCTION agent_state._rank_memory(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    current_subject uuid,
    max_results integer,
    as_of timestamptz,
    fill boolean,
    query_embedding real [],
    embedding_model text
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_variable
DECLARE
    settings jsonb;
    boost double precision := 1.0;
    half_life interval := '30 days'::interval;
    half_life_s double precision;
    ref_time timestamptz := coalesce(as_of, pg_catalog.now());
    n integer := LEAST(max_results, 1000);
    vschema name;
    hnsw name;
    k integer;
    vec_ids uuid [];
    vec_revs integer [];
    el_ids uuid [];
    el_revs integer [];
    el_times timestamptz [];
    old_iterative text;
    old_ef text;
    found_ids uuid [] := '{}';
BEGIN
    SELECT a.settings INTO settings FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent;
    IF settings ? 'subject_boost' THEN
        IF pg_catalog.jsonb_typeof(settings -> 'subject_boost') <> 'number'
            OR (settings ->> 'subject_boost')::numeric NOT BETWEEN 0 AND 1000000 THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'settings: subject_boost must be a number from 0 to 1000000';
        END IF;
        boost := (settings ->> 'subject_boost')::double precision;
    END IF;
    IF settings ? 'recency_half_life' THEN
        BEGIN
            half_life := (settings ->> 'recency_half_life')::interval;
        EXCEPTION WHEN data_exception OR syntax_error_or_access_rule_violation THEN
            half_life := NULL;
        END;
        IF half_life IS NULL OR half_life <= interval '0' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'settings: recency_half_life must be a positive interval';
        END IF;
    END IF;
    half_life_s := pg_catalog.date_part('epoch', half_life);
    IF NOT half_life_s > 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'settings: recency_half_life must be a positive interval';
    END IF;

    -- The semantic axis: the lexical matches and the eligible revisions nearest to
    -- the query embedding (at least 50, or 5 x max_results), fused by reciprocal
    -- rank, 1/(60 + lexical rank) + 1/(60 + vector rank), which then takes the
    -- subject boost and recency decay in place of text_rank. The nearest are taken
    -- among the eligible revisions only (an exact scan of the agent's eligible,
    -- embedded revisions), so an ineligible one never takes an eligible one's
    -- place.
    --
    -- Only the nearest-neighbour statement is dynamic SQL (pgvector's type and
    -- operator are named by the schema it is installed in, which this function
    -- learns at run time), and it is small: a dynamic statement is planned at
    -- every call, and planning the eligibility functions inlined into it cost
    -- about 3 ms a call. The eligible set and the fusion are static statements
    -- whose plans are cached.
    --
    -- A big agent (at least agent_state.hnsw_min_embeddings embeddings of the
    -- model) with the model's HNSW index (index_embeddings) takes them from the
    -- index instead, in one query with the agent filter and eligibility, with
    -- pgvector's iterative index scan: the scan goes on until enough ELIGIBLE
    -- neighbours have been found (or hnsw.max_scan_tuples), so ineligible
    -- neighbours do not take their places. hnsw.ef_search is
    -- agent_state._hnsw_ef_search() (default 1000: the measurements are there).
    -- Relaxed order: the candidates are ordered by their distance afterwards. If the index yields fewer than were
    -- asked for (its scan limit reached), the exact scan answers instead. The
    -- ORDER BY repeats the index expression exactly (embedding::vector(dimensions)).
    IF query_embedding IS NOT NULL THEN
        vschema := agent_state._vector_schema('query_embedding');
        k := GREATEST(50, 5 * n);
        IF as_of IS NULL THEN
            hnsw := agent_state._hnsw_index(agent, embedding_model,
                                            pg_catalog.cardinality(query_embedding));
        END IF;
        IF hnsw IS NOT NULL THEN
            -- Unknown until pgvector's library is loaded: then their defaults.
            old_iterative := coalesce(pg_catalog.current_setting('hnsw.iterative_scan', true), 'off');
            old_ef := coalesce(pg_catalog.current_setting('hnsw.ef_search', true), '40');
            PERFORM pg_catalog.set_config('hnsw.iterative_scan', 'relaxed_order', true);
            PERFORM pg_catalog.set_config('hnsw.ef_search', agent_state._hnsw_ef_search()::text, true);
            -- Planned for the parameters' values (the partial index's predicate).
            PERFORM pg_catalog.set_config('plan_cache_mode', 'force_custom_plan', true);
            EXECUTE pg_catalog.format($ann$
                SELECT pg_catalog.array_agg(a.entry_id ORDER BY a.distance, a.revised_at DESC, a.entry_id),
                       pg_catalog.array_agg(a.revision ORDER BY a.distance, a.revised_at DESC, a.entry_id)
                FROM (
                    SELECT e.entry_id, e.current_revision AS revision, e.revised_at,
                           x.embedding::%1$I.vector(%2$s) OPERATOR(%1$I.<=>) $2::%1$I.vector(%2$s)
                               AS distance
                    FROM agent_state.memory_embeddings AS x
                    JOIN agent_state.memory_entries AS e
                      ON e.runtime_agent_id = x.runtime_agent_id AND e.entry_id = x.entry_id
                     AND e.current_revision = x.revision
                    CROSS JOIN LATERAL agent_state._memory_admits(
                        $1, e.entry_id, e.current_revision, e.visibility, e.evidence_observers,
                        e.evidence_conversations, $3, $4, $5, NULL
                    ) AS ok
                    WHERE x.runtime_agent_id = $1 AND x.model = %3$L AND x.dimensions = %2$s
                      AND e.live AND ok.admitted
                    ORDER BY x.embedding::%1$I.vector(%2$s) OPERATOR(%1$I.<=>) $2::%1$I.vector(%2$s)
                    LIMIT $6
                ) AS a
                $ann$, vschema, pg_catalog.cardinality(query_embedding), embedding_model)
            INTO vec_ids, vec_revs
            USING agent, query_embedding, target_conversation, target_known, target_audience, k;
            PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true);
            -- The caller's settings back (they are the transaction's).
            PERFORM pg_catalog.set_config('hnsw.iterative_scan', old_iterative, true);
            PERFORM pg_catalog.set_config('hnsw.ef_search', old_ef, true);
            IF coalesce(pg_catalog.cardinality(vec_ids), 0) < k THEN
                vec_ids := NULL;  -- the index's scan limit was reached: exact
            END IF;
        END IF;
        IF vec_ids IS NULL THEN
            -- The eligible revisions (a static statement), then the nearest of
            -- them, one primary-key probe of the embedding per revision (a
            -- subplan: a join here would be planned from statistics, and before
            -- the first ANALYZE of freshly loaded tables it became a nested loop
            -- over the whole eligible set for every embedding).
            SELECT coalesce(pg_catalog.array_agg(h.entry_id), '{}'),
                   coalesce(pg_catalog.array_agg(h.revision), '{}'),
                   coalesce(pg_catalog.array_agg(h.revised_at), '{}')
            INTO el_ids, el_revs, el_times
            FROM agent_state._eligible_memory(agent, NULL, target_conversation, target_known,
                                              target_audience, as_of) AS h;
            EXECUTE pg_catalog.format($exact$
                SELECT coalesce(pg_catalog.array_agg(v.id ORDER BY v.distance, v.t DESC, v.id), '{}'),
                       coalesce(pg_catalog.array_agg(v.rev ORDER BY v.distance, v.t DESC, v.id), '{}')
                FROM (
                    SELECT e.id, e.rev, e.t,
                           e.embedding::%1$I.vector OPERATOR(%1$I.<=>) $5::%1$I.vector AS distance
                    FROM (
                        SELECT u.id, u.rev, u.t, (
                            SELECT x.embedding FROM agent_state.memory_embeddings AS x
                            WHERE x.runtime_agent_id = $1 AND x.entry_id = u.id
                              AND x.revision = u.rev AND x.model = $6
                        ) AS embedding
                        FROM ROWS FROM (pg_catalog.unnest($2::uuid []), pg_catalog.unnest($3::integer []),
                                        pg_catalog.unnest($4::timestamptz [])) AS u (id, rev, t)
                        OFFSET 0  -- kept apart, so that the probe runs once per row
                    ) AS e
                    WHERE e.embedding IS NOT NULL
                    ORDER BY 4, e.t DESC, e.id
                    LIMIT $7
                ) AS v
                $exact$, vschema)
            INTO vec_ids, vec_revs
            USING agent, el_ids, el_revs, el_times, query_embedding, embedding_model, k;
        END IF;
        -- The fusion (static): the lexical ranking of the eligible matches and the
        -- vector ranking, their details read from the revisions (an eligible
        -- current entry equals its current revision; the past is a revision).
        FOR entry, revision, body, subject, score, text_rank, subject_match, age IN
            WITH lex AS (
                SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                       pg_catalog.row_number() OVER (
                           ORDER BY h.text_rank DESC, h.revised_at DESC, h.entry_id) AS lr
                FROM agent_state._eligible_memory(agent, query, target_conversation, target_known,
                                                  target_audience, as_of) AS h
                WHERE query IS NOT NULL
            ),
            vec AS (
                SELECT v.entry_id, v.revision, r.body, r.subject_id, r.created_at AS revised_at,
                       v.vr
                FROM ROWS FROM (pg_catalog.unnest(vec_ids), pg_catalog.unnest(vec_revs))
                     WITH ORDINALITY AS v (entry_id, revision, vr)
                JOIN agent_state.memory_revisions AS r
                  ON r.runtime_agent_id = agent AND r.entry_id = v.entry_id AND r.revision = v.revision
            ),
            fused AS (
                SELECT coalesce(l.entry_id, v.entry_id) AS entry_id,
                       coalesce(l.revision, v.revision) AS revision,
                       coalesce(l.body, v.body) AS body,
                       coalesce(l.subject_id, v.subject_id) AS subject_id,
                       coalesce(l.revised_at, v.revised_at) AS revised_at,
                       coalesce(l.text_rank, 0::double precision) AS text_rank,
                       coalesce(1 / (60 + l.lr::double precision), 0)
                       + coalesce(1 / (60 + v.vr::double precision), 0) AS rrf
                FROM lex AS l
                FULL JOIN vec AS v ON v.entry_id = l.entry_id
            )
            SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
                   coalesce(t.subject_id = current_subject, false),
                   GREATEST(ref_time - t.revised_at, interval '0')
            FROM (
                SELECT f.*, agent_state._memory_score(f.rrf, f.subject_id, f.revised_at,
                                                      current_subject, boost, ref_time,
                                                      half_life_s) AS score
                FROM fused AS f
            ) AS t
            ORDER BY t.score DESC, t.revised_at DESC, t.entry_id
            LIMIT n
        LOOP
            found_ids := found_ids || entry;
            RETURN NEXT;
        END LOOP;
        IF fill AND pg_catalog.cardinality(found_ids) < n THEN
            -- context_for: the newest other eligible entries fill up.
            RETURN QUERY
            SELECT f.entry_id, f.revision, f.body, f.subject_id, 0::double precision,
                   0::double precision, coalesce(f.subject_id = current_subject, false),
                   GREATEST(ref_time - f.revised_at, interval '0')
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS f
            WHERE f.entry_id <> ALL (found_ids)
            ORDER BY f.revised_at DESC, f.entry_id
            LIMIT n - pg_catalog.cardinality(found_ids);
        END IF;
        RETURN;
    END IF;

    -- One statement per case, each reading only the source it needs (the
    -- search, every live entry, or the past), so that each cached generic plan
    -- holds one scan. The age interval is computed only for the rows returned.
    IF as_of IS NOT NULL THEN
        -- The past (recall only, never filled).
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score
            FROM agent_state._eligible_memory(agent, query, target_conversation, target_known,
                                              target_audience, as_of) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSIF query IS NULL AND (current_subject IS NULL OR boost = 0) THEN
        -- No query and no subject factor: the score only decays with age, so
        -- the newest eligible entries are the best ones (same order), read in
        -- memory_entries_recent_idx order without ranking every entry.
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id,
               agent_state._memory_score(t.text_rank, t.subject_id, t.revised_at, current_subject,
                                         boost, ref_time, half_life_s),
               t.text_rank, coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS h
            ORDER BY h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.revised_at DESC, t.entry_id;
    ELSIF query IS NULL THEN
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at, current_subject,
                                             boost, ref_time, half_life_s) AS score
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS h
            ORDER BY 7 DESC, h.revised_at DESC, h.entry_id
            LIMIT n
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSIF NOT fill THEN
        -- The best matches, without ranking every match (_top_memory_search).
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank,
               coalesce(t.subject_id = current_subject, false),
               GREATEST(ref_time - t.revised_at, interval '0')
        FROM agent_state._top_memory_search(agent, query, target_conversation, target_known,
                                            target_audience, current_subject, boost, ref_time,
                                            half_life_s, n) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id;
    ELSE
        -- context_for: the matches first, then the newest other eligible entries.
        RETURN QUERY
        WITH top AS MATERIALIZED (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   h.score, 1 AS grp
            FROM agent_state._top_memory_search(agent, query, target_conversation, target_known,
                                                target_audience, current_subject, boost, ref_time,
                                                half_life_s, n) AS h
        ),
        filler AS (
            SELECT f.entry_id, f.revision, f.body, f.subject_id, f.revised_at,
                   0::double precision AS text_rank, 0::double precision AS score, 2 AS grp
            FROM agent_state._eligible_memory_live(agent, target_conversation, target_known,
                                                   target_audience) AS f
            WHERE NOT EXISTS (SELECT FROM top AS t WHERE t.entry_id = f.entry_id)
            ORDER BY f.revised_at DESC, f.entry_id
            LIMIT GREATEST(n - (SELECT pg_catalog.count(*) FROM top), 0)
        )
        SELECT u.entry_id, u.revision, u.body, u.subject_id, u.score, u.text_rank,
               coalesce(u.subject_id = current_subject, false),
               GREATEST(ref_time - u.revised_at, interval '0')
        FROM (
            SELECT t.entry_id, t.revision, t.body, t.subject_id, t.score, t.text_rank, t.revised_at, t.grp
            FROM top AS t
            UNION ALL
            SELECT f.entry_id, f.revision, f.body, f.subject_id, f.score, f.text_rank, f.revised_at, f.grp
            FROM filler AS f
        ) AS u
        ORDER BY u.grp, u.score DESC, u.revised_at DESC, u.entry_id;
    END IF;
END
$$;
-- Did the current transaction write the redaction row of this entry? The only
-- authority for rewriting the text of its revisions and prompt snapshots. A row
-- restored from a dump keeps the transaction id it was written with in its old
-- cluster, which a transaction here may reach; it was also created before this
-- transaction began, which a row of this transaction never is.
CREATE OR REPLACE FUNCTION agent_state._redaction_allowed(agent uuid, entry uuid)
RETURNS boolean
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
          AND d.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
          AND d.created_at >= pg_catalog.transaction_timestamp()
    )
$$;
-- The evidence of one revision: its source message (the source_message_id
-- column) and its memory_evidence rows. The functions store a revision's own
-- source message only in that column; rows hold what an amend or a forget
-- carries over from the revision before it (an amendment keeps all earlier
-- evidence). A 0.1.0 install also has a row for the source message: the UNION
-- makes that the same set.
--
-- Inlinable SQL (no SET clause), so reached only from the owner's functions,
-- which pin search_path; every name is schema-qualified.
CREATE OR REPLACE FUNCTION agent_state._revision_evidence(agent uuid, entry uuid, rev integer)
RETURNS SETOF uuid
LANGUAGE sql
STABLE
AS $$
    SELECT v.message_id
    FROM agent_state.memory_evidence AS v
    WHERE v.runtime_agent_id = _revision_evidence.agent AND v.entry_id = _revision_evidence.entry
      AND v.revision = _revision_evidence.rev
    UNION
    SELECT r.source_message_id
    FROM agent_state.memory_revisions AS r
    WHERE r.runtime_agent_id = _revision_evidence.agent AND r.entry_id = _revision_evidence.entry
      AND r.revision = _revision_evidence.rev AND r.source_message_id IS NOT NULL
$$;
-- The n best eligible matches of a query in the current state, by score desc,
-- revised_at desc, entry id: exactly the rows, scores and order that ranking
-- every match gives (_rank_memory's order), without ranking every match of a
-- common word in a big agent.
--
-- 1. Direct: rank every match (one statement, as before), for agents that wrote
--    fewer than dense_count entries in the dense_span before their newest entry
--    (every small agent). Ranking all matches of a common word is what costs in
--    a big agent, and even finding them all does (the bitmap of 100,000 matches
--    alone takes about 20 ms), so a big agent skips this.
-- 2. Windows, newest first (dense agents): the agent's matches revised in a range of
--    weeks (_eligible_memory_window, the index's third column), ranked and
--    merged into the best n so far. Every row not yet read is older than edge
--    (the start of the oldest week read), so its score is at most
--
--      bound = _memory_score(rank_bound, current_subject, edge, current_subject, ...)
--
--    and the search stops when bound <= the n-th best score: an unread row
--    cannot score higher, and on an equal score it is older, so it ranks after
--    (ties break newest first). Proof that bound >= every unread row's score:
--    _memory_score is text_rank * subject factor * decay, float8 products of
--    non-negative factors, and IEEE rounding is monotone, so the product of
--    larger-or-equal factors, computed in the same order, is larger or equal:
--    - text_rank <= rank_bound. tsv is to_tsvector(body): every position has
--      weight D (0.1). ts_rank with normalization 0 is calc_rank_or unless the
--      query's top operator is & or <-> with two or more distinct lexemes.
--      calc_rank_or adds, per distinct query lexeme found (no prefix items:
--      websearch_to_tsquery and match 'any' never make them, so one entry
--      each), (0.1 * sum(1 / j^2 for its j = 1..npos positions)) / 1.64493406685
--      < 0.1 (npos <= 256, the sum < pi^2 / 6 = 1.6449...), then divides by
--      the number of distinct query lexemes: < 0.1 for one lexeme, for 'all'
--      without & or <->, and for 'any' with any number of lexemes.
--      calc_rank_and combines terms as 1 - (1 - res) * (1 - w) with w < 1: at
--      most 1. So rank_bound = 0.1 when the query's text has neither & nor <
--      (then no & or <-> operator can be in it), else 1.
--    - subject factor: the same CASE with subject_id = current_subject, i.e.
--      1 + boost when there is a current subject (the largest the row can get),
--      1 when there is none (no row can match a null subject).
--    - decay: 0.5 ^ LEAST(GREATEST(epoch(ref_time - revised_at), 0) / half_life_s,
--      830) does not grow as revised_at falls (epoch of an interval, division
--      and LEAST/GREATEST are monotone), and revised_at < edge.
--    The bound of the first window uses the agent's newest live entry instead
--    of edge; weeks are exact (see _memory_week.sql), so "older than edge"
--    holds for every row of an older week.
--    Each next window reaches back to where the bound would fall to the n-th
--    score (or doubles, while fewer than n rows are known); the exact test
--    above decides when to stop, the width only how many statements it takes.
--    With fewer than n rows after 7 weeks (a rare word), or a window that would
--    span two years or more, one last statement reads every match older than
--    edge: nothing is left unread.
--
-- Both paths read memory only through the eligibility functions, with the same
-- text_rank and the same _memory_score, so windowing cannot change a score.
CREATE OR REPLACE FUNCTION agent_state._top_memory_search(
    agent uuid,
    query tsquery,
    target_conversation uuid,
    target_known boolean,
    target_audience uuid [],
    current_subject uuid,
    boost double precision,
    ref_time timestamptz,
    half_life_s double precision,
    n integer
)
RETURNS TABLE (
    entry_id uuid, revision integer, body text, subject_id uuid, revised_at timestamptz,
    text_rank double precision, score double precision
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_variable
DECLARE
    -- Windows only for agents that wrote at least dense_count entries in the
    -- dense_span before their newest one (a cheap test, and one that keeps every
    -- small agent on the single direct statement; bench/memory.py measures both).
    dense_count constant integer := 500;
    dense_span constant interval := '30 days';
    recent bigint;
    rank_bound double precision;
    newest timestamptz;
    oldest_week bigint;
    hi bigint;
    lo bigint;
    span bigint := 1;
    edge timestamptz;
    bound double precision;
    reach double precision;
    windows bigint [];
    ids uuid [] := '{}'::uuid [];
    revs integer [] := '{}'::integer [];
    subjects uuid [] := '{}'::uuid [];
    times timestamptz [] := '{}'::timestamptz [];
    ranks double precision [] := '{}'::double precision [];
    scores double precision [] := '{}'::double precision [];
BEGIN
    -- Which path: the agent's newest live entry, and whether it wrote at least
    -- dense_count entries in the dense_span before it (memory_entries_recent_idx;
    -- reads at most dense_count index entries).
    SELECT x.newest,
           (SELECT pg_catalog.count(*)
            FROM (SELECT
                  FROM agent_state.memory_entries AS e
                  WHERE e.runtime_agent_id = agent AND e.live
                    AND e.revised_at >= x.newest - dense_span
                  ORDER BY e.revised_at DESC
                  LIMIT dense_count) AS d)
    INTO newest, recent
    FROM (SELECT e.revised_at AS newest
          FROM agent_state.memory_entries AS e
          WHERE e.runtime_agent_id = agent AND e.live
          ORDER BY e.revised_at DESC
          LIMIT 1) AS x;
    IF newest IS NULL THEN
        RETURN;
    END IF;
    IF recent < dense_count THEN
        -- 1. Direct: rank every match.
        RETURN QUERY
        SELECT t.entry_id, t.revision, t.body, t.subject_id, t.revised_at, t.text_rank, t.score
        FROM (
            SELECT h.entry_id, h.revision, h.body, h.subject_id, h.revised_at, h.text_rank,
                   agent_state._memory_score(h.text_rank, h.subject_id, h.revised_at,
                                             current_subject, boost, ref_time,
                                             half_life_s) AS score
            FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                     target_known, target_audience) AS h
        ) AS t
        ORDER BY t.score DESC, t.revised_at DESC, t.entry_id
        LIMIT n;
        RETURN;
    END IF;

    -- 2. Windows, newest first.
    rank_bound := CASE
        WHEN pg_catalog.strpos(query::text, '&') > 0 OR pg_catalog.strpos(query::text, '<') > 0
            THEN 1::double precision
        ELSE 0.1::double precision
    END;
    SELECT agent_state._memory_week(e.revised_at) INTO oldest_week
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.live
    ORDER BY e.revised_at
    LIMIT 1;
    hi := agent_state._memory_week(newest);
    edge := newest;
    LOOP
        EXIT WHEN hi < oldest_week;
        lo := hi - span + 1;
        IF pg_catalog.cardinality(ids) >= n THEN
            bound := agent_state._memory_score(rank_bound, current_subject, edge, current_subject,
                                               boost, ref_time, half_life_s);
            EXIT WHEN bound <= scores[n];
            -- Reach back to the week where the bound falls to the n-th score.
            IF scores[n] > 0 THEN
                reach := pg_catalog.floor(
                    (pg_catalog.date_part('epoch', ref_time) - 946684800
                     - half_life_s * pg_catalog.log(
                         2::numeric,
                         (agent_state._memory_score(rank_bound, current_subject, ref_time,
                                                    current_subject, boost, ref_time, half_life_s)
                          / scores[n])::numeric
                     )::double precision)
                    / 604800
                );
                lo := LEAST(lo::double precision, GREATEST(reach, oldest_week::double precision))::bigint;
            END IF;
        END IF;
        lo := GREATEST(lo, oldest_week);
        IF (pg_catalog.cardinality(ids) < n AND span > 4) OR hi - lo >= 104 THEN
            -- Fewer than n matches in the newest weeks read (1 + 2 + 4): a rare
            -- word; or a window of two years or more. Every match older than
            -- edge in one last statement (windows NULL), through the agent and
            -- lexeme keys alone: cheaper than the union of that many week keys,
            -- each of which holds every agent's entries of its week.
            windows := NULL;
        ELSE
            -- A variable, not a subquery argument, so that the window function inlines.
            windows := ARRAY(SELECT g.week FROM pg_catalog.generate_series(lo, hi) AS g (week));
        END IF;
        SELECT coalesce(pg_catalog.array_agg(b.entry_id ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.revision ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.subject_id ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.revised_at ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.text_rank ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}'),
               coalesce(pg_catalog.array_agg(b.score ORDER BY b.score DESC, b.revised_at DESC, b.entry_id), '{}')
        INTO ids, revs, subjects, times, ranks, scores
        FROM (
            SELECT u.entry_id, u.revision, u.subject_id, u.revised_at, u.text_rank, u.score
            FROM (
                SELECT k.entry_id, k.revision, k.subject_id, k.revised_at, k.text_rank, k.score
                FROM ROWS FROM (
                    pg_catalog.unnest(ids), pg_catalog.unnest(revs), pg_catalog.unnest(subjects),
                    pg_catalog.unnest(times), pg_catalog.unnest(ranks), pg_catalog.unnest(scores)
                ) AS k (entry_id, revision, subject_id, revised_at, text_rank, score)
                UNION ALL
                SELECT w.entry_id, w.revision, w.subject_id, w.revised_at, w.text_rank,
                       agent_state._memory_score(w.text_rank, w.subject_id, w.revised_at,
                                                 current_subject, boost, ref_time, half_life_s)
                FROM agent_state._eligible_memory_window(agent, windows, query, target_conversation,
                                                         target_known, target_audience) AS w
                WHERE windows IS NOT NULL
                UNION ALL
                SELECT w.entry_id, w.revision, w.subject_id, w.revised_at, w.text_rank,
                       agent_state._memory_score(w.text_rank, w.subject_id, w.revised_at,
                                                 current_subject, boost, ref_time, half_life_s)
                FROM agent_state._eligible_memory_search(agent, query, target_conversation,
                                                         target_known, target_audience) AS w
                WHERE windows IS NULL AND w.revised_at < edge
            ) AS u
            ORDER BY u.score DESC, u.revised_at DESC, u.entry_id
            LIMIT n
        ) AS b;
        EXIT WHEN windows IS NULL;
        edge := pg_catalog.to_timestamp(946684800::double precision + 604800::double precision * lo);
        hi := lo - 1;
        span := span * 2;
    END LOOP;
    RETURN QUERY
    SELECT k.entry_id, k.revision, e.body, k.subject_id, k.revised_at, k.text_rank, k.score
    FROM ROWS FROM (
        pg_catalog.unnest(ids), pg_catalog.unnest(revs), pg_catalog.unnest(subjects),
        pg_catalog.unnest(times), pg_catalog.unnest(ranks), pg_catalog.unnest(scores)
    ) WITH ORDINALITY AS k (entry_id, revision, subject_id, revised_at, text_rank, score, ord)
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = agent AND e.entry_id = k.entry_id
    ORDER BY k.ord;
END
$$;
-- Does this pgvector version (pg_extension.extversion) have iterative index
-- scans (hnsw.iterative_scan, 0.8.0 and later)? Without them a filtered HNSW scan
-- stops after hnsw.ef_search candidates, however few of them pass the filter.
CREATE OR REPLACE FUNCTION agent_state._vector_iterative(version text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(
        pg_catalog.string_to_array(
            pg_catalog.substring(version, '^[0-9]+(?:\.[0-9]+)*'), '.'
        )::integer [] OPERATOR(pg_catalog.>=) ARRAY[0, 8],
        false
    )
$$;
-- The schema of the pgvector extension (vector), for the semantic axis; 0A000
-- naming pgvector when it is not installed in this database. Looked up at each
-- call, so pgvector may be created before or after agent_state, with no extra
-- step; nothing else depends on it.
CREATE OR REPLACE FUNCTION agent_state._vector_schema(arg text)
RETURNS name
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found name;
BEGIN
    SELECT n.nspname INTO found
    FROM pg_catalog.pg_extension AS e
    JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'vector';
    IF found IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '0A000',
            MESSAGE = pg_catalog.format(
                '%s: the semantic axis needs the pgvector extension (vector), which is not '
                'installed in this database', arg),
            HINT = 'CREATE EXTENSION vector; (before or after agent_state)';
    END IF;
    RETURN found;
END
$$;
CREATE OR REPLACE FUNCTION agent_state.amend(
    agent uuid,
    entry uuid,
    body text,
    expected_revision integer,
    source_message uuid DEFAULT NULL,
    subject uuid DEFAULT NULL,
    visibility text DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    caller_kind text;
    cur record;
    msg_author uuid;
    msg_audience uuid [];
    msg_conversation uuid;
    new_rev integer;
    new_subject uuid;
    new_visibility text;
    new_source_type text;
    observers uuid [];
    convs uuid [];
BEGIN
    caller_kind := agent_state._bind(agent);
    -- Hot path: the helpers raise, and run only when their condition holds.
    IF entry IS NULL THEN
        PERFORM agent_state._need(entry, 'entry');
    END IF;
    IF body IS NULL OR pg_catalog.length(body) > 100000 OR pg_catalog.btrim(body, E' \t\r\n') = '' THEN
        PERFORM agent_state._need_text(body, 'body');
    END IF;
    IF expected_revision IS NULL THEN
        PERFORM agent_state._need(expected_revision, 'expected_revision');
    END IF;
    IF visibility IS NOT NULL THEN
        PERFORM agent_state._need_one_of(visibility, 'visibility', ARRAY['perspective', 'conversation']);
    END IF;
    -- Nested, so that a null subject costs a simple expression, not a query.
    IF subject IS NOT NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = subject
        ) THEN
            PERFORM agent_state._missing('actor', 'subject', subject,
                EXISTS (SELECT FROM agent_state.actors AS a WHERE a.actor_id = subject));
        END IF;
    END IF;
    IF source_message IS NOT NULL THEN
        SELECT m.author_id, m.audience, m.conversation_id
        INTO msg_author, msg_audience, msg_conversation
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = source_message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'source_message', source_message,
                EXISTS (SELECT FROM agent_state.messages AS m WHERE m.message_id = source_message));
        END IF;
    END IF;

    -- Concurrent amendments of one entry serialise on its row; the revision check
    -- happens after the lock, so no update is lost.
    SELECT e.current_revision, e.live, e.subject_id, e.visibility,
           e.evidence_observers, e.evidence_conversations
    INTO cur
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
    END IF;
    IF NOT cur.live THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('entry: memory entry %s is forgotten or redacted', entry);
    END IF;
    IF cur.current_revision <> expected_revision THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('expected_revision: entry %s is at revision %s, not %s',
                                        entry, cur.current_revision, expected_revision),
            HINT = 'Read the entry again and retry the amendment.';
    END IF;
    new_visibility := coalesce(visibility, cur.visibility);
    IF cur.visibility = 'conversation' AND new_visibility = 'perspective' THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'visibility: can only narrow (perspective to conversation), never widen';
    END IF;
    new_subject := coalesce(subject, cur.subject_id);
    new_rev := cur.current_revision + 1;

    -- Evidence: everything the previous revision had, plus the new message. Who
    -- may observe it all is the intersection of the audiences (NULL = nobody
    -- restricted).
    observers := cur.evidence_observers;
    convs := cur.evidence_conversations;
    IF source_message IS NOT NULL THEN
        new_source_type := 'agent';
        IF msg_audience IS NOT NULL THEN
            IF observers IS NULL THEN
                observers := msg_audience;
            ELSE
                observers := ARRAY(
                    SELECT o FROM pg_catalog.unnest(observers) AS o
                    WHERE o = ANY (msg_audience)
                );
            END IF;
        END IF;
        IF NOT msg_conversation = ANY (convs) THEN
            convs := convs || msg_conversation;
        END IF;
    ELSIF caller_kind = 'operator' THEN
        new_source_type := 'operator';
    ELSE
        new_source_type := 'agent';
    END IF;

    -- One statement, evidence rows first (a revision's evidence is fixed once its
    -- row exists). The new revision's evidence is the previous revision's (its
    -- evidence rows and its source message) plus source_message, which its own
    -- source_message_id column carries: only the carried-over messages become rows.
    WITH ev AS (
        INSERT INTO agent_state.memory_evidence AS w (runtime_agent_id, entry_id, revision, message_id)
        SELECT agent, entry, new_rev, p.message_id
        FROM agent_state._revision_evidence(agent, entry, cur.current_revision) AS p (message_id)
        WHERE p.message_id IS DISTINCT FROM source_message
        RETURNING w.message_id
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        SELECT agent, entry, new_rev, 'amend', body, new_subject, new_visibility,
               new_source_type, msg_author, source_message, observers, convs
        FROM (SELECT pg_catalog.count(*) FROM ev) AS after_evidence
        RETURNING r.created_at
    )
    UPDATE agent_state.memory_entries AS e
    SET current_revision = new_rev,
        body = amend.body,
        subject_id = new_subject,
        visibility = new_visibility,
        source_type = new_source_type,
        evidence_observers = observers,
        evidence_conversations = convs,
        revised_at = rev.created_at
    FROM rev
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    RETURN new_rev;
END
$$;

COMMENT ON FUNCTION agent_state.amend(uuid, uuid, text, integer, uuid, uuid, text) IS
'amend(agent, entry, body, expected_revision, source_message => null, subject => null, '
'visibility => null) -> int: appends a revision and returns its number. expected_revision '
'(required, 22004) must be the current revision, else 40001 and nothing is written. Forgotten or '
'redacted entry: 55000. Evidence: all earlier evidence plus source_message (P0002/23503 if not '
'this perspective''s). null subject or visibility keeps the current value; visibility only '
'narrows (perspective to conversation; widening: 22023). source_type: agent with the message''s '
'author as source actor when a source_message is given; otherwise operator for operators, agent '
'(no source actor) for runtimes.';
-- The semantic axis: a runtime's embedding worker (or an operator) attaches the
-- embedding of one revision computed with one model.
CREATE OR REPLACE FUNCTION agent_state.attach_embedding(
    agent uuid,
    entry uuid,
    revision integer,
    model text,
    embedding real []
)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    dims integer;
    duplicate boolean;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._vector_schema('embedding');
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need(revision, 'revision');
    PERFORM agent_state._need_text(model, 'model', 200);
    PERFORM agent_state._need_embedding(embedding, 'embedding');
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry AND r.revision = revision
    ) THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.memory_entries AS e
            WHERE e.runtime_agent_id = agent AND e.entry_id = entry
        ) THEN
            PERFORM agent_state._missing('memory entry', 'entry', entry,
                EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
        END IF;
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('revision: entry %s has no revision %s', entry, revision);
    END IF;
    -- One per revision and model: an existing one is 23505 whatever the new
    -- one's dimension (a concurrent one is found by the insert below).
    duplicate := EXISTS (
        SELECT FROM agent_state.memory_embeddings AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry AND x.revision = revision
          AND x.model = model
    );
    IF NOT duplicate THEN
        -- The first embedding of a model fixes its dimension for this agent; a
        -- concurrent first one waits on the key and then compares.
        INSERT INTO agent_state.memory_embedding_models AS m (runtime_agent_id, model, dimensions)
        VALUES (agent, model, pg_catalog.cardinality(embedding))
        ON CONFLICT ON CONSTRAINT memory_embedding_models_pkey DO NOTHING;
        dims := pg_catalog.cardinality(embedding);
        PERFORM agent_state._need_model_dimension(agent, model, dims, 'embedding');
        -- ON CONFLICT rather than an exception block: no subtransaction per call on
        -- the embedding worker's path (a concurrent insert of the same key is waited
        -- for, then found).
        INSERT INTO agent_state.memory_embeddings
            (runtime_agent_id, entry_id, revision, model, dimensions, embedding)
        VALUES (agent, entry, revision, model, dims, embedding)
        ON CONFLICT ON CONSTRAINT memory_embeddings_pkey DO NOTHING;
        duplicate := NOT FOUND;
    END IF;
    IF duplicate THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505',
            MESSAGE = pg_catalog.format('revision: revision %s of entry %s already has an embedding '
                                        'of model %L', revision, entry, model);
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.attach_embedding(uuid, uuid, integer, text, real []) IS
'attach_embedding(agent, entry, revision, model, embedding real[]) (runtime or operator): '
'derived data for the semantic axis, one per revision and model (again, once the first is '
'committed: 23505, whatever its dimension). Every embedding of one model in one agent has the '
'same dimension, fixed by the first (22023). embedding: 1 to 16,000 finite components, a '
'Euclidean norm from 1e-15 to 1e15; model: 1 to 200 characters (22023). A redacted entry: '
'55000. '
'Needs the pgvector extension (vector) in the database: 0A000 without it.';
CREATE OR REPLACE FUNCTION agent_state.context_for(
    agent uuid,
    conversation uuid,
    message uuid DEFAULT NULL,
    max_results integer DEFAULT 20,
    match text DEFAULT 'any',
    query_embedding real [] DEFAULT NULL,
    embedding_model text DEFAULT NULL
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    msg_conversation uuid;
    msg_body text;
    msg_author uuid;
    msg_audience uuid [];
    known boolean := false;
    q tsquery;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(conversation, 'conversation');
    IF max_results IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'max_results: must not be null';
    END IF;
    IF max_results < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must be at least 1';
    END IF;
    IF message IS NOT NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.conversations AS c
            WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
        ) THEN
            PERFORM agent_state._missing('conversation', 'conversation', conversation,
                EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
        END IF;
        SELECT m.conversation_id, m.body, m.author_id, m.audience
        INTO msg_conversation, msg_body, msg_author, msg_audience
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'message', message,
                EXISTS (SELECT FROM agent_state.messages AS m WHERE m.message_id = message));
        END IF;
        IF msg_conversation <> conversation THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002',
                MESSAGE = pg_catalog.format('message: %s is not a message of conversation %s',
                                            message, conversation);
        END IF;
        known := true;
    ELSE
        -- One statement: the conversation, and its latest message if any.
        SELECT coalesce(m.known, false), m.body, m.author_id, m.audience
        INTO known, msg_body, msg_author, msg_audience
        FROM agent_state.conversations AS c
        LEFT JOIN LATERAL (
            SELECT true AS known, x.body, x.author_id, x.audience
            FROM agent_state.messages AS x
            WHERE x.runtime_agent_id = agent AND x.conversation_id = conversation
            ORDER BY x.observed_at DESC, x.created_at DESC, x.message_id DESC
            LIMIT 1
        ) AS m ON true
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('conversation', 'conversation', conversation,
                EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
        END IF;
    END IF;
    -- Relevance to a message: its words (any of them by default), from its first
    -- 10,000 characters, ranked like recall.
    IF known THEN
        q := agent_state._match_query(pg_catalog.left(msg_body, 10000), match);
    ELSIF match IS NULL OR match NOT IN ('all', 'any') THEN
        PERFORM agent_state._match_query(NULL, match);
    END IF;
    PERFORM agent_state._need_query_embedding(agent, query_embedding, embedding_model);
    RETURN QUERY
    SELECT r.entry, r.revision, r.body, r.subject, r.score, r.text_rank, r.subject_match, r.age
    FROM agent_state._rank_memory(agent, q, conversation, known, msg_audience,
                                  msg_author, max_results, NULL, true,
                                  query_embedding, embedding_model) AS r;
END
$$;

COMMENT ON FUNCTION agent_state.context_for(uuid, uuid, uuid, integer, text, real [], text) IS
'context_for(agent, conversation, message => null, max_results => 20, match => ''any'', '
'query_embedding => null, embedding_model => null) -> same columns as recall: '
'memory for automatic prompt context. The message (default: the conversation''s latest) gives '
'the text, the current subject (its author) and the target audience (its audience). Eligible '
'entries matching any word of the message (match ''all'': every word) come first, ranked as '
'recall ranks them (with query_embedding: fused with the nearest, as recall does); the newest '
'other eligible entries fill up to max_results (text_rank 0, score 0). A message without words, '
'or a conversation without messages, ranks every eligible entry by subject and recency. message '
'not in the conversation: P0002 (23503 if another perspective''s). max_results: null 22004, '
'< 1 22023, capped at 1000.';
CREATE OR REPLACE FUNCTION agent_state.forget(
    agent uuid,
    entry uuid,
    expected_revision integer DEFAULT NULL,
    reason text DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    caller_kind text;
    cur record;
    new_rev integer;
BEGIN
    caller_kind := agent_state._bind(agent);
    PERFORM agent_state._need(entry, 'entry');
    IF reason IS NOT NULL THEN
        PERFORM agent_state._need_text(reason, 'reason', 10000);
    END IF;

    SELECT e.current_revision, e.live, e.body, e.subject_id, e.visibility,
           e.evidence_observers, e.evidence_conversations
    INTO cur
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
    END IF;
    IF NOT cur.live THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('entry: memory entry %s is already forgotten or redacted', entry);
    END IF;
    IF expected_revision IS NOT NULL AND cur.current_revision <> expected_revision THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('expected_revision: entry %s is at revision %s, not %s',
                                        entry, cur.current_revision, expected_revision);
    END IF;
    new_rev := cur.current_revision + 1;

    -- The forget revision keeps the previous revision's evidence (its rows and
    -- its source message) as rows: it has no source message of its own.
    WITH ev AS (
        INSERT INTO agent_state.memory_evidence AS w (runtime_agent_id, entry_id, revision, message_id)
        SELECT agent, entry, new_rev, p.message_id
        FROM agent_state._revision_evidence(agent, entry, cur.current_revision) AS p (message_id)
        RETURNING w.message_id
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, evidence_observers, evidence_conversations, reason)
        SELECT agent, entry, new_rev, 'forget', cur.body, cur.subject_id, cur.visibility,
               CASE caller_kind WHEN 'operator' THEN 'operator' ELSE 'agent' END,
               cur.evidence_observers, cur.evidence_conversations, reason
        FROM (SELECT pg_catalog.count(*) FROM ev) AS after_evidence
        RETURNING r.created_at
    )
    UPDATE agent_state.memory_entries AS e
    SET current_revision = new_rev,
        live = false,
        source_type = CASE caller_kind WHEN 'operator' THEN 'operator' ELSE 'agent' END,
        revised_at = rev.created_at
    FROM rev
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    RETURN new_rev;
END
$$;

COMMENT ON FUNCTION agent_state.forget(uuid, uuid, integer, text) IS
'forget(agent, entry, expected_revision => null, reason => null) -> int: retires the entry '
'(soft delete) by appending a forget revision (body, subject, visibility and evidence carried '
'over, reason kept) and returns its number. Already forgotten or redacted: 55000. '
'expected_revision given and not current: 40001, nothing written. Unknown entry: P0002 '
'(23503 if another perspective''s).';
-- The semantic axis at scale: an HNSW index (pgvector) over the embeddings of
-- one model and dimension, for the nearest-neighbour search of big agents
-- (_rank_memory). A partial expression index on
-- ((embedding::vector(dimensions)) vector_cosine_ops) WHERE model = ... AND
-- dimensions = ... (AND runtime_agent_id = ... for one agent's: a filtered
-- search of a shared index finds fewer of a small share's true neighbours),
-- named by _embedding_index (deterministic), so that
-- _rank_memory finds it and repeats its expression exactly. Idempotent: an
-- existing valid index of that name is kept. Needs pgvector 0.8 or later
-- (iterative index scans, without which a filtered index scan may stop short);
-- 0A000 otherwise. Built in the calling transaction (CREATE INDEX, not
-- CONCURRENTLY: writes to the embeddings wait for the build).
CREATE OR REPLACE FUNCTION agent_state.index_embeddings(model text, dimensions integer, agent uuid DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    vschema name;
    version text;
    index_name name;
    valid boolean;
BEGIN
    IF NOT agent_state._caller_is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('role %I is not an agent_state operator', agent_state._caller()),
            HINT = 'Only members of agent_state_operator may do this.';
    END IF;
    vschema := agent_state._vector_schema('index_embeddings');
    SELECT e.extversion INTO version FROM pg_catalog.pg_extension AS e WHERE e.extname = 'vector';
    IF NOT agent_state._vector_iterative(version) THEN
        RAISE EXCEPTION USING
            ERRCODE = '0A000',
            MESSAGE = pg_catalog.format(
                'index_embeddings: needs pgvector 0.8 or later (iterative index scans), not %s',
                version),
            HINT = 'ALTER EXTENSION vector UPDATE;';
    END IF;
    PERFORM agent_state._need_text(model, 'model', 200);
    IF dimensions IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'dimensions: must not be null';
    END IF;
    -- pgvector's HNSW indexes vectors of up to 2,000 dimensions.
    IF dimensions NOT BETWEEN 1 AND 2000 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'dimensions: an HNSW index takes 1 to 2000 dimensions';
    END IF;
    IF agent IS NOT NULL
        AND NOT EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent) THEN
        RAISE EXCEPTION USING ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
    END IF;
    index_name := agent_state._embedding_index(model, dimensions, agent);
    SELECT i.indisvalid INTO valid
    FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_index AS i ON i.indexrelid = c.oid
    WHERE c.relname = index_name AND c.relnamespace = 'agent_state'::regnamespace;
    IF valid THEN
        RETURN index_name;
    ELSIF NOT valid THEN
        -- Left invalid by an interrupted build elsewhere: built again.
        EXECUTE pg_catalog.format('DROP INDEX agent_state.%I', index_name);
    END IF;
    EXECUTE pg_catalog.format(
        'CREATE INDEX %1$I ON agent_state.memory_embeddings USING hnsw '
        '((embedding::%2$I.vector(%3$s)) %2$I.vector_cosine_ops) WITH (ef_construction = 128) '
        'WHERE model = %4$L AND dimensions = %3$s%5$s',
        index_name, vschema, dimensions, model,
        CASE WHEN agent IS NOT NULL
             THEN pg_catalog.format(' AND runtime_agent_id = %L::uuid', agent) ELSE '' END);
    RETURN index_name;
END
$$;

COMMENT ON FUNCTION agent_state.index_embeddings(text, integer, uuid) IS
'index_embeddings(model, dimensions, agent default null) -> index name (operator): an HNSW '
'index (pgvector 0.8 or later, 0A000 otherwise or without pgvector) over every agent''s '
'embeddings of that model and dimension, or with agent over that agent''s only (for a big '
'agent: the index then holds only its neighbours, and recall@10 stays high where the agent is '
'a small share of all embeddings; one per agent for a handful of the biggest: each is a '
'predicate on every embedding insert and in every plan of the table). recall and context_for '
'use an index (the agent''s own or the shared one, the planner picks the cheaper, which is '
'the agent''s own) for agents with at least agent_state.hnsw_min_embeddings (default 10000) '
'embeddings of the model; eligibility still applies before the neighbours are taken (the '
'exact scan when the index finds too few). Idempotent; built in the calling transaction '
'(writes to the embeddings wait). dimensions: 1 to 2000 (22023); unknown agent: P0002.';
-- One entry's state, by id: now or as of a moment. With a conversation, only when
-- the entry may enter that conversation's context (the eligibility rules of
-- recall); without one, the agent's own view of its memory.
CREATE OR REPLACE FUNCTION agent_state.memory_entry(
    agent uuid,
    entry uuid,
    as_of timestamptz DEFAULT NULL,
    conversation uuid DEFAULT NULL
)
RETURNS TABLE (
    revision integer, body text, subject uuid, visibility text, source_type text, live boolean,
    created_at timestamptz, revised_at timestamptz
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    t record;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(entry, 'entry');
    IF NOT pg_catalog.isfinite(as_of) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'as_of: must be a finite timestamp';
    END IF;
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_entries AS e WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    ) THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
    END IF;
    IF conversation IS NOT NULL THEN
        t := agent_state._conversation_target(agent, conversation, as_of);
        RETURN QUERY
        SELECT h.revision, h.body, h.subject_id, r.visibility, r.source_type, true,
               e.created_at, h.revised_at
        FROM agent_state._eligible_memory(agent, NULL, conversation, t.known, t.audience, as_of) AS h
        JOIN agent_state.memory_revisions AS r
          ON r.runtime_agent_id = agent AND r.entry_id = h.entry_id AND r.revision = h.revision
        JOIN agent_state.memory_entries AS e
          ON e.runtime_agent_id = agent AND e.entry_id = h.entry_id
        WHERE h.entry_id = entry;
        RETURN;
    END IF;
    RETURN QUERY
    SELECT r.revision, r.body, r.subject_id, r.visibility, r.source_type,
           r.operation <> 'forget' AND (as_of IS NOT NULL OR e.live) AND NOT EXISTS (
               SELECT FROM agent_state.memory_redactions AS d
               WHERE d.runtime_agent_id = agent AND d.entry_id = entry),
           e.created_at, r.created_at
    FROM agent_state.memory_entries AS e
    JOIN LATERAL (
        SELECT x.* FROM agent_state.memory_revisions AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry
          AND (as_of IS NULL OR x.created_at <= as_of)
        ORDER BY x.revision DESC
        LIMIT 1
    ) AS r ON true
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
END
$$;

COMMENT ON FUNCTION agent_state.memory_entry(uuid, uuid, timestamptz, uuid) IS
'memory_entry(agent, entry, as_of => null, conversation => null) -> (revision, body, subject, '
'visibility, source_type, live, created_at, revised_at): one entry''s current state (or its '
'latest revision at as_of), read by id in one lookup. With a conversation: a row only when the '
'entry may enter that conversation''s context (recall''s eligibility rules). Unknown entry: '
'P0002 (23503 if another perspective''s); infinite as_of: 22023.';
-- The revision history of one memory entry.
CREATE OR REPLACE FUNCTION agent_state.memory_history(agent uuid, entry uuid)
RETURNS TABLE (
    revision integer,
    operation text,
    body text,
    subject uuid,
    visibility text,
    source_type text,
    source_actor uuid,
    source_messages uuid [],
    created_at timestamptz
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(memory_history.agent);
    PERFORM agent_state._need(memory_history.entry, 'entry');
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = memory_history.agent AND e.entry_id = memory_history.entry
    ) THEN
        PERFORM agent_state._missing('memory entry', 'entry', memory_history.entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = memory_history.entry));
    END IF;
    RETURN QUERY
    SELECT r.revision, r.operation, r.body, r.subject_id, r.visibility, r.source_type,
           r.source_actor_id,
           ARRAY(
               SELECT v.message_id
               FROM agent_state._revision_evidence(r.runtime_agent_id, r.entry_id, r.revision)
                    AS v (message_id)
               ORDER BY v.message_id
           ),
           r.created_at
    FROM agent_state.memory_revisions AS r
    WHERE r.runtime_agent_id = memory_history.agent AND r.entry_id = memory_history.entry
    ORDER BY r.revision;
END
$$;

COMMENT ON FUNCTION agent_state.memory_history(uuid, uuid) IS
'memory_history(agent, entry) -> (revision, operation, body, subject, visibility, source_type, '
'source_actor, source_messages, created_at), oldest first. operation: create, amend, forget. '
'source_messages: the revision''s full evidence set (sorted; empty for notes and imports). '
'Redacted entries show ''[redacted]'' bodies. Unknown entry: P0002 (23503 if another '
'perspective''s).';
CREATE OR REPLACE FUNCTION agent_state.note(agent uuid, body text, subject uuid DEFAULT NULL)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(body, 'body');
    -- Nested, so that a null subject costs a simple expression, not a query.
    IF subject IS NOT NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = subject
        ) THEN
            PERFORM agent_state._missing('actor', 'subject', subject,
                EXISTS (SELECT FROM agent_state.actors AS a WHERE a.actor_id = subject));
        END IF;
    END IF;
    RETURN QUERY
    SELECT i.entry, i.revision
    FROM agent_state._insert_memory(agent, body, subject, 'perspective', 'operator', NULL, NULL, NULL) AS i;
END
$$;

COMMENT ON FUNCTION agent_state.note(uuid, text, uuid) IS
'note(agent, body, subject => null) -> (entry, revision) (operator): an operator-authored memory '
'with no evidence messages, visibility perspective; it restricts no audience. body: 1 to 100,000 '
'characters (22023).';
CREATE OR REPLACE FUNCTION agent_state.pending_embeddings(agent uuid, model text, max_results integer DEFAULT 100)
RETURNS TABLE (entry uuid, revision integer, body text)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._vector_schema('model');
    PERFORM agent_state._need_text(model, 'model', 200);
    IF max_results IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'max_results: must not be null';
    END IF;
    IF max_results < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must be at least 1';
    END IF;
    RETURN QUERY
    SELECT e.entry_id, e.current_revision, e.body
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.live
      AND NOT EXISTS (
          SELECT FROM agent_state.memory_embeddings AS x
          WHERE x.runtime_agent_id = agent AND x.entry_id = e.entry_id
            AND x.revision = e.current_revision AND x.model = model)
    ORDER BY e.revised_at, e.entry_id
    LIMIT LEAST(max_results, 1000);
END
$$;

COMMENT ON FUNCTION agent_state.pending_embeddings(uuid, text, integer) IS
'pending_embeddings(agent, model, max_results => 100) -> (entry, revision, body): the current '
'revisions of live entries that have no embedding of model yet, oldest first, for a worker to '
'embed and attach_embedding. max_results: null 22004, < 1 22023, capped at 1000. Needs pgvector '
'(0A000 without it).';
CREATE OR REPLACE FUNCTION agent_state.recall(
    agent uuid,
    query text,
    conversation uuid DEFAULT NULL,
    current_subject uuid DEFAULT NULL,
    max_results integer DEFAULT 10,
    as_of timestamptz DEFAULT NULL,
    match text DEFAULT 'all',
    query_embedding real [] DEFAULT NULL,
    embedding_model text DEFAULT NULL
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    q tsquery;
    known boolean := false;
    target_audience uuid [];
BEGIN
    PERFORM agent_state._bind(agent);
    IF max_results IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'max_results: must not be null';
    END IF;
    IF max_results < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'max_results: must be at least 1';
    END IF;
    -- Ages are measured from as_of: it must be a moment (an infinite one has no
    -- age to decay by).
    IF NOT pg_catalog.isfinite(as_of) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'as_of: must be a finite timestamp';
    END IF;
    IF pg_catalog.length(query) > 10000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'query: longer than 10000 characters';
    END IF;
    IF current_subject IS NOT NULL AND NOT EXISTS (
        SELECT FROM agent_state.actors AS a
        WHERE a.runtime_agent_id = agent AND a.actor_id = current_subject
    ) THEN
        PERFORM agent_state._missing('actor', 'current_subject', current_subject,
            EXISTS (SELECT FROM agent_state.actors AS a WHERE a.actor_id = current_subject));
    END IF;
    -- The target audience: that of the conversation's latest message (latest
    -- observed_at, then latest recorded), among those recorded by as_of.
    SELECT t.known, t.audience INTO known, target_audience
    FROM agent_state._conversation_target(agent, conversation, as_of) AS t;
    q := agent_state._match_query(query, match);
    PERFORM agent_state._need_query_embedding(agent, query_embedding, embedding_model);
    RETURN QUERY
    SELECT r.entry, r.revision, r.body, r.subject, r.score, r.text_rank, r.subject_match, r.age
    FROM agent_state._rank_memory(agent, q, conversation, known, target_audience,
                                  current_subject, max_results, as_of, false,
                                  query_embedding, embedding_model) AS r;
END
$$;

COMMENT ON FUNCTION agent_state.recall(uuid, text, uuid, uuid, integer, timestamptz, text, real [], text) IS
'recall(agent, query, conversation => null, current_subject => null, max_results => 10, '
'as_of => null, match => ''all'', query_embedding => null, embedding_model => null) -> (entry, '
'revision, body, subject, score, text_rank, subject_match, age): full-text search (match '
'''all'': websearch_to_tsquery syntax; ''any'': any word of the query, more words rank higher; '
'english) over the revisions eligible for the '
'conversation (its latest message''s audience; none: only operator notes and all-public '
'evidence), or as they were at as_of. score = text_rank * (1 + subject_boost if subject = '
'current_subject) * 0.5 ^ (age / recency_half_life); null or blank query: text_rank 1. Order: '
'score desc, newest, entry id. max_results: null 22004, < 1 22023, capped at 1000. query over '
'10,000 characters, infinite as_of: 22023. Unknown conversation or current_subject: P0002 (23503 if another '
'perspective''s). With query_embedding (and embedding_model; pgvector needed, 0A000): the '
'lexical matches plus the eligible revisions nearest to it by cosine distance (at least 50, or '
'5 x max_results), fused as 1/(60 + lexical rank) + 1/(60 + vector rank), times the subject '
'boost and recency decay (score); eligibility applies before the neighbours are taken.';
-- Erasure: the one audited exception to append-only memory history.
CREATE OR REPLACE FUNCTION agent_state.redact(agent uuid, entry uuid, reason text)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    removed text [];
    snapshot_hashes text [];
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    PERFORM FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
    END IF;
    IF EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('entry: memory entry %s is already redacted', entry);
    END IF;

    -- The sha256 of each distinct text removed, oldest revision first.
    SELECT coalesce(pg_catalog.array_agg(h.sha ORDER BY h.first_rev), '{}') INTO removed
    FROM (
        SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(r.body, 'UTF8')), 'hex') AS sha,
               pg_catalog.min(r.revision) AS first_rev
        FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry
        GROUP BY 1
    ) AS h;

    -- The redaction row comes first: it is what authorises the rewrites below
    -- (_redaction_allowed), in this transaction only. Its completeness check runs
    -- at commit even when the caller set constraints immediate.
    SET CONSTRAINTS agent_state.memory_redactions_complete_check DEFERRED;
    INSERT INTO agent_state.memory_redactions (runtime_agent_id, entry_id, reason, removed_sha256)
    VALUES (agent, entry, reason, removed);

    UPDATE agent_state.memory_revisions AS r
    SET body = '[redacted]'
    WHERE r.runtime_agent_id = agent AND r.entry_id = entry;

    UPDATE agent_state.memory_entries AS e
    SET body = '[redacted]', live = false
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;

    -- Embeddings and LangGraph item values are derived from the removed text.
    DELETE FROM agent_state.memory_embeddings AS x
    WHERE x.runtime_agent_id = agent AND x.entry_id = entry;
    DELETE FROM agent_state.graph_item_values AS x
    WHERE x.runtime_agent_id = agent AND x.entry_id = entry;

    snapshot_hashes := agent_state._redact_snapshots(agent, entry);
    IF pg_catalog.cardinality(snapshot_hashes) > 0 THEN
        UPDATE agent_state.memory_redactions AS d
        SET removed_sha256 = d.removed_sha256 || snapshot_hashes
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry;
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.redact(uuid, uuid, text) IS
'redact(agent, entry, reason) (operator): erasure. Retires the entry and replaces the body of '
'every revision of it, and the prompt of every snapshot that used one of them, with '
'''[redacted]'', and erases their embeddings and LangGraph item values; keeps the operation log, subjects and provenance, and records who, when, why '
'and the sha256 of each text removed (memory_redactions). reason required (22004/22023). '
'Forgotten entries can be redacted; redacting twice: 55000. Unknown entry: P0002 (23503 if '
'another perspective''s).';
-- Memory writes: remember (agent-authored, from a message), note (operator),
-- amend and forget. Each writes the entry's new state and its revision (with the
-- revision's full evidence set) in one transaction; sql/memory.sql
-- verifies the result at commit.
CREATE OR REPLACE FUNCTION agent_state.remember(
    agent uuid,
    body text,
    source_message uuid,
    subject uuid DEFAULT NULL,
    visibility text DEFAULT 'perspective'
)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- Full-text parsing of a word over 2,047 characters raises a NOTICE per row: noise.
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    -- Hot path: the helpers (which raise the errors) run only when their own
    -- condition holds, so valid arguments cost simple expressions, not calls.
    IF body IS NULL OR pg_catalog.length(body) > 100000 OR pg_catalog.btrim(body, E' \t\r\n') = '' THEN
        PERFORM agent_state._need_text(body, 'body');
    END IF;
    IF source_message IS NULL THEN
        PERFORM agent_state._need(source_message, 'source_message');
    END IF;
    IF visibility IS NULL OR visibility NOT IN ('perspective', 'conversation') THEN
        PERFORM agent_state._need_one_of(visibility, 'visibility', ARRAY['perspective', 'conversation']);
    END IF;
    -- Nested, so that a null subject costs a simple expression, not a query.
    IF subject IS NOT NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = subject
        ) THEN
            PERFORM agent_state._missing('actor', 'subject', subject,
                EXISTS (SELECT FROM agent_state.actors AS a WHERE a.actor_id = subject));
        END IF;
    END IF;
    -- Source actor and evidence come from the persisted message (an unknown
    -- message raises before anything is written).
    RETURN QUERY
    SELECT i.entry, i.revision
    FROM agent_state._insert_memory(agent, body, subject, visibility, 'agent', NULL, source_message, NULL) AS i;
END
$$;

COMMENT ON FUNCTION agent_state.remember(uuid, text, uuid, uuid, text) IS
'remember(agent, body, source_message, subject => null, visibility => ''perspective'') '
'-> (entry, revision): an agent-authored memory. source_message is required (22004) and must be '
'a message of this perspective (P0002; 23503 if another perspective''s): its author is the source '
'actor and its audience the evidence. subject: an actor of this perspective or null. visibility: '
'perspective or conversation (22023). body: 1 to 100,000 characters (22023).';
-- A batch of agent-authored memories (typically several facts from one message):
-- each item is written as remember writes it, all or nothing, in one call.
--
-- Hot path: when every item is well-formed and names this agent's message (and
-- actor), all of them are written by one set-based statement, as _insert_memory
-- writes one. Otherwise the loop writes them one by one through remember, so the
-- first bad item is named with remember's own error.
CREATE OR REPLACE FUNCTION agent_state.remember_many(agent uuid, memories jsonb)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    item jsonb;
    i integer := 0;
    failed text;
    state text;
    unknown text;
    n integer;
    ids uuid [];
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(memories, 'memories');
    PERFORM agent_state._need_json(memories, 'memories', ARRAY['array']);
    IF pg_catalog.jsonb_array_length(memories) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'memories: more than 1000 items';
    END IF;
    n := pg_catalog.jsonb_array_length(memories);
    WITH items AS MATERIALIZED (
        SELECT e.ord, e.item ->> 'body' AS body, (e.item ->> 'source_message')::uuid AS msg,
               (e.item ->> 'subject')::uuid AS subject,
               coalesce(e.item ->> 'visibility', 'perspective') AS visibility
        FROM pg_catalog.jsonb_array_elements(memories) WITH ORDINALITY AS e (item, ord)
        -- Conditions under which remember accepts the item; the casts above run
        -- only on rows that pass (a scan projects after its filter).
        WHERE pg_catalog.jsonb_typeof(e.item) = 'object'
          AND (e.item - ARRAY['body', 'source_message', 'subject', 'visibility']) = '{}'::jsonb
          AND pg_catalog.jsonb_typeof(e.item -> 'body') = 'string'
          AND pg_catalog.length(e.item ->> 'body') <= 100000
          AND pg_catalog.btrim(e.item ->> 'body', E' \t\r\n') <> ''
          AND pg_catalog.jsonb_typeof(e.item -> 'source_message') = 'string'
          AND (e.item ->> 'source_message') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
          AND coalesce(pg_catalog.jsonb_typeof(e.item -> 'subject'), 'null') IN ('null', 'string')
          AND coalesce(e.item ->> 'subject', '00000000-0000-0000-0000-000000000000')
              ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
          AND coalesce(pg_catalog.jsonb_typeof(e.item -> 'visibility'), 'null') IN ('null', 'string')
          AND coalesce(e.item ->> 'visibility', 'perspective') IN ('perspective', 'conversation')
    ),
    src AS MATERIALIZED (
        SELECT i.ord, pg_catalog.gen_random_uuid() AS entry_id, i.body, i.subject, i.visibility, i.msg,
               m.author_id, m.audience, m.conversation_id
        FROM items AS i
        JOIN agent_state.messages AS m ON m.runtime_agent_id = agent AND m.message_id = i.msg
        WHERE i.subject IS NULL OR EXISTS (
            SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = i.subject
        )
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        SELECT agent, s.entry_id, 1, 'create', s.body, s.subject, s.visibility,
               'agent', s.author_id, s.msg, s.audience, ARRAY[s.conversation_id]
        FROM src AS s
        -- All or none: a batch with a bad item writes nothing here.
        WHERE (SELECT pg_catalog.count(*) FROM src) = n
        RETURNING r.entry_id, r.created_at
    ),
    ent AS (
        INSERT INTO agent_state.memory_entries AS w
            (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
             source_type, evidence_observers, evidence_conversations, revised_at)
        SELECT agent, s.entry_id, 1, true, s.body, s.subject, s.visibility,
               'agent', s.audience, ARRAY[s.conversation_id], rev.created_at
        FROM src AS s
        JOIN rev ON rev.entry_id = s.entry_id
        RETURNING w.entry_id
    )
    SELECT pg_catalog.array_agg(s.entry_id ORDER BY s.ord) INTO ids
    FROM src AS s
    JOIN ent ON ent.entry_id = s.entry_id;
    IF n > 0 AND pg_catalog.cardinality(ids) = n THEN
        RETURN QUERY SELECT u.id, 1 FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u (id, ord) ORDER BY u.ord;
        RETURN;
    END IF;

    FOR item IN SELECT e.value FROM pg_catalog.jsonb_array_elements(memories) AS e LOOP
        IF pg_catalog.jsonb_typeof(item) <> 'object' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = pg_catalog.format('memories[%s]: must be a JSON object', i);
        END IF;
        SELECT k INTO unknown FROM pg_catalog.jsonb_object_keys(item) AS k
        WHERE k <> ALL (ARRAY['body', 'source_message', 'subject', 'visibility']) ORDER BY k LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format('memories[%s].%s: unknown key; known keys are body, '
                                            'source_message, subject, visibility', i, unknown);
        END IF;
        SELECT k INTO unknown FROM pg_catalog.unnest(ARRAY['source_message', 'subject']) AS k
        WHERE item ? k AND pg_catalog.jsonb_typeof(item -> k) <> 'null'
          AND (item ->> k) !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = pg_catalog.format('memories[%s].%s: must be a UUID', i, unknown);
        END IF;
        BEGIN
            SELECT r.entry, r.revision INTO entry, revision
            FROM agent_state.remember(
                agent,
                item ->> 'body',
                (item ->> 'source_message')::uuid,
                (item ->> 'subject')::uuid,
                coalesce(item ->> 'visibility', 'perspective')
            ) AS r;
        EXCEPTION WHEN OTHERS THEN
            -- The same error, naming the item: memories[3].body: ...
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, state = RETURNED_SQLSTATE;
            RAISE EXCEPTION USING
                ERRCODE = state,
                MESSAGE = pg_catalog.format('memories[%s].%s', i, failed);
        END;
        RETURN NEXT;
        i := i + 1;
    END LOOP;
END
$$;

COMMENT ON FUNCTION agent_state.remember_many(uuid, jsonb) IS
'remember_many(agent, memories jsonb) -> (entry, revision) per item: memories is an array of '
'up to 1,000 objects {"body", "source_message", "subject" (optional), "visibility" (optional)}, '
'each written as remember writes it; all or nothing. An error names the item: '
'memories[i].<argument> with remember''s SQLSTATE.';
-- An agent with persona revisions has exactly one active revision, and it is
-- the one its activation log names last. Direct DML cannot leave the flag and the
-- log disagreeing. Run at commit and by verify().
CREATE OR REPLACE FUNCTION agent_state._check_persona(agent uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    active_count integer;
    active_rev integer;
    logged_rev integer;
BEGIN
    SELECT pg_catalog.count(*), pg_catalog.max(r.revision) INTO active_count, active_rev
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = agent AND r.is_active;

    SELECT a.revision INTO logged_rev
    FROM agent_state.persona_activations AS a
    WHERE a.runtime_agent_id = agent
    ORDER BY a.activation_id DESC
    LIMIT 1;

    IF active_count <> 1 OR logged_rev IS DISTINCT FROM active_rev THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'persona: agent %s must have exactly one active revision matching its activation log',
                agent);
    END IF;
    RETURN;
END
$$;
-- At commit of a persona revision or activation (_check_persona).
CREATE OR REPLACE FUNCTION agent_state._check_persona_active()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_persona(NEW.runtime_agent_id);
    RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION agent_state.active_persona(agent uuid, as_of timestamptz DEFAULT NULL)
RETURNS TABLE (revision integer, body text, activated_at timestamptz)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(active_persona.agent);
    RETURN QUERY
    SELECT a.revision, r.body, a.created_at
    FROM agent_state.persona_activations AS a
    JOIN agent_state.persona_revisions AS r
      ON r.runtime_agent_id = a.runtime_agent_id AND r.revision = a.revision
    WHERE a.runtime_agent_id = active_persona.agent
      AND (active_persona.as_of IS NULL OR a.created_at <= active_persona.as_of)
    ORDER BY a.created_at DESC, a.activation_id DESC
    LIMIT 1;
END
$$;

COMMENT ON FUNCTION agent_state.active_persona(uuid, timestamptz) IS
'active_persona(agent, as_of => null) -> (revision, body, activated_at): the active '
'revision now, or at the moment as_of (''infinity'': now; ''-infinity'': before any). No row '
'when none was active then.';
-- A tool's current contract is one of its registrations, with the same version
-- and schema. (Not a foreign key: tool_versions already refers to tools, and
-- pg_dump loads each table in a transaction of its own.) Run at commit and by
-- verify().
CREATE OR REPLACE FUNCTION agent_state._check_tool(tool text)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (
        SELECT FROM agent_state.tools AS t
        JOIN agent_state.tool_versions AS v
          ON v.tool_name = t.tool_name AND v.revision = t.revision
        WHERE t.tool_name = tool
          AND v.version = t.version AND v.config_schema = t.config_schema
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format(
                'tools: the current contract of tool %s is not its registration %s',
                tool, (SELECT t.revision FROM agent_state.tools AS t WHERE t.tool_name = tool));
    END IF;
    RETURN;
END
$$;
-- At commit of a tool registration (_check_tool).
CREATE OR REPLACE FUNCTION agent_state._check_tool_current()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_tool(NEW.tool_name);
    RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION agent_state.grant_tool(
    agent uuid,
    tool text,
    enabled boolean,
    config jsonb DEFAULT '{}'
)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    contract record;
    next_rev integer;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(tool, 'tool', 200);
    PERFORM agent_state._need(enabled, 'enabled');
    PERFORM agent_state._need(config, 'config');
    -- Bounded nesting keeps every later walk over a grant's config (validation,
    -- export) far from the stack limit.
    PERFORM agent_state._json_within(config, 'config', 1000000, 32);

    -- FOR SHARE: the contract cannot be replaced while this grant is validated
    -- against it.
    SELECT t.version, t.config_schema, t.revision INTO contract
    FROM agent_state.tools AS t
    WHERE t.tool_name = tool
    FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('tool: unknown tool %L', tool),
            HINT = 'An operator registers tools with agent_state.register_tool.';
    END IF;
    -- A disabled grant needs no configuration: the empty object is accepted
    -- whatever the contract requires. Any other config is validated in full.
    IF enabled OR config <> '{}'::jsonb THEN
        PERFORM agent_state._validate_json(config, contract.config_schema, 'config');
    END IF;

    PERFORM agent_state._lock_agent(agent);
    SELECT coalesce(pg_catalog.max(g.revision), 0) + 1 INTO next_rev
    FROM agent_state.tool_grants AS g
    WHERE g.runtime_agent_id = agent AND g.tool_name = tool;

    INSERT INTO agent_state.tool_grants
        (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision)
    VALUES (agent, tool, next_rev, enabled, config, contract.version, contract.revision);
    RETURN next_rev;
END
$$;

COMMENT ON FUNCTION agent_state.grant_tool(uuid, text, boolean, jsonb) IS
'grant_tool(agent, tool, enabled, config => ''{}'') -> int (operator): appends grant revision '
'n+1 for agent and tool, config validated against the tool''s config_schema (22023 naming the '
'field, e.g. config.limit; over 1,000,000 bytes or nested deeper than 32 levels: 22023). '
'A disabled grant accepts config ''{}'' whatever the schema requires. '
'Unregistered tool: P0002; enabled or config null: 22004.';
CREATE OR REPLACE FUNCTION agent_state.register_tool(name text, version text, config_schema jsonb)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    cur record;
BEGIN
    IF NOT agent_state._caller_is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('name: role %I is not an agent_state operator',
                                        agent_state._caller()),
            HINT = 'Only members of agent_state_operator may do this.';
    END IF;
    PERFORM agent_state._need_text(name, 'name', 200);
    IF name ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'name: must not contain control characters';
    END IF;
    PERFORM agent_state._need_text(version, 'version', 200);
    PERFORM agent_state._need(config_schema, 'config_schema');
    PERFORM agent_state._json_within(config_schema, 'config_schema', 1000000);
    PERFORM agent_state._check_json_schema(config_schema, 'config_schema');

    INSERT INTO agent_state.tools AS t (tool_name, version, config_schema, revision)
    VALUES (name, version, config_schema, 1)
    ON CONFLICT ON CONSTRAINT tools_pkey DO NOTHING;
    IF FOUND THEN
        INSERT INTO agent_state.tool_versions (tool_name, revision, version, config_schema)
        VALUES (name, 1, version, config_schema);
        RETURN;
    END IF;

    -- Already registered: the row lock serialises registrations of one tool and
    -- waits for grants being validated against the current contract.
    SELECT t.version, t.config_schema, t.revision INTO cur
    FROM agent_state.tools AS t
    WHERE t.tool_name = name
    FOR UPDATE;
    IF cur.version = version AND cur.config_schema = config_schema THEN
        RETURN;
    END IF;
    UPDATE agent_state.tools AS t
    SET version = register_tool.version, config_schema = register_tool.config_schema,
        revision = cur.revision + 1
    WHERE t.tool_name = name;
    INSERT INTO agent_state.tool_versions (tool_name, revision, version, config_schema)
    VALUES (name, cur.revision + 1, version, config_schema);
END
$$;

COMMENT ON FUNCTION agent_state.register_tool(text, text, jsonb) IS
'register_tool(name, version, config_schema) (operator): registers a tool or replaces its '
'contract (every registration is kept). config_schema: JSON Schema subset (type, properties, '
'required, enum, minimum, maximum, items, additionalProperties, description, title); '
'anything else or malformed: 22023. Same version and schema again: no-op. Not operator: 42501.';

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
-- Embeddings (the semantic axis of retrieval): derived data attached to one
-- immutable revision, one per revision and model. Stored as real[] so that the
-- tables exist without pgvector; the functions that use them need the vector
-- extension (0A000 otherwise) and cast to its type when they compare. All
-- embeddings of one model in one agent have the dimension recorded for that
-- model (composite foreign key). Never updated; deleted only by redact, in the
-- transaction that redacts their entry.
CREATE TABLE agent_state.memory_embedding_models (
    runtime_agent_id uuid NOT NULL,
    model text NOT NULL,
    dimensions integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_embedding_models_pkey PRIMARY KEY (runtime_agent_id, model),
    CONSTRAINT memory_embedding_models_dimensions_key UNIQUE (runtime_agent_id, model, dimensions),
    CONSTRAINT memory_embedding_models_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT memory_embedding_models_model_check CHECK (btrim(model) <> '' AND length(model) <= 200),
    CONSTRAINT memory_embedding_models_dimensions_check CHECK (dimensions BETWEEN 1 AND 16000)
);

COMMENT ON TABLE agent_state.memory_embedding_models IS
'Embedding models used by an agent, with the one dimension every embedding of that model has.';

CREATE TABLE agent_state.memory_embeddings (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    model text NOT NULL,
    dimensions integer NOT NULL,
    embedding real [] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_embeddings_pkey PRIMARY KEY (runtime_agent_id, entry_id, revision, model),
    CONSTRAINT memory_embeddings_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision),
    CONSTRAINT memory_embeddings_model_fkey FOREIGN KEY (runtime_agent_id, model, dimensions)
    REFERENCES agent_state.memory_embedding_models (runtime_agent_id, model, dimensions),
    CONSTRAINT memory_embeddings_shape_check CHECK (
        array_ndims(embedding) = 1 AND cardinality(embedding) = dimensions
        AND array_position(embedding, NULL) IS NULL
    ),
    CONSTRAINT memory_embeddings_finite_check CHECK (
        NOT (
            'NaN'::real = ANY (embedding)
            OR 'Infinity'::real = ANY (embedding)
            OR '-Infinity'::real = ANY (embedding)
        )
    )
);

COMMENT ON TABLE agent_state.memory_embeddings IS
'Embeddings of memory revisions (derived data, one per revision and model); redact erases them.';

CREATE TRIGGER memory_embeddings_before_insert
BEFORE INSERT ON agent_state.memory_embeddings
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._guard_derived_memory();

CREATE TRIGGER memory_embeddings_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_embeddings
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_derived_memory();

CREATE TRIGGER memory_embedding_models_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_embedding_models
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();
-- LangGraph checkpoints (agent_state.integrations.langgraph): a graph's threads,
-- checkpoints and pending writes, owned by one agent like every other row.
--
-- A thread is a conversation of the agent (connector 'langgraph', external_ref the
-- thread id). Each LangGraph run (the run_id of a checkpoint's metadata) is a run of
-- agent_state continuing the thread's previous one, so a thread's budget carries
-- over; every stored checkpoint is also a checkpoint of that run, whose frontier
-- names it, so recover_run returns the resume point. Payloads (the serialized
-- checkpoint and writes) are append-only, except that an interrupt, error or
-- other special write (negative idx) is replaced by the next one, as LangGraph
-- expects; they are removed only by a purge (delete_thread, delete_for_runs,
-- prune), which first writes an append-only purge record (who, when, why, what)
-- that authorises the deletes in its own transaction. The run ledger (runs,
-- checkpoints) never loses a row.
CREATE TABLE agent_state.graph_threads (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    conversation_id uuid NOT NULL,
    current_run_id uuid,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_threads_pkey PRIMARY KEY (runtime_agent_id, thread_id),
    CONSTRAINT graph_threads_conversation_fkey FOREIGN KEY (runtime_agent_id, conversation_id)
    REFERENCES agent_state.conversations (runtime_agent_id, conversation_id),
    CONSTRAINT graph_threads_run_fkey FOREIGN KEY (runtime_agent_id, current_run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT graph_threads_thread_check CHECK (thread_id <> '' AND length(thread_id) <= 1000)
);

COMMENT ON TABLE agent_state.graph_threads IS
'LangGraph threads: the conversation each is, and the run its latest checkpoint belongs to.';

-- LangGraph run ids (strings) and the agent_state runs they became.
CREATE TABLE agent_state.graph_runs (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    graph_run_id text NOT NULL,
    run_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_runs_pkey PRIMARY KEY (runtime_agent_id, thread_id, graph_run_id),
    CONSTRAINT graph_runs_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    CONSTRAINT graph_runs_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id)
);

COMMENT ON TABLE agent_state.graph_runs IS
'LangGraph run ids of a thread and the agent_state run each became.';

-- Checkpoint ids are ordered by their bytes (LangGraph's ids are time-ordered
-- strings; a linguistic collation ignores their dashes): COLLATE "C", so that
-- the primary key reads a thread's latest checkpoints in order.
CREATE TABLE agent_state.graph_checkpoints (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    checkpoint_ns text NOT NULL,
    checkpoint_id text COLLATE "C" NOT NULL,
    parent_checkpoint_id text COLLATE "C",
    run_id uuid NOT NULL,
    graph_run_id text,
    payload_type text NOT NULL,
    payload bytea NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_checkpoints_pkey PRIMARY KEY (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id),
    CONSTRAINT graph_checkpoints_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    CONSTRAINT graph_checkpoints_run_fkey FOREIGN KEY (runtime_agent_id, run_id)
    REFERENCES agent_state.runs (runtime_agent_id, run_id),
    CONSTRAINT graph_checkpoints_metadata_check CHECK (jsonb_typeof(metadata) = 'object'),
    CONSTRAINT graph_checkpoints_id_check CHECK (checkpoint_id <> '' AND length(checkpoint_id) <= 200),
    CONSTRAINT graph_checkpoints_ns_check CHECK (length(checkpoint_ns) <= 1000)
);

-- list(): a thread's checkpoints newest first (checkpoint ids sort by time).
CREATE INDEX graph_checkpoints_run_idx
ON agent_state.graph_checkpoints (runtime_agent_id, graph_run_id);

COMMENT ON TABLE agent_state.graph_checkpoints IS
'LangGraph checkpoints (serialized), with their metadata as JSON for list filters.';

CREATE TABLE agent_state.graph_writes (
    runtime_agent_id uuid NOT NULL,
    thread_id text NOT NULL,
    checkpoint_ns text NOT NULL,
    checkpoint_id text COLLATE "C" NOT NULL,
    task_id text NOT NULL,
    idx integer NOT NULL,
    channel text NOT NULL,
    value_type text NOT NULL,
    value bytea NOT NULL,
    task_path text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_writes_pkey PRIMARY KEY (runtime_agent_id, thread_id, checkpoint_ns, checkpoint_id, task_id, idx),
    -- The thread, not the checkpoint: LangGraph may store writes before it stores
    -- their checkpoint (it saves checkpoints in the background).
    CONSTRAINT graph_writes_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    -- The limits of graph_checkpoints, and of the other keys the saver passes.
    CONSTRAINT graph_writes_id_check CHECK (checkpoint_id <> '' AND length(checkpoint_id) <= 200),
    CONSTRAINT graph_writes_ns_check CHECK (length(checkpoint_ns) <= 1000),
    CONSTRAINT graph_writes_task_check CHECK (task_id <> '' AND length(task_id) <= 1000),
    CONSTRAINT graph_writes_channel_check CHECK (length(channel) <= 1000 AND length(value_type) <= 1000)
);

COMMENT ON TABLE agent_state.graph_writes IS
'Pending writes of LangGraph checkpoints (serialized); special writes (idx < 0) are replaced.';

CREATE TABLE agent_state.graph_purges (
    runtime_agent_id uuid NOT NULL,
    purge_id bigint NOT NULL,
    thread_id text NOT NULL,
    reason text NOT NULL,
    removed jsonb NOT NULL,
    -- The (top-level) transaction that purged: only it may delete the payloads.
    purge_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_purges_pkey PRIMARY KEY (runtime_agent_id, purge_id),
    CONSTRAINT graph_purges_thread_fkey FOREIGN KEY (runtime_agent_id, thread_id)
    REFERENCES agent_state.graph_threads (runtime_agent_id, thread_id),
    CONSTRAINT graph_purges_reason_check CHECK (btrim(reason) <> '' AND length(reason) <= 10000),
    CONSTRAINT graph_purges_removed_check CHECK (jsonb_typeof(removed) = 'object')
);

CREATE INDEX graph_purges_thread_idx ON agent_state.graph_purges (runtime_agent_id, thread_id);

COMMENT ON TABLE agent_state.graph_purges IS
'Audited removals of LangGraph checkpoint payloads: who, when, why and which checkpoints.';

CREATE TRIGGER graph_purges_number
BEFORE INSERT ON agent_state.graph_purges
FOR EACH ROW WHEN (NOT agent_state._restoring())
EXECUTE FUNCTION agent_state._number_per_agent('purge_id');

CREATE TRIGGER graph_purges_append_only
BEFORE UPDATE OR DELETE ON agent_state.graph_purges
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER graph_runs_append_only
BEFORE UPDATE OR DELETE ON agent_state.graph_runs
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER graph_threads_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_threads
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change('current_run_id');

CREATE TRIGGER graph_checkpoints_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_checkpoints
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_graph_payload();

CREATE TRIGGER graph_writes_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_writes
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_graph_payload();

-- Direct DML may delete only what a purge of its transaction lists.
CREATE TRIGGER graph_checkpoints_purge_listed
BEFORE DELETE ON agent_state.graph_checkpoints
FOR EACH ROW WHEN (NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._guard_graph_purge_listed();

CREATE TRIGGER graph_writes_purge_listed
BEFORE DELETE ON agent_state.graph_writes
FOR EACH ROW WHEN (NOT agent_state._own_write())
EXECUTE FUNCTION agent_state._guard_graph_purge_listed();

-- LangGraph store items (AgentStateStore): each (namespace, key) of an agent is a
-- memory entry, so it has revisions, provenance and eligibility; its JSON value is
-- kept per revision. A put of an existing live key amends the entry, a delete
-- forgets it, and a put after a delete makes a new entry (the key then names it).
CREATE TABLE agent_state.graph_items (
    runtime_agent_id uuid NOT NULL,
    namespace text [] NOT NULL,
    key text NOT NULL,
    entry_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_items_pkey PRIMARY KEY (runtime_agent_id, namespace, key),
    CONSTRAINT graph_items_entry_key UNIQUE (runtime_agent_id, entry_id),
    CONSTRAINT graph_items_entry_fkey FOREIGN KEY (runtime_agent_id, entry_id)
    REFERENCES agent_state.memory_entries (runtime_agent_id, entry_id),
    -- (Not BETWEEN: PostgreSQL prints it back as a nested AND, and a restored
    -- plain install would differ from a fresh one.)
    CONSTRAINT graph_items_namespace_check CHECK (
        cardinality(namespace) >= 1 AND cardinality(namespace) <= 100
        AND array_position(namespace, NULL) IS NULL
    ),
    CONSTRAINT graph_items_key_check CHECK (length(key) <= 1000)
);

COMMENT ON TABLE agent_state.graph_items IS
'LangGraph store items: the memory entry each (namespace, key) names.';

CREATE TABLE agent_state.graph_item_values (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    value jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT graph_item_values_pkey PRIMARY KEY (runtime_agent_id, entry_id, revision),
    CONSTRAINT graph_item_values_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision),
    CONSTRAINT graph_item_values_value_check CHECK (jsonb_typeof(value) = 'object')
);

COMMENT ON TABLE agent_state.graph_item_values IS
'The JSON value of a LangGraph store item at each revision of its memory entry.';

CREATE TRIGGER graph_items_guard
BEFORE UPDATE OR DELETE ON agent_state.graph_items
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change('entry_id');

-- Values hold the item's text: redact erases them with the entry's text.
CREATE TRIGGER graph_item_values_append_only
BEFORE UPDATE OR DELETE ON agent_state.graph_item_values
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_derived_memory();

-- The whole-schema passes: stamp and scope-guard triggers, config_dump
-- registration, grants.
-- Row-level security on every table of the schema, written once.
--
-- agent_scope: a role sees and writes only rows of agents it may act for right
--   now. The caller's agent set is computed once per statement (InitPlan).
-- stamp_created: tables with created_at/created_by get them from the database
--   (a restore keeps the stamps it loads: see _restoring).
-- operator_truncate: TRUNCATE ignores RLS, so only operators may truncate.
-- no_truncate: a table whose rows refuse DELETE (a BEFORE ROW DELETE trigger:
--   append-only history) refuses TRUNCATE, the bulk delete, for every role.
-- 0_scope_guard: a BEFORE INSERT trigger that runs as the owner (SECURITY DEFINER)
--   reads other rows before row-level security checks the new row; so that a role
--   granted table privileges learns nothing about an agent it may not act for
--   (not even through which error it gets), every agent-owned table with such a
--   trigger gets _guard_scope first (trigger names sort; the stamp trigger reads
--   nothing). Operators may act for every agent: the WHEN clause skips them, and
--   the owner, without a call.
-- owner_bypass: the installing role owns the SECURITY DEFINER functions; its
--   policy is constant true, which the planner folds away, so queries inside
--   the functions plan like bare SQL (a non-leakproof @@ under an RLS qual can
--   never be an index condition).
-- config_dump: under CREATE EXTENSION (and ALTER EXTENSION UPDATE), every table
--   is registered with pg_extension_config_dump, so pg_dump writes its rows;
--   without that a dump holds only CREATE EXTENSION and no data; so would be any
--   sequence (there are none: numbers are per agent). (A plain-SQL install is
--   dumped like any other schema.)
DO $rls$
DECLARE
    t record;
BEGIN
    FOR t IN
        SELECT c.oid::regclass AS tbl, c.relname::text AS name,
               EXISTS (
                   SELECT FROM pg_catalog.pg_attribute AS a
                   WHERE a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped
               ) AS agent_owned,
               (
                   SELECT pg_catalog.count(*) = 2 FROM pg_catalog.pg_attribute AS a
                   WHERE a.attrelid = c.oid AND a.attname IN ('created_at', 'created_by')
                     AND NOT a.attisdropped
               ) AS stamped
        FROM pg_catalog.pg_class AS c
        WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
        ORDER BY c.relname
    LOOP
        EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t.tbl);
        EXECUTE pg_catalog.format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t.tbl);
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', t.tbl);
        IF t.stamped AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = 'stamp_created'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER stamp_created BEFORE INSERT ON %s '
                || 'FOR EACH ROW WHEN (NOT agent_state._restoring()) '
                || 'EXECUTE FUNCTION agent_state._stamp_created()',
                t.tbl);
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = 'operator_truncate'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER operator_truncate BEFORE TRUNCATE ON %s '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION agent_state._operator_truncate_only()',
                t.tbl);
        END IF;
        -- tgtype bits: 1 = row, 2 = before, 8 = delete.
        IF EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND NOT g.tgisinternal AND g.tgtype & 11 = 11
        ) AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = 'no_truncate'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER no_truncate BEFORE TRUNCATE ON %s '
                || 'FOR EACH STATEMENT EXECUTE FUNCTION agent_state._refuse_change()',
                t.tbl);
        END IF;
        -- tgtype bits: 1 = row, 2 = before, 4 = insert.
        IF t.agent_owned AND EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            JOIN pg_catalog.pg_proc AS f ON f.oid = g.tgfoid
            WHERE g.tgrelid = t.tbl AND NOT g.tgisinternal AND g.tgtype & 7 = 7
              AND f.prosecdef AND g.tgname <> 'stamp_created'
        ) AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_trigger AS g
            WHERE g.tgrelid = t.tbl AND g.tgname = t.name || '_0_scope_guard'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE TRIGGER %I BEFORE INSERT ON %s FOR EACH ROW '
                || 'WHEN (NOT agent_state._restoring() '
                || 'AND NOT pg_catalog.pg_has_role(current_user, ''agent_state_operator'', ''MEMBER'')) '
                || 'EXECUTE FUNCTION agent_state._guard_scope()',
                t.name || '_0_scope_guard', t.tbl);
        END IF;
        IF NOT EXISTS (
            SELECT FROM pg_catalog.pg_policy AS p
            WHERE p.polrelid = t.tbl AND p.polname = 'owner_bypass'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE POLICY owner_bypass ON %s TO %I USING (true) WITH CHECK (true)',
                t.tbl, current_user);
        END IF;
        IF t.agent_owned AND NOT EXISTS (
            SELECT FROM pg_catalog.pg_policy AS p
            WHERE p.polrelid = t.tbl AND p.polname = 'agent_scope'
        ) THEN
            EXECUTE pg_catalog.format(
                'CREATE POLICY agent_scope ON %s USING ('
                || '(SELECT agent_state._caller_is_operator()) '
                || 'OR runtime_agent_id = ANY ((SELECT agent_state._hosted_agents())::uuid []))',
                t.tbl);
        END IF;
    END LOOP;
    -- config_dump (see above): every table (and sequence, should one be added).
    IF EXISTS (SELECT FROM pg_catalog.pg_extension AS e WHERE e.extname = 'agent_state') THEN
        FOR t IN
            SELECT c.oid::regclass AS tbl
            FROM pg_catalog.pg_class AS c
            WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p', 'S')
              AND NOT EXISTS (
                  SELECT FROM pg_catalog.pg_extension AS e
                  WHERE e.extname = 'agent_state' AND c.oid = ANY (e.extconfig))
            ORDER BY c.relname
        LOOP
            PERFORM pg_catalog.pg_extension_config_dump(t.tbl, '');
        END LOOP;
    END IF;
END
$rls$;
-- Function privileges, written once for the whole schema (this file loads last).
-- PostgreSQL grants EXECUTE to PUBLIC on every new function: take it back, then
-- grant the public API to the two group roles. Operator-only functions are not
-- granted to runtimes at all (they check again inside). Internal helpers stay
-- ungranted, except those that row-level-security policies and trigger WHEN
-- clauses evaluate as the querying or writing role.
DO $privileges$
DECLARE
    f record;
    operator_only constant text [] := ARRAY[
        'create_agent', 'grant_hosting', 'revoke_hosting',
        'revise_persona', 'activate_persona',
        'note', 'share', 'unshare', 'redact',
        'register_tool', 'grant_tool', 'import_markdown', 'verify', 'index_embeddings'
    ];
    policy_helpers constant text [] := ARRAY[
        '_caller', '_caller_is_operator', '_hosted_agents', '_restoring', '_own_write'
    ];
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS sig, p.proname::text AS name
        FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = 'agent_state'::regnamespace
        ORDER BY p.oid
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f.sig);
        IF f.name = ANY (operator_only) THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO agent_state_operator', f.sig);
        ELSIF f.name = ANY (policy_helpers) OR f.name NOT LIKE '\_%' THEN
            EXECUTE pg_catalog.format(
                'GRANT EXECUTE ON FUNCTION %s TO agent_state_operator, agent_state_runtime', f.sig);
        END IF;
    END LOOP;
END
$privileges$;
