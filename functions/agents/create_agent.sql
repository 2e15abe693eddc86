CREATE FUNCTION agent_state.create_agent(
    handle text,
    display_name text DEFAULT NULL,
    settings jsonb DEFAULT '{}'
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    new_id uuid;
BEGIN
    PERFORM agent_state._json_within(settings, 'settings', 1000000);
    PERFORM agent_state._need_operator();
    PERFORM agent_state._need_text(handle, 'handle', 200);
    IF display_name IS NOT NULL THEN
        PERFORM agent_state._need_text(display_name, 'display_name', 1000);
    END IF;
    PERFORM agent_state._check_settings(settings);
    new_id := agent_state._insert_agent(handle);
    -- The profile is versioned (profile_revisions): this is revision 1.
    INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, display_name, settings)
    VALUES (new_id, 1, display_name, settings);
    RETURN new_id;
END
$$;

COMMENT ON FUNCTION agent_state.create_agent(text, text, jsonb) IS
'create_agent(handle, display_name => null, settings => ''{}'') -> uuid (operator). '
'handle (1-200 characters) is unique (23505); display_name, when given, 1-1000 characters. '
'settings: subject_boost (number from 0 to 1000000, default 1.0), recency_half_life '
'(positive interval text, default ''30 days''); bad settings raise 22023. Writes profile '
'revision 1 (revise_profile, profile_history).';
