-- agent_state router (SPEC section 15): the objects of a router database that
-- are written by hand. The API functions that only route a call (every
-- function whose first parameter is agent uuid) are generated from the
-- catalog into api.sql (scripts/gen-router.py); this file holds the directory,
-- the routing helpers, the functions that place agents, reach every shard or
-- move agents, and shard_check. Installed by agent_state.router.install()
-- (agent-state shard init) in one transaction, by a superuser (PL/Proxy and
-- its foreign servers need one). A shard is a plain agent_state install:
-- nothing here is installed on a shard.
--
-- Every function here is SECURITY INVOKER unless its comment says otherwise:
-- PL/Proxy connects to a shard as the current user, so a call must reach the
-- shard as the caller's own role (a SECURITY DEFINER function would make every
-- caller the router's owner there).
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

DO $roles$
BEGIN
    -- The group roles, as on the shards (same names, same memberships: the
    -- router checks operator rights itself only to place and move agents).
    IF pg_catalog.to_regrole('agent_state_operator') IS NULL THEN
        CREATE ROLE agent_state_operator NOLOGIN;
    END IF;
    IF pg_catalog.to_regrole('agent_state_runtime') IS NULL THEN
        CREATE ROLE agent_state_runtime NOLOGIN;
    END IF;
END
$roles$;

CREATE SCHEMA agent_state;
CREATE SCHEMA agent_state_router;
REVOKE ALL ON SCHEMA agent_state, agent_state_router FROM PUBLIC;
GRANT USAGE ON SCHEMA agent_state TO agent_state_operator, agent_state_runtime;
GRANT USAGE ON SCHEMA agent_state_router TO agent_state_operator, agent_state_runtime;

-- The shards: a name, the PL/Proxy foreign server that reaches it (one
-- partition), whether new agents are placed there, and how many agents the
-- directory places there (the placement rule reads it).
CREATE TABLE agent_state_router.shards (
    name text NOT NULL,
    server name NOT NULL,
    accepts_new boolean NOT NULL DEFAULT true,
    agents bigint NOT NULL DEFAULT 0,
    added_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CONSTRAINT shards_pkey PRIMARY KEY (name),
    CONSTRAINT shards_server_key UNIQUE (server),
    CONSTRAINT shards_name_check CHECK (name ~ '^[a-z][a-z0-9_]{0,39}$'),
    CONSTRAINT shards_agents_check CHECK (agents >= 0)
);

-- The directory: which shard holds each agent. The handle is unique here, so
-- handles stay unique across shards (each shard keeps them unique too).
CREATE TABLE agent_state_router.directory (
    agent uuid NOT NULL,
    handle text NOT NULL,
    shard text NOT NULL,
    placed_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CONSTRAINT directory_pkey PRIMARY KEY (agent),
    CONSTRAINT directory_handle_key UNIQUE (handle),
    CONSTRAINT directory_shard_fkey FOREIGN KEY (shard) REFERENCES agent_state_router.shards (name)
);
CREATE INDEX directory_shard_idx ON agent_state_router.directory (shard);
REVOKE ALL ON agent_state_router.shards, agent_state_router.directory FROM PUBLIC;
ALTER TABLE agent_state_router.shards ENABLE ROW LEVEL SECURITY;
ALTER TABLE agent_state_router.directory ENABLE ROW LEVEL SECURITY;

-- Is the caller an operator? SECURITY INVOKER: current_user is the caller.
CREATE FUNCTION agent_state_router._is_operator()
RETURNS boolean
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.pg_has_role(current_user, 'agent_state_operator', 'USAGE')
$$;

-- The caller inside a SECURITY DEFINER function: the role chosen with SET
-- ROLE, else the session user (as agent_state._caller on a shard).
CREATE FUNCTION agent_state_router._caller()
RETURNS name
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.current_setting('role') = 'none' THEN session_user
                ELSE pg_catalog.current_setting('role')::name END
$$;

CREATE FUNCTION agent_state_router._need_operator(what text)
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT agent_state_router._is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('%s: role %I is not an agent_state operator', what, current_user),
            HINT = pg_catalog.format('Only members of agent_state_operator may do this (GRANT '
                                     'agent_state_operator TO %I).', current_user);
    END IF;
END
$$;

-- The advisory lock of an agent on the router: routed calls hold it shared
-- until their transaction ends, move_agent exclusively for the whole move.
-- No SET clause: a SQL function with one is never inlined and is planned again on
-- every call (it is fully qualified; _route is on every routed call's path).
CREATE FUNCTION agent_state_router._lock_key(agent uuid)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT pg_catalog.hashtextextended(agent::text, 24)
$$;

-- The foreign server of the shard that holds an agent, for PL/Proxy's
-- CLUSTER: the call then runs there as the caller. An agent the directory
-- does not know goes to the first shard by name, which answers as one server
-- does for an agent it does not hold (42501 for a runtime, P0002 for an
-- operator, 22004 for null): the router adds no error of its own. It is an
-- existence oracle, though: PL/Proxy runs this as the caller, so any role of
-- the API may call it and compare the server with the first one
-- (docs/scaling.md, "What does not hold through a router"). While move_agent moves the agent the call waits (up to 5
-- seconds) and then fails with 55006 (retry). SECURITY DEFINER: it reads the
-- directory; it returns only a server name.
CREATE FUNCTION agent_state_router._route(agent uuid)
RETURNS text
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    srv text;
    deadline timestamptz;
BEGIN
    IF agent IS NOT NULL
       AND NOT pg_catalog.pg_try_advisory_xact_lock_shared(agent_state_router._lock_key(agent)) THEN
        deadline := pg_catalog.clock_timestamp() + interval '5 seconds';
        LOOP
            PERFORM pg_catalog.pg_sleep(0.005);
            EXIT WHEN pg_catalog.pg_try_advisory_xact_lock_shared(agent_state_router._lock_key(agent));
            IF pg_catalog.clock_timestamp() > deadline THEN
                RAISE EXCEPTION USING
                    ERRCODE = '55006',
                    MESSAGE = pg_catalog.format('agent: agent %s is being moved to another shard', agent),
                    HINT = 'Retry: the call goes to the new shard once the move is done.';
            END IF;
        END LOOP;
    END IF;
    SELECT s.server INTO srv
    FROM agent_state_router.directory AS d
    JOIN agent_state_router.shards AS s ON s.name = d.shard
    WHERE d.agent = _route.agent;
    IF srv IS NULL THEN
        srv := agent_state_router._first_server();
    END IF;
    RETURN srv;
END
$$;

CREATE FUNCTION agent_state_router._first_server()
RETURNS text
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    srv text;
BEGIN
    SELECT s.server INTO srv FROM agent_state_router.shards AS s ORDER BY s.name LIMIT 1;
    IF srv IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000', MESSAGE = 'router: no shard added yet (agent_state.add_shard)';
    END IF;
    RETURN srv;
END
$$;

-- PL/Proxy's CLUSTER takes a name or a function call, not a parameter: the
-- _on_ functions name their server through this. No SET clause, so that it is
-- inlined (it references nothing).
CREATE FUNCTION agent_state_router._named(server text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT server
$$;

-- The servers of every shard, by name (calls that reach every shard).
CREATE FUNCTION agent_state_router._servers()
RETURNS TABLE (name text, server text)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.name, s.server::text FROM agent_state_router.shards AS s ORDER BY s.name
$$;

CREATE FUNCTION agent_state_router._server_of(shard text)
RETURNS text
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    srv text;
BEGIN
    SELECT s.server INTO srv FROM agent_state_router.shards AS s WHERE s.name = shard;
    IF srv IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('shard: unknown shard %s', pg_catalog.left(shard, 64));
    END IF;
    RETURN srv;
END
$$;

-- Placement (create_agent, import_agent): the shard accepting new agents that
-- the directory places fewest agents on, ties by name. The handle (and id,
-- when known) is reserved in the directory first: a concurrent placement of
-- the same handle waits for this transaction and then fails with 23505. An
-- operator only (others never reach it: the shard refuses them first).
-- SECURITY DEFINER: it writes the directory, after checking the caller.
CREATE FUNCTION agent_state_router._reserve(handle text, agent uuid DEFAULT NULL, at_shard text DEFAULT NULL)
RETURNS TABLE (shard text, server text, token uuid)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    IF NOT pg_catalog.pg_has_role(agent_state_router._caller(), 'agent_state_operator', 'USAGE') THEN
        RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'router: placement is for operators';
    END IF;
    IF at_shard IS NULL THEN
        SELECT s.name, s.server INTO shard, server
        FROM agent_state_router.shards AS s
        WHERE s.accepts_new
        ORDER BY s.agents, s.name
        LIMIT 1
        FOR UPDATE;
    ELSE
        SELECT s.name, s.server INTO shard, server
        FROM agent_state_router.shards AS s WHERE s.name = at_shard
        FOR UPDATE;
    END IF;
    IF server IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000', MESSAGE = 'router: no shard accepts new agents';
    END IF;
    token := coalesce(agent, pg_catalog.gen_random_uuid());
    IF handle IS NOT NULL THEN
        BEGIN
            INSERT INTO agent_state_router.directory (agent, handle, shard) VALUES (token, handle, shard);
        EXCEPTION WHEN unique_violation THEN
            RAISE EXCEPTION USING
                ERRCODE = '23505',
                MESSAGE = pg_catalog.format('handle: an agent with handle %s already exists (on shard %s)',
                                            pg_catalog.left(handle, 64),
                                            (SELECT d.shard FROM agent_state_router.directory AS d
                                             WHERE d.handle = _reserve.handle OR d.agent = token LIMIT 1));
        END;
        UPDATE agent_state_router.shards AS s SET agents = s.agents + 1 WHERE s.name = shard;
    END IF;
    RETURN NEXT;
END
$$;

-- The id the shard gave an agent placed under a reservation.
CREATE FUNCTION agent_state_router._placed(token uuid, agent uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    UPDATE agent_state_router.directory AS d SET agent = _placed.agent WHERE d.agent = token;
END
$$;

-- Does a connection string (or a server's or user mapping's options written as
-- text) name a user or a password? Key/value (user=, password=), a URI's user
-- part (postgresql://u@h) or its query (?user=, &password=). One test for
-- add_shard's refusal and shard_check's fixed_user report.
CREATE FUNCTION agent_state_router._dsn_names_user(dsn text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT dsn ~* '(^|[\s;=])(user|password)\s*=' OR dsn ~* 'postgres(ql)?://[^/@\s]*@'
        OR dsn ~* 'postgres(ql)?://\S*[?&](user|password)='
$$;

-- Adds a shard (documented SQL of agent-state shard init): a PL/Proxy foreign
-- server with the shard's connection string and a user mapping FOR PUBLIC
-- without options, so PL/Proxy connects as the caller's own role. A
-- connection string naming a user or a password is refused (22023): every
-- caller would reach the shard as that one role. The shard's agents are
-- entered in the directory (one that another shard holds too, or whose handle
-- is taken, is left out: shard_check reports it). Superuser only (foreign
-- servers).
CREATE FUNCTION agent_state.add_shard(name text, dsn text)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    srv text := 'agent_state_shard_' || name;
    inv jsonb;
    n integer := 0;
BEGIN
    IF name IS NULL OR name !~ '^[a-z][a-z0-9_]{0,39}$' THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'name: a shard name is 1-40 characters: a-z first, then a-z, 0-9 or _';
    END IF;
    IF dsn IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'dsn: must not be null';
    END IF;
    IF agent_state_router._dsn_names_user(dsn) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'dsn: must not name a user or a password: the shard must see each caller''s own role',
            HINT = 'Let the shard trust the router host (trust, cert or a pooler with auth passthrough); '
                   'see docs/scaling.md.';
    END IF;
    EXECUTE pg_catalog.format('CREATE SERVER %I FOREIGN DATA WRAPPER plproxy OPTIONS (p0 %L)', srv, dsn);
    EXECUTE pg_catalog.format('CREATE USER MAPPING FOR PUBLIC SERVER %I', srv);
    EXECUTE pg_catalog.format('GRANT USAGE ON FOREIGN SERVER %I TO agent_state_operator, agent_state_runtime', srv);
    INSERT INTO agent_state_router.shards (name, server) VALUES (name, srv);
    inv := agent_state_router._on_shard_inventory(srv);
    INSERT INTO agent_state_router.directory (agent, handle, shard)
    SELECT (a ->> 'agent')::uuid, a ->> 'handle', name
    FROM pg_catalog.jsonb_array_elements(inv -> 'agents') AS a
    WHERE a ->> 'state' IN ('live', 'out')
    ON CONFLICT DO NOTHING;    -- on another shard too: shard_check reports it (live_elsewhere)
    GET DIAGNOSTICS n = ROW_COUNT;
    UPDATE agent_state_router.shards AS s SET agents = n WHERE s.name = add_shard.name;
    RETURN n;
END
$$;

COMMENT ON FUNCTION agent_state.add_shard(text, text) IS
'add_shard(name, dsn) -> integer (router, superuser): adds a shard holding agent_state: a PL/Proxy '
'server with a user mapping FOR PUBLIC and no user, so each caller reaches the shard as its own '
'role (a dsn naming a user or password: 22023); enters its agents in the directory and returns '
'how many.';

-- ---------------------------------------------------------------- the API's special cases

CREATE FUNCTION agent_state.create_agent(handle text, display_name text DEFAULT NULL, settings jsonb DEFAULT '{}')
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    r record;
    new_id uuid;
BEGIN
    IF handle IS NULL OR NOT agent_state_router._is_operator() THEN
        -- The first shard gives the answer one server gives (22004, 42501).
        RETURN agent_state_router._on_create_agent(agent_state_router._first_server(), handle, display_name, settings);
    END IF;
    SELECT * INTO r FROM agent_state_router._reserve(handle);
    new_id := agent_state_router._on_create_agent(r.server, handle, display_name, settings);
    PERFORM agent_state_router._placed(r.token, new_id);
    RETURN new_id;
END
$$;

CREATE FUNCTION agent_state.fork_agent(agent uuid, handle text, as_of timestamptz DEFAULT NULL, display_name text DEFAULT NULL)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    srv text := agent_state_router._route(agent);
    r record;
    new_id uuid;
BEGIN
    -- The shard gives the answer one server gives (22004, 42501, P0002 for an
    -- unknown agent) before any handle is reserved: one server binds the agent first.
    IF agent IS NULL OR handle IS NULL OR NOT agent_state_router._is_operator()
       OR NOT EXISTS (SELECT FROM agent_state_router._directory_entry(agent)) THEN
        RETURN agent_state_router._on_fork_agent(srv, agent, handle, as_of, display_name);
    END IF;
    SELECT * INTO r FROM agent_state_router._reserve(handle, NULL,
        (SELECT s.name FROM agent_state_router._servers() AS s WHERE s.server = srv));
    new_id := agent_state_router._on_fork_agent(srv, agent, handle, as_of, display_name);
    PERFORM agent_state_router._placed(r.token, new_id);
    RETURN new_id;
END
$$;

CREATE FUNCTION agent_state.import_agent(document jsonb)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    r record;
    id uuid;
    new_id uuid;
BEGIN
    BEGIN
        id := (document -> 'agent' ->> 'id')::uuid;
    EXCEPTION WHEN invalid_text_representation THEN
        id := NULL;
    END;
    IF id IS NULL OR document -> 'agent' ->> 'handle' IS NULL OR NOT agent_state_router._is_operator() THEN
        RETURN agent_state_router._on_import_agent(agent_state_router._first_server(), document);
    END IF;
    SELECT * INTO r FROM agent_state_router._reserve(document -> 'agent' ->> 'handle', id);
    new_id := agent_state_router._on_import_agent(r.server, document);
    RETURN new_id;
END
$$;

-- find_agent runs on the shard the directory names for the handle (the first
-- shard when it names none), which answers as one server does: P0002 unless the
-- caller may act for such an agent there. The routing helper returns only a
-- server name, never the id.
CREATE FUNCTION agent_state.find_agent(handle text)
RETURNS uuid
LANGUAGE plproxy
SET search_path = pg_catalog, pg_temp
AS $$
    CLUSTER agent_state_router._route_handle(handle);
    RUN ON 0;
$$;

CREATE FUNCTION agent_state_router._route_handle(handle text)
RETURNS text
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    srv text;
BEGIN
    SELECT s.server INTO srv
    FROM agent_state_router.directory AS d
    JOIN agent_state_router.shards AS s ON s.name = d.shard
    WHERE d.handle = _route_handle.handle;
    RETURN coalesce(srv, agent_state_router._first_server());
END
$$;

CREATE FUNCTION agent_state.list_agents()
RETURNS TABLE (agent uuid, handle text, display_name text, created_at timestamptz)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s record;
BEGIN
    FOR s IN SELECT * FROM agent_state_router._servers() LOOP
        RETURN QUERY SELECT * FROM agent_state_router._on_list_agents(s.server);
    END LOOP;
END
$$;

CREATE FUNCTION agent_state.verify(agent uuid DEFAULT NULL, expected_head text DEFAULT NULL)
RETURNS TABLE (check_name text, object text, detail text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    s record;
BEGIN
    IF agent IS NOT NULL OR expected_head IS NOT NULL THEN
        RETURN QUERY SELECT * FROM agent_state_router._on_verify(agent_state_router._route(agent), agent, expected_head);
        RETURN;
    END IF;
    FOR s IN SELECT * FROM agent_state_router._servers() LOOP
        RETURN QUERY SELECT * FROM agent_state_router._on_verify(s.server, agent, expected_head);
    END LOOP;
END
$$;

CREATE FUNCTION agent_state.index_embeddings(model text, dimensions integer, agent uuid DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    s record;
    result text;
    built text;
BEGIN
    IF agent IS NOT NULL THEN
        RETURN agent_state_router._on_index_embeddings(agent_state_router._route(agent), model, dimensions, agent);
    END IF;
    -- Every shard builds it (the call first: coalesce would skip it once a
    -- result is known); the first shard's index name is the answer.
    FOR s IN SELECT * FROM agent_state_router._servers() LOOP
        built := agent_state_router._on_index_embeddings(s.server, model, dimensions, agent);
        result := coalesce(result, built);
    END LOOP;
    RETURN result;
END
$$;

CREATE FUNCTION agent_state.version()
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN agent_state_router._on_version(agent_state_router._first_server());
END
$$;

CREATE FUNCTION agent_state.shard_inventory()
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s record;
    result jsonb := '{}';
BEGIN
    FOR s IN SELECT * FROM agent_state_router._servers() LOOP
        result := result || pg_catalog.jsonb_build_object(s.name, agent_state_router._on_shard_inventory(s.server));
    END LOOP;
    RETURN result;
END
$$;

-- Deployment-wide: the first shard validates (a bad argument or a refused
-- caller fails there, with nothing written anywhere), then every other shard.
-- There is no two-phase commit: a shard that fails after others registered
-- the tool is named in the error, and shard_check(repair => true) registers
-- it there.
CREATE FUNCTION agent_state.register_tool(name text, version text, config_schema jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    s record;
    first boolean := true;
    failed text [] := '{}';
    msg text;
    code text;
BEGIN
    FOR s IN SELECT * FROM agent_state_router._servers() LOOP
        IF first THEN
            PERFORM agent_state_router._on_register_tool(s.server, name, version, config_schema);
            first := false;
            CONTINUE;
        END IF;
        BEGIN
            PERFORM agent_state_router._on_register_tool(s.server, name, version, config_schema);
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, code = RETURNED_SQLSTATE;
            failed := failed || pg_catalog.format('%s (%s: %s)', s.name, code, pg_catalog.left(msg, 200));
        END;
    END LOOP;
    IF pg_catalog.cardinality(failed) > 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = coalesce(code, '55000'),
            MESSAGE = pg_catalog.format('register_tool: not registered on %s; the other shards have it',
                                        pg_catalog.array_to_string(failed, ', ')),
            HINT = 'Run agent_state.shard_check(repair => true) to register it there.';
    END IF;
END
$$;

-- ---------------------------------------------------------------- moves and checks

-- Resolves an interrupted move of one agent from what its shards recorded
-- (move_step's states), so that it is live on exactly one shard and the
-- directory names that shard: the source frozen ('out') with a complete,
-- identical copy on the target ('in') rolls forward (the directory switches,
-- the source retires, the target activates); a frozen source without a copy
-- on the target rolls back (the source thaws); a retired source ('gone')
-- whose target holds the copy switches the directory there. Returns what it
-- did, or NULL when nothing was interrupted. SECURITY DEFINER only through
-- _directory_set, which it calls to write the directory.
CREATE FUNCTION agent_state_router._resolve(agent uuid)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    src text;
    src_srv text;
    st jsonb;
    tst jsonb;
    tgt_srv text;
BEGIN
    SELECT d.shard INTO src FROM agent_state_router._directory_entry(agent) AS d;
    IF src IS NULL THEN
        RETURN NULL;
    END IF;
    src_srv := agent_state_router._server_of(src);
    st := agent_state_router._on_move_step(src_srv, agent, 'state', NULL, NULL);
    IF st ->> 'state' NOT IN ('out', 'gone') THEN
        RETURN NULL;
    END IF;
    tgt_srv := agent_state_router._server_of(st ->> 'peer');
    tst := agent_state_router._on_move_step(tgt_srv, agent, 'state', NULL, NULL);
    IF st ->> 'state' = 'out' THEN
        IF tst ->> 'state' = 'in'
           AND agent_state_router._on_move_step(tgt_srv, agent, 'digest', NULL, NULL)
               = agent_state_router._on_move_step(src_srv, agent, 'digest', NULL, NULL) THEN
            PERFORM agent_state_router._directory_set(agent, st ->> 'peer');
            PERFORM agent_state_router._on_move_step(src_srv, agent, 'retire', NULL, NULL);
            PERFORM agent_state_router._on_move_step(tgt_srv, agent, 'activate', NULL, NULL);
            RETURN pg_catalog.format('moved to %s (the interrupted move finished)', st ->> 'peer');
        END IF;
        IF tst ->> 'state' = 'in' THEN
            PERFORM agent_state_router._on_move_step(tgt_srv, agent, 'abort', NULL, NULL);
        END IF;
        PERFORM agent_state_router._on_move_step(src_srv, agent, 'abort', NULL, NULL);
        RETURN pg_catalog.format('stays on %s (the interrupted move was undone)', src);
    END IF;
    -- The source retired: the copy on the target is the agent.
    IF tst ->> 'state' = 'in' THEN
        PERFORM agent_state_router._on_move_step(tgt_srv, agent, 'activate', NULL, NULL);
    END IF;
    PERFORM agent_state_router._directory_set(agent, st ->> 'peer');
    RETURN pg_catalog.format('moved to %s (the directory now says so)', st ->> 'peer');
END
$$;

CREATE FUNCTION agent_state_router._directory_entry(agent uuid)
RETURNS TABLE (shard text, handle text)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d.shard, d.handle FROM agent_state_router.directory AS d WHERE d.agent = _directory_entry.agent
$$;

-- Writes the directory for a move or a repair: operators only.
CREATE FUNCTION agent_state_router._directory_set(agent uuid, shard text, handle text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    old text;
BEGIN
    IF NOT pg_catalog.pg_has_role(agent_state_router._caller(), 'agent_state_operator', 'USAGE') THEN
        RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'router: the directory is written by operators';
    END IF;
    SELECT d.shard INTO old FROM agent_state_router.directory AS d WHERE d.agent = agent FOR UPDATE;
    IF old IS NULL THEN
        INSERT INTO agent_state_router.directory (agent, handle, shard) VALUES (agent, handle, shard);
    ELSIF old IS DISTINCT FROM shard THEN
        UPDATE agent_state_router.directory AS d SET shard = _directory_set.shard, placed_at = pg_catalog.now()
        WHERE d.agent = agent;
        UPDATE agent_state_router.shards AS s SET agents = s.agents - 1 WHERE s.name = old;
    ELSE
        RETURN;
    END IF;
    UPDATE agent_state_router.shards AS s SET agents = s.agents + 1 WHERE s.name = shard;
END
$$;

-- Takes the agent's lock on the router exclusively: waits up to 30 seconds
-- for the routed calls under way to end. The request queues, so calls that
-- arrive meanwhile wait behind it (a try-lock would starve behind a steady
-- stream of calls) and then find the move under way: they wait up to 5
-- seconds, then fail with 55006.
CREATE FUNCTION agent_state_router._lock_for_move(agent uuid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '30s'
AS $$
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock(agent_state_router._lock_key(agent));
EXCEPTION WHEN lock_not_available THEN
    RAISE EXCEPTION USING
        ERRCODE = '55006',
        MESSAGE = pg_catalog.format('agent: calls for agent %s still run after 30 seconds; '
                                    'move it again later', agent);
END
$$;

-- move_agent (SPEC section 15): see docs/scaling.md. Every shard step commits
-- on its own (move_step); this transaction holds the agent's lock on the
-- router, so routed calls for the agent wait and then go to the new shard.
CREATE FUNCTION agent_state.move_agent(agent uuid, shard text)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    src text;
    src_srv text;
    tgt_srv text;
    doc jsonb;
    started timestamptz := pg_catalog.clock_timestamp();
    findings integer;
    resolved text;
    msg text;
    code text;
BEGIN
    PERFORM agent_state_router._need_operator('move_agent');
    IF agent IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'agent: must not be null';
    END IF;
    IF shard IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'shard: must not be null';
    END IF;
    tgt_srv := agent_state_router._server_of(shard);
    PERFORM agent_state_router._lock_for_move(agent);
    resolved := agent_state_router._resolve(agent);
    SELECT d.shard INTO src FROM agent_state_router._directory_entry(agent) AS d;
    IF src IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
    END IF;
    IF src = shard THEN
        RETURN pg_catalog.jsonb_build_object('agent', agent, 'from', src, 'to', shard, 'moved', false,
                                             'resolved', resolved);
    END IF;
    src_srv := agent_state_router._server_of(src);
    PERFORM agent_state_router._on_move_step(src_srv, agent, 'begin', shard, NULL);
    BEGIN
        doc := agent_state_router._on_move_step(src_srv, agent, 'export', NULL, NULL);
        PERFORM agent_state_router._on_move_step(tgt_srv, agent, 'import', src, doc);
        IF agent_state_router._on_move_step(tgt_srv, agent, 'digest', NULL, NULL) ->> 'digest'
           IS DISTINCT FROM doc ->> 'digest' THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = pg_catalog.format('move_agent: the copy of agent %s on %s differs from the source',
                                            agent, shard);
        END IF;
        SELECT pg_catalog.count(*) INTO findings
        FROM agent_state_router._on_verify(tgt_srv, agent, NULL);
        IF findings > 0 THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = pg_catalog.format('move_agent: verify() found %s problems in the copy on %s',
                                            findings, shard);
        END IF;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, code = RETURNED_SQLSTATE;
        -- Undo: the copy moved in (if any) retires, the source thaws.
        BEGIN
            PERFORM agent_state_router._on_move_step(tgt_srv, agent, 'abort', NULL, NULL)
            WHERE agent_state_router._on_move_step(tgt_srv, agent, 'state', NULL, NULL) ->> 'state' = 'in';
        EXCEPTION WHEN OTHERS THEN
            NULL;
        END;
        PERFORM agent_state_router._on_move_step(src_srv, agent, 'abort', NULL, NULL);
        RAISE EXCEPTION USING ERRCODE = code, MESSAGE = msg,
            HINT = pg_catalog.format('The move was undone: agent %s stays on %s.', agent, src);
    END;
    PERFORM agent_state_router._directory_set(agent, shard);
    PERFORM agent_state_router._on_move_step(src_srv, agent, 'retire', NULL, NULL);
    PERFORM agent_state_router._on_move_step(tgt_srv, agent, 'activate', NULL, NULL);
    RETURN pg_catalog.jsonb_build_object(
        'agent', agent, 'from', src, 'to', shard, 'moved', true, 'resolved', resolved,
        'rows', (SELECT pg_catalog.sum(pg_catalog.jsonb_array_length(v))
                 FROM pg_catalog.jsonb_each(doc -> 'tables') AS t (k, v)),
        'seconds', pg_catalog.round(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - started)::numeric, 3));
END
$$;

COMMENT ON FUNCTION agent_state.move_agent(uuid, text) IS
'move_agent(agent, shard) -> jsonb (router, operator): moves an agent to another shard: freezes '
'it on its shard, exports, imports on the target, compares digests and runs verify() there, '
'switches the directory and retires the source copy. Calls for the agent meanwhile wait, then '
'fail with 55006 (retry). Any failure undoes the move (the agent stays where it was).';

-- shard_check (SPEC section 15: the router reports and repairs shards that
-- disagree): the tool registrations of every shard against each other, the
-- directory against the agents the shards hold, moves left unfinished, and
-- user mappings that would make every caller one role. With repair, a tool
-- registration missing on a shard is registered there (in revision order),
-- an agent a shard holds that the directory lacks is entered, and an
-- interrupted move is resolved (_resolve).
CREATE FUNCTION agent_state.shard_check(repair boolean DEFAULT false)
RETURNS TABLE (shard text, problem text, object text, detail text, repaired boolean)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    s record;
    inv jsonb := '{}';
    t record;
    a record;
    done text;
BEGIN
    PERFORM agent_state_router._need_operator('shard_check');
    inv := agent_state.shard_inventory();
    -- User mappings that fix a user (or password): every caller one role.
    FOR t IN
        SELECT srv.srvname::text AS server, x.name AS sname
        FROM agent_state_router._servers() AS x
        JOIN pg_catalog.pg_foreign_server AS srv ON srv.srvname = x.server
        JOIN pg_catalog.pg_user_mappings AS um ON um.srvid = srv.oid
        WHERE agent_state_router._dsn_names_user(pg_catalog.array_to_string(um.umoptions, ' '))
           OR agent_state_router._dsn_names_user(pg_catalog.array_to_string(srv.srvoptions, ' '))
    LOOP
        shard := t.sname; problem := 'fixed_user'; object := t.server;
        detail := 'a user mapping or the server names a user: every caller would reach the shard as one role';
        repaired := false;
        RETURN NEXT;
    END LOOP;
    -- Tools: every registration any shard has, on every shard.
    FOR t IN
        WITH regs AS (
            SELECT k AS sname, r ->> 'name' AS name, (r ->> 'revision')::integer AS revision,
                   r ->> 'version' AS version, r -> 'config_schema' AS config_schema
            FROM pg_catalog.jsonb_each(inv) AS e (k, v), pg_catalog.jsonb_array_elements(v -> 'tools') AS r
        ), wanted AS (
            SELECT DISTINCT ON (name, revision) name, revision, version, config_schema
            FROM regs ORDER BY name, revision, sname
        )
        SELECT x.name AS sname, x.server, w.*,
               EXISTS (SELECT FROM regs AS g WHERE g.sname = x.name AND g.name = w.name
                       AND g.revision = w.revision AND g.version = w.version
                       AND g.config_schema = w.config_schema) AS same,
               EXISTS (SELECT FROM regs AS g WHERE g.sname = x.name AND g.name = w.name
                       AND g.revision = w.revision) AS has_revision
        FROM agent_state_router._servers() AS x CROSS JOIN wanted AS w
        ORDER BY x.name, w.name, w.revision
    LOOP
        CONTINUE WHEN t.same;
        shard := t.sname; object := pg_catalog.format('%s revision %s', t.name, t.revision);
        repaired := false;
        IF t.has_revision THEN
            problem := 'tool_conflict';
            detail := 'this shard registered another contract under that revision';
        ELSE
            problem := 'tool_missing';
            detail := pg_catalog.format('version %s is not registered on this shard', t.version);
            IF repair THEN
                PERFORM agent_state_router._on_register_tool(t.server, t.name, t.version, t.config_schema);
                repaired := true;
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
    -- Agents: the directory against the shards.
    FOR a IN
        SELECT e.k AS sname, (r ->> 'agent')::uuid AS agent, r ->> 'handle' AS handle, r ->> 'state' AS state,
               d.shard AS dir_shard
        FROM pg_catalog.jsonb_each(inv) AS e (k, v)
        CROSS JOIN pg_catalog.jsonb_array_elements(v -> 'agents') AS r
        LEFT JOIN agent_state_router._directory_entry((r ->> 'agent')::uuid) AS d ON true
        WHERE r ->> 'state' <> 'gone' AND d.shard IS DISTINCT FROM e.k OR r ->> 'state' IN ('out', 'in')
        ORDER BY 1, 2
    LOOP
        shard := a.sname; object := a.agent::text; repaired := false;
        IF a.state IN ('out', 'in') THEN
            problem := 'move_unfinished';
            detail := pg_catalog.format('agent %s is %s here; the directory says %s', a.handle, a.state, a.dir_shard);
            IF repair AND a.state = 'out' THEN
                PERFORM agent_state_router._lock_for_move(a.agent);
                done := agent_state_router._resolve(a.agent);
                detail := detail || ': ' || coalesce(done, 'nothing to do');
                repaired := done IS NOT NULL;
            ELSIF repair THEN
                -- A copy moved in ('in'): settled with its source's row when the
                -- source is frozen or retired; an orphan (the source is live again,
                -- its move undone without reaching this shard) is retired here.
                PERFORM agent_state_router._lock_for_move(a.agent);
                IF agent_state_router._on_move_step(agent_state_router._server_of(a.sname), a.agent,
                                                    'state', NULL, NULL) ->> 'state' <> 'in' THEN
                    detail := detail || ': settled with the move';
                    repaired := true;
                ELSIF a.dir_shard IS NOT NULL
                      AND agent_state_router._on_move_step(agent_state_router._server_of(a.dir_shard), a.agent,
                                                           'state', NULL, NULL) ->> 'state' = 'live' THEN
                    PERFORM agent_state_router._on_move_step(agent_state_router._server_of(a.sname), a.agent,
                                                             'abort', NULL, NULL);
                    detail := pg_catalog.format('%s: this copy was retired (the agent is live on %s)',
                                                detail, a.dir_shard);
                    repaired := true;
                ELSE
                    done := agent_state_router._resolve(a.agent);
                    detail := detail || ': ' || coalesce(done, 'nothing to do');
                    repaired := done IS NOT NULL;
                END IF;
            END IF;
        ELSIF a.dir_shard IS NULL THEN
            problem := 'not_in_directory';
            detail := pg_catalog.format('agent %s is on this shard but not in the directory', a.handle);
            IF repair THEN
                -- One repair that fails (its handle is another agent's in the
                -- directory: 23505) is reported, and the others still run.
                BEGIN
                    PERFORM agent_state_router._directory_set(a.agent, a.sname, a.handle);
                    repaired := true;
                EXCEPTION WHEN OTHERS THEN
                    detail := pg_catalog.format('%s: not entered: [%s] %s', detail, SQLSTATE, SQLERRM);
                END;
            END IF;
        ELSE
            problem := 'live_elsewhere';
            detail := pg_catalog.format('agent %s is live here too; the directory says %s', a.handle, a.dir_shard);
        END IF;
        RETURN NEXT;
    END LOOP;
    -- Directory entries whose shard does not hold the agent live.
    FOR a IN
        SELECT d.agent, d.shard AS sname,
               (SELECT r ->> 'state' FROM pg_catalog.jsonb_array_elements(inv -> d.shard -> 'agents') AS r
                WHERE (r ->> 'agent')::uuid = d.agent) AS state
        FROM agent_state_router._directory_all() AS d
    LOOP
        CONTINUE WHEN a.state IN ('live', 'out', 'in');
        shard := a.sname; object := a.agent::text; repaired := false;
        problem := CASE WHEN a.state = 'gone' THEN 'move_unfinished' ELSE 'missing_on_shard' END;
        detail := CASE WHEN a.state = 'gone' THEN 'the directory names a retired copy'
                       ELSE 'the directory names this shard, which does not hold the agent' END;
        IF repair AND a.state = 'gone' THEN
            PERFORM agent_state_router._lock_for_move(a.agent);
            done := agent_state_router._resolve(a.agent);
            detail := detail || ': ' || coalesce(done, 'nothing to do');
            repaired := done IS NOT NULL;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

COMMENT ON FUNCTION agent_state.shard_check(boolean) IS
'shard_check(repair => false) -> table(shard, problem, object, detail, repaired) (router, '
'operator): what the shards disagree on: tool registrations (tool_missing, tool_conflict), the '
'directory against the agents they hold (not_in_directory, missing_on_shard, live_elsewhere), '
'moves left unfinished (move_unfinished) and user mappings that fix a user (fixed_user). With '
'repair: registers missing tools, enters missing agents, finishes or undoes interrupted moves.';

CREATE FUNCTION agent_state_router._directory_all()
RETURNS TABLE (agent uuid, shard text)
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d.agent, d.shard FROM agent_state_router.directory AS d ORDER BY d.agent
$$;
