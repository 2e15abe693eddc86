-- Catalog: what a fresh install must look like, checked generically so that
-- tables and functions added later are covered too.
BEGIN;
SELECT plan(63);

-- ---------------------------------------------------------------- packaging
SELECT has_extension('agent_state', 'extension agent_state is installed');
SELECT is(
    (SELECT e.extversion FROM pg_catalog.pg_extension AS e WHERE e.extname = 'agent_state'),
    (SELECT a.default_version FROM pg_catalog.pg_available_extensions AS a WHERE a.name = 'agent_state'),
    'installed extension version is the control file''s default_version');
SELECT matches(agent_state.version(), '^[0-9]+\.[0-9]+\.[0-9]+$', 'version() returns a release number');
SELECT is(
    agent_state.version(),
    (SELECT e.extversion FROM pg_catalog.pg_extension AS e WHERE e.extname = 'agent_state'),
    'version() matches the installed extension version');
SELECT has_schema('agent_state', 'schema agent_state exists');
SELECT is_empty($$
    SELECT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
    FROM pg_catalog.pg_depend AS d
    JOIN pg_catalog.pg_extension AS e ON e.oid = d.refobjid
    LEFT JOIN pg_catalog.pg_class AS c ON d.classid = 'pg_catalog.pg_class'::regclass AND c.oid = d.objid
    LEFT JOIN pg_catalog.pg_proc AS p ON d.classid = 'pg_catalog.pg_proc'::regclass AND p.oid = d.objid
    LEFT JOIN pg_catalog.pg_type AS t ON d.classid = 'pg_catalog.pg_type'::regclass AND t.oid = d.objid
    WHERE e.extname = 'agent_state' AND d.refclassid = 'pg_catalog.pg_extension'::regclass
      AND d.deptype = 'e'
      AND coalesce(c.relnamespace, p.pronamespace, t.typnamespace) IS DISTINCT FROM 'agent_state'::regnamespace
      AND coalesce(c.oid, p.oid, t.oid) IS NOT NULL
$$, 'every table, function and type of the extension lives in schema agent_state');
SELECT ok(
    EXISTS (SELECT FROM pg_catalog.pg_proc AS p
            WHERE p.pronamespace = 'agent_state'::regnamespace AND p.proname = 'version')
    AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc AS p
                    WHERE p.pronamespace = 'public'::regnamespace AND p.proname = 'create_agent'),
    'the API is in agent_state, nothing leaked into public');

-- ---------------------------------------------------------------- roles
SELECT has_role('agent_state_operator', 'role agent_state_operator exists');
SELECT has_role('agent_state_runtime', 'role agent_state_runtime exists');
SELECT is_empty($$
    SELECT r.rolname FROM pg_catalog.pg_roles AS r
    WHERE r.rolname IN ('agent_state_operator', 'agent_state_runtime')
      AND (r.rolcanlogin OR r.rolsuper OR r.rolbypassrls OR r.rolcreaterole OR r.rolcreatedb)
$$, 'group roles are NOLOGIN, not superuser, do not bypass RLS, cannot create roles or databases');
SELECT ok(
    NOT pg_catalog.pg_has_role('agent_state_runtime', 'agent_state_operator', 'MEMBER')
    AND NOT pg_catalog.pg_has_role('agent_state_operator', 'agent_state_runtime', 'MEMBER'),
    'neither group role is a member of the other');
SELECT ok(
    NOT pg_catalog.pg_has_role('agent_state_runtime',
        (SELECT n.nspowner FROM pg_catalog.pg_namespace AS n WHERE n.nspname = 'agent_state'), 'MEMBER')
    AND NOT pg_catalog.pg_has_role('agent_state_operator',
        (SELECT n.nspowner FROM pg_catalog.pg_namespace AS n WHERE n.nspname = 'agent_state'), 'MEMBER'),
    'neither group role can become the owner of the schema');

SELECT is_empty($$
    SELECT a.grantee::regrole::text || ' ' || a.privilege_type
    FROM pg_catalog.pg_namespace AS n, pg_catalog.aclexplode(n.nspacl) AS a
    WHERE n.nspname = 'agent_state' AND a.grantee <> n.nspowner
      AND (a.privilege_type = 'CREATE' OR a.grantee = 0)
$$, 'nobody but the owner may create objects in agent_state, and PUBLIC has no access to it');
SELECT ok(
    pg_catalog.has_schema_privilege('agent_state_runtime', 'agent_state', 'USAGE')
    AND pg_catalog.has_schema_privilege('agent_state_operator', 'agent_state', 'USAGE')
    AND NOT pg_catalog.has_schema_privilege('agent_state_runtime', 'agent_state', 'CREATE')
    AND NOT pg_catalog.has_schema_privilege('agent_state_operator', 'agent_state', 'CREATE'),
    'both group roles may use the schema, neither may create in it');

-- ---------------------------------------------------------------- tables
SELECT has_table('agent_state', t, 'table agent_state.' || t || ' exists')
FROM pg_catalog.unnest(ARRAY['agents', 'agent_hosts', 'actors', 'actor_identities',
    'conversations', 'messages', 'persona_revisions', 'persona_activations']) AS t;
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND NOT (c.relrowsecurity AND c.relforcerowsecurity)
$$, 'every table in agent_state has row-level security enabled and forced');
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_attribute AS a
      ON a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND NOT EXISTS (
          SELECT FROM pg_catalog.pg_policy AS p
          WHERE p.polrelid = c.oid AND p.polname = 'agent_scope' AND p.polpermissive
            AND p.polcmd = '*' AND p.polroles = '{0}'
            AND pg_catalog.pg_get_expr(p.polqual, p.polrelid) LIKE '%agent_state._hosted_agents()%'
            AND pg_catalog.pg_get_expr(p.polqual, p.polrelid) LIKE '%runtime_agent_id%')
$$, 'every table with runtime_agent_id has the agent_scope policy for all commands and roles');
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_attribute AS a
      ON a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND NOT EXISTS (
          SELECT FROM pg_catalog.pg_constraint AS k
          WHERE k.conrelid = c.oid AND k.contype = 'p' AND k.conkey[1] = a.attnum)
$$, 'every table with runtime_agent_id has it as the first primary key column');
SELECT is_empty($$
    SELECT p.polrelid::regclass::text || '.' || p.polname
    FROM pg_catalog.pg_policy AS p
    JOIN pg_catalog.pg_class AS c ON c.oid = p.polrelid
    WHERE c.relnamespace = 'agent_state'::regnamespace AND p.polpermissive
      AND p.polname <> 'agent_scope'
      AND (p.polroles && ARRAY[0::oid, 'agent_state_runtime'::regrole::oid,
                               'agent_state_operator'::regrole::oid]
           OR p.polroles <> ARRAY[c.relowner])
$$, 'besides agent_scope, permissive policies exist only for the table owner');
SELECT is_empty($$
    SELECT c.relname || ': ' || a.grantee::regrole::text || ' ' || a.privilege_type
    FROM pg_catalog.pg_class AS c, pg_catalog.aclexplode(c.relacl) AS a
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
      AND a.grantee <> c.relowner
$$, 'no table, view or sequence has privileges for anyone but its owner (clients use functions)');
SELECT is_empty($$
    SELECT k.conrelid::regclass::text || '.' || k.conname
    FROM pg_catalog.pg_constraint AS k
    JOIN pg_catalog.pg_attribute AS a
      ON a.attrelid = k.conrelid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped
    JOIN pg_catalog.pg_attribute AS fa
      ON fa.attrelid = k.confrelid AND fa.attname = 'runtime_agent_id' AND NOT fa.attisdropped
    WHERE k.contype = 'f'
      AND k.connamespace = 'agent_state'::regnamespace
      AND NOT EXISTS (
          SELECT FROM pg_catalog.generate_subscripts(k.conkey, 1) AS i
          WHERE k.conkey[i] = a.attnum AND k.confkey[i] = fa.attnum)
$$, 'every foreign key between agent-owned tables maps runtime_agent_id to runtime_agent_id');
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute AS a
           WHERE a.attrelid = c.oid AND a.attname IN ('created_at', 'created_by')
             AND NOT a.attisdropped) = 2
      AND NOT EXISTS (
          SELECT FROM pg_catalog.pg_trigger AS g
          WHERE g.tgrelid = c.oid AND g.tgname = 'stamp_created' AND g.tgenabled = 'O'
            AND g.tgfoid = 'agent_state._tg_stamp_created()'::regprocedure)
$$, 'every table with created_at and created_by has the enabled stamp_created trigger');
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND NOT EXISTS (
          SELECT FROM pg_catalog.pg_trigger AS g
          WHERE g.tgrelid = c.oid AND g.tgenabled = 'O' AND g.tgtype & 32 = 32
            AND g.tgfoid = 'agent_state._tg_operator_truncate_only()'::regprocedure)
$$, 'every table refuses TRUNCATE (which ignores RLS) to non-operators');
SELECT is_empty($$
    SELECT t FROM pg_catalog.unnest(ARRAY['actors', 'actor_identities', 'conversations',
        'messages', 'persona_revisions', 'persona_activations']) AS t
    WHERE NOT EXISTS (
        SELECT FROM pg_catalog.pg_trigger AS g
        WHERE g.tgrelid = ('agent_state.' || t)::regclass
          AND g.tgfoid = 'agent_state._tg_refuse_change()'::regprocedure AND g.tgenabled = 'O'
          AND g.tgtype & 2 = 2            -- BEFORE
          AND g.tgtype & (8 | 16) = 24)   -- DELETE and UPDATE
       OR NOT EXISTS (
        SELECT FROM pg_catalog.pg_trigger AS g
        WHERE g.tgrelid = ('agent_state.' || t)::regclass
          AND g.tgfoid = 'agent_state._tg_refuse_change()'::regprocedure AND g.tgenabled = 'O'
          AND g.tgtype & 32 = 32)         -- TRUNCATE
$$, 'foundation history tables refuse UPDATE, DELETE and TRUNCATE by trigger');
SELECT is(
    (SELECT g.tgargs FROM pg_catalog.pg_trigger AS g
     WHERE g.tgrelid = 'agent_state.persona_revisions'::regclass
       AND g.tgfoid = 'agent_state._tg_refuse_change()'::regprocedure AND g.tgtype & 16 = 16),
    pg_catalog.convert_to('is_active', 'SQL_ASCII') || '\x00'::bytea,
    'persona_revisions may change is_active only');
SELECT ok(
    (SELECT i.indisunique AND pg_catalog.pg_get_expr(i.indpred, i.indrelid) = 'is_active'
     FROM pg_catalog.pg_index AS i
     WHERE i.indexrelid = 'agent_state.persona_revisions_one_active'::regclass),
    'partial unique index: at most one active persona revision per agent');

-- ---------------------------------------------------------------- functions
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace AND p.prosecdef
      AND NOT EXISTS (
          SELECT FROM pg_catalog.unnest(p.proconfig) AS cfg
          WHERE cfg ~ '^search_path=pg_catalog(, *agent_state)?, *pg_temp$')
$$, 'every SECURITY DEFINER function pins search_path to pg_catalog ... pg_temp');
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace
      AND (p.proacl IS NULL OR EXISTS (
          SELECT FROM pg_catalog.aclexplode(p.proacl) AS a
          WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE'))
$$, 'no function in agent_state is executable by PUBLIC');
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace
      AND p.proname NOT LIKE '\_%' AND p.proname <> 'version' AND NOT p.prosecdef
$$, 'every public function except version() is SECURITY DEFINER');
SELECT is_definer('agent_state', f, 'agent_state.' || f || ' is SECURITY DEFINER')
FROM pg_catalog.unnest(ARRAY['create_agent', 'grant_hosting', 'revoke_hosting',
    'resolve_actor', 'link_identity', 'open_conversation', 'record_message',
    'revise_persona', 'activate_persona', 'active_persona', 'persona_history']) AS f;
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace
      AND p.proname IN ('create_agent', 'grant_hosting', 'revoke_hosting',
                        'revise_persona', 'activate_persona')
      AND (pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')
           OR NOT pg_catalog.has_function_privilege('agent_state_operator', p.oid, 'EXECUTE'))
$$, 'operator-only foundation functions: operators may execute them, runtimes may not');
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace
      AND p.proname IN ('version', 'resolve_actor', 'link_identity', 'open_conversation',
                        'record_message', 'active_persona', 'persona_history')
      AND NOT (pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')
               AND pg_catalog.has_function_privilege('agent_state_operator', p.oid, 'EXECUTE'))
$$, 'runtime foundation functions are executable by both group roles');
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace
      AND p.proname LIKE '\_%'
      AND p.proname NOT IN ('_caller', '_caller_is_operator', '_hosted_agents', '_restoring',
                            '_own_write', '_copying')
      AND (pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')
           OR pg_catalog.has_function_privilege('agent_state_operator', p.oid, 'EXECUTE'))
$$, 'internal helpers are not executable by clients (only the RLS policy and trigger WHEN helpers are)');
SELECT is_empty($$
    SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc AS p
    WHERE p.pronamespace = 'agent_state'::regnamespace
      AND p.proname NOT LIKE '\_%'
      AND coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '') = ''
$$, 'every public function has a COMMENT');

-- Parameter names, defaults and results are the public contract.
SELECT is(
    pg_catalog.pg_get_function_arguments(s::regprocedure) || ' -> '
        || pg_catalog.pg_get_function_result(s::regprocedure),
    want, s || ' signature')
FROM (VALUES
    ('agent_state.create_agent(text,text,jsonb)',
     'handle text, display_name text DEFAULT NULL::text, settings jsonb DEFAULT ''{}''::jsonb -> uuid'),
    ('agent_state.grant_hosting(uuid,regrole)', 'agent uuid, host regrole -> void'),
    ('agent_state.revoke_hosting(uuid,regrole)', 'agent uuid, host regrole -> void'),
    ('agent_state.resolve_actor(uuid,text,text,text,text)',
     'agent uuid, connector text, external_id text, display_name text DEFAULT NULL::text, '
     'kind text DEFAULT ''human''::text -> uuid'),
    ('agent_state.link_identity(uuid,uuid,text,text)',
     'agent uuid, actor uuid, connector text, external_id text -> void'),
    ('agent_state.open_conversation(uuid,text,text,text)',
     'agent uuid, connector text, external_ref text, kind text DEFAULT ''group''::text -> uuid'),
    ('agent_state.record_message(uuid,uuid,uuid,text,uuid[],text,timestamptz)',
     'agent uuid, conversation uuid, author uuid, body text, audience uuid[] DEFAULT NULL::uuid[], '
     'external_ref text DEFAULT NULL::text, observed_at timestamp with time zone DEFAULT now() -> uuid'),
    ('agent_state.revise_persona(uuid,text,boolean)',
     'agent uuid, body text, activate boolean DEFAULT true -> integer'),
    ('agent_state.activate_persona(uuid,integer)', 'agent uuid, revision integer -> void'),
    ('agent_state.active_persona(uuid,timestamptz)',
     'agent uuid, as_of timestamp with time zone DEFAULT NULL::timestamp with time zone -> '
     'TABLE(revision integer, body text, activated_at timestamp with time zone)'),
    ('agent_state.persona_history(uuid)',
     'agent uuid -> TABLE(revision integer, body text, created_at timestamp with time zone, '
     'created_by text, is_active boolean)'),
    ('agent_state.version()', ' -> text')
) AS v (s, want);

SELECT * FROM finish();
ROLLBACK;
