CREATE FUNCTION agent_state.grant_hosting(agent uuid, host regrole)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
