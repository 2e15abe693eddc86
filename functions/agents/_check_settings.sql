-- Raises what _settings_problem finds (22023), or 22004 for null settings.
CREATE FUNCTION agent_state._check_settings(settings jsonb)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    problem text;
BEGIN
    PERFORM agent_state._need(settings, 'settings');
    problem := agent_state._settings_problem(settings);
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = problem;
    END IF;
END
$$;
