CREATE FUNCTION agent_state.revise_profile(
    agent uuid,
    display_name text DEFAULT NULL,
    settings jsonb DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    cur record;
BEGIN
    PERFORM agent_state._bind(agent, true);
    IF display_name IS NOT NULL THEN
        PERFORM agent_state._need_text(display_name, 'display_name', 1000);
    END IF;
    IF settings IS NOT NULL THEN
        PERFORM agent_state._json_within(settings, 'settings', 1000000);
        PERFORM agent_state._check_settings(settings);
    END IF;
    PERFORM agent_state._lock_agent(agent);
    SELECT p.revision, p.display_name, p.settings INTO cur
    FROM agent_state._profile_at(agent, NULL) AS p;
    -- Under REPEATABLE READ the newest revision above comes from an older
    -- snapshot: ON CONFLICT then raises 40001 (retry) instead of 23505.
    INSERT INTO agent_state.profile_revisions AS p (runtime_agent_id, revision, display_name, settings)
    VALUES (agent, coalesce(cur.revision, 0) + 1,
            coalesce(display_name, cur.display_name), coalesce(settings, cur.settings, '{}'))
    ON CONFLICT ON CONSTRAINT profile_revisions_pkey DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('revision: profile revision %s was written concurrently',
                                        coalesce(cur.revision, 0) + 1),
            HINT = 'Retry the transaction.';
    END IF;
    RETURN coalesce(cur.revision, 0) + 1;
END
$$;

COMMENT ON FUNCTION agent_state.revise_profile(uuid, text, jsonb) IS
'revise_profile(agent, display_name => null, settings => null) -> int (operator): writes '
'profile revision n+1; null keeps the current value. display_name 1-1000 characters; '
'settings are validated as in create_agent (22023). create_agent wrote revision 1.';
