-- An agent with persona revisions has exactly one active revision, and it is
-- the one its activation log names last. Direct DML cannot leave the flag and the
-- log disagreeing. Run at commit and by verify().
CREATE FUNCTION agent_state._check_persona(agent uuid)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
