-- Agents and hosting (operators only).

-- Checks the documented agent settings; unknown keys are kept for runtimes.
CREATE FUNCTION agent_state._check_settings(settings jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    boost double precision;
    half_life interval;
BEGIN
    IF settings IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'settings: must not be null';
    END IF;
    IF pg_catalog.jsonb_typeof(settings) <> 'object' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'settings: must be a JSON object';
    END IF;
    -- Recall multiplies by 1 + subject_boost in double precision: the value must
    -- convert (1e400 and 1e-400 do not) and stay in the documented range.
    IF settings ? 'subject_boost' THEN
        IF pg_catalog.jsonb_typeof(settings -> 'subject_boost') = 'number' THEN
            BEGIN
                boost := (settings ->> 'subject_boost')::double precision;
            EXCEPTION WHEN numeric_value_out_of_range THEN
                boost := NULL;
            END;
        END IF;
        IF boost IS NULL OR NOT boost BETWEEN 0 AND 1000000 THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'settings.subject_boost: must be a number from 0 to 1000000';
        END IF;
    END IF;
    IF settings ? 'recency_half_life' THEN
        IF pg_catalog.jsonb_typeof(settings -> 'recency_half_life') = 'string' THEN
            BEGIN
                half_life := (settings ->> 'recency_half_life')::interval;
            EXCEPTION WHEN data_exception THEN
                half_life := NULL;
            END;
        END IF;
        IF half_life IS NULL OR half_life <= interval '0'
            OR NOT pg_catalog.date_part('epoch', half_life) > 0 THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'settings.recency_half_life: must be a positive interval such as ''30 days''';
        END IF;
    END IF;
END
$$;

CREATE FUNCTION agent_state.create_agent(
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

CREATE FUNCTION agent_state.grant_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(host, 'host');
    -- regrole input from an oid is not checked: a stale oid would grant nothing.
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS r WHERE r.oid = host) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('host: no role with oid %s', host::oid);
    END IF;
    INSERT INTO agent_state.agent_hosts (runtime_agent_id, host, host_name)
    SELECT agent, host, r.rolname FROM pg_catalog.pg_roles AS r WHERE r.oid = host
    ON CONFLICT ON CONSTRAINT agent_hosts_pkey DO NOTHING;
END
$$;

COMMENT ON FUNCTION agent_state.grant_hosting(uuid, regrole) IS
'grant_hosting(agent, host) (operator): role host (and its members) may act for agent. '
'Granting twice is a no-op. A host role that does not exist raises 22023.';

CREATE FUNCTION agent_state.revoke_hosting(agent uuid, host regrole)
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
'next statement on. Revoking a grant that does not exist is a no-op.';
