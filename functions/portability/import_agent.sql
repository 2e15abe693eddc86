-- Loads a document that export_agent wrote into this database (SPEC section
-- 15): the agent with its id, handle and stamps, its hosting grants (by role
-- name) and every row of every table it owns, ids, numbers and stamps kept.
-- Refused, with nothing written: a document null (22004); not a faithful export
-- of this version (another format or version, a digest that does not match, a
-- table or column it does not know, a row the tables refuse: 22023); an agent whose id or handle exists
-- here (23505); a hosting role missing here (42704); a tool or tool revision
-- the grants name that is not registered here (P0002). The rows are written by
-- the extension's own code with the copy flag set, so they keep their stamps
-- and numbers (_copying), table by table in foreign-key order; the commit-time
-- checks (persona, redactions) still run.
CREATE FUNCTION agent_state.import_agent(document jsonb)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    agent uuid;
    handle text;
    flag text := pg_catalog.current_setting('agent_state.copying', true);
    t record;
    missing text;
    known text [];
    current text;
    refused text;
BEGIN
    PERFORM agent_state._need_operator();
    PERFORM agent_state._need_json(document, 'document', ARRAY['object']);
    IF document ->> 'format' IS DISTINCT FROM 'agent_state.agent' THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'document: not an agent_state agent document (format)';
    END IF;
    IF document ->> 'version' IS DISTINCT FROM agent_state.version() THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('document: written by agent_state %s, this is %s: export it again '
                                        'after upgrading the source',
                                        agent_state._quote_prefix(document ->> 'version'), agent_state.version());
    END IF;
    IF document ->> 'digest' IS DISTINCT FROM agent_state._agent_document_digest(document) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'document: its digest does not match its content: not a faithful export';
    END IF;
    SELECT pg_catalog.array_agg(a.name) INTO known FROM agent_state._agent_tables() AS a;
    SELECT k INTO missing
    FROM pg_catalog.jsonb_object_keys(document -> 'tables') AS k
    WHERE k <> ALL (known)
    LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('document: unknown table %s', agent_state._quote_prefix(missing));
    END IF;

    handle := document -> 'agent' ->> 'handle';
    BEGIN
        agent := (document -> 'agent' ->> 'id')::uuid;
    EXCEPTION WHEN invalid_text_representation THEN
        NULL;
    END;
    IF agent IS NULL OR handle IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'document: its agent has no valid id or handle';
    END IF;
    IF EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505', MESSAGE = pg_catalog.format('document: agent %s exists in this database', agent);
    END IF;
    IF EXISTS (SELECT FROM agent_state.agents AS a WHERE a.handle = handle) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505',
            MESSAGE = pg_catalog.format('document: an agent with handle %s exists in this database',
                                        agent_state._quote_prefix(handle));
    END IF;
    SELECT h ->> 'host' INTO missing
    FROM pg_catalog.jsonb_array_elements(document -> 'hosting') AS h
    WHERE pg_catalog.to_regrole(pg_catalog.quote_ident(h ->> 'host')) IS NULL
    LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '42704',
            MESSAGE = pg_catalog.format('document: hosting role %s does not exist in this database',
                                        agent_state._quote_prefix(missing));
    END IF;
    SELECT pg_catalog.format('%s (revision %s)', agent_state._quote_prefix(g ->> 'tool_name'), g ->> 'tool_revision')
    INTO missing
    FROM pg_catalog.jsonb_array_elements(document -> 'tables' -> 'tool_grants') AS g
    WHERE NOT EXISTS (
        SELECT FROM agent_state.tool_versions AS v
        WHERE v.tool_name = g ->> 'tool_name' AND v.revision = (g ->> 'tool_revision')::integer)
    ORDER BY g ->> 'tool_name', (g ->> 'tool_revision')::integer
    LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('document: tool %s is not registered in this database', missing);
    END IF;

    -- Every key of every row must be a column of its table.
    FOR t IN SELECT * FROM agent_state._agent_tables() ORDER BY ord LOOP
        SELECT k INTO missing
        FROM pg_catalog.jsonb_array_elements(coalesce(document -> 'tables' -> t.name, '[]')) AS r,
             pg_catalog.jsonb_object_keys(r) AS k
        WHERE k <> ALL (t.cols) OR k = 'runtime_agent_id'
        LIMIT 1;
        IF missing IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format('document: %s has no column %s', t.name,
                                            agent_state._quote_prefix(missing));
        END IF;
    END LOOP;

    -- A row the database refuses (a value of the wrong type, a missing one, a
    -- broken reference) is a document that is not a faithful export: 22023,
    -- naming the table (the database's message cut to 300 characters), and
    -- nothing written.
    BEGIN
        PERFORM pg_catalog.set_config('agent_state.copying', 'on', true);
        -- The rows keep the chain stamps they carry (_chain_keeps_stamps).
        PERFORM pg_catalog.set_config('agent_state.copy_stamps', 'keep', true);
        current := 'agents';
        INSERT INTO agent_state.agents (runtime_agent_id, handle, created_at, created_by)
        VALUES (agent, handle, (document -> 'agent' ->> 'created_at')::timestamptz,
                (document -> 'agent' ->> 'created_by')::name);
        current := 'agent_hosts';
        INSERT INTO agent_state.agent_hosts (runtime_agent_id, host, host_name, created_at, created_by)
        SELECT agent, pg_catalog.quote_ident(h ->> 'host')::regrole, (h ->> 'host')::name,
               (h ->> 'created_at')::timestamptz, (h ->> 'created_by')::name
        FROM pg_catalog.jsonb_array_elements(document -> 'hosting') AS h;
        FOR t IN SELECT * FROM agent_state._agent_tables() ORDER BY ord LOOP
            current := t.name;
            CONTINUE WHEN pg_catalog.jsonb_array_length(coalesce(document -> 'tables' -> t.name, '[]')) = 0;
            EXECUTE pg_catalog.format(
                'INSERT INTO %s (%s) SELECT %s FROM pg_catalog.jsonb_populate_recordset(NULL::%s, $2) AS r',
                t.tbl,
                (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(c), ', ')
                 FROM pg_catalog.unnest(t.cols) AS c),
                (SELECT pg_catalog.string_agg(
                            CASE WHEN c = 'runtime_agent_id' THEN '$1' ELSE 'r.' || pg_catalog.quote_ident(c) END,
                            ', ')
                 FROM pg_catalog.unnest(t.cols) AS c),
                t.tbl)
            USING agent, document -> 'tables' -> t.name;
        END LOOP;
        PERFORM pg_catalog.set_config('agent_state.copying', coalesce(flag, ''), true);
        PERFORM pg_catalog.set_config('agent_state.copy_stamps', '', true);
    EXCEPTION WHEN data_exception OR integrity_constraint_violation THEN
        GET STACKED DIAGNOSTICS missing = MESSAGE_TEXT, refused = RETURNED_SQLSTATE;
        IF current = 'agents' AND refused = '23505' THEN
            -- Written by a concurrent import or create_agent since the check above.
            RAISE EXCEPTION USING
                ERRCODE = '23505',
                MESSAGE = pg_catalog.format('document: agent %s or its handle exists in this database', agent);
        END IF;
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('document: %s: not a faithful export (%s)', current,
                                        pg_catalog.left(missing, 300));
    END;
    RETURN agent;
END
$$;

COMMENT ON FUNCTION agent_state.import_agent(jsonb) IS
'import_agent(document) -> uuid (operator): loads a document export_agent wrote, keeping ids, '
'revision numbers and stamps, and restores its hosting grants by role name. Nothing is written '
'on any error: document null 22004; not a faithful export of this version (format, version, '
'digest, unknown table or column) 22023; the agent''s id or handle exists here 23505; a '
'hosting role missing here 42704 (naming it); a tool the grants name not registered here P0002 '
'(naming it).';
