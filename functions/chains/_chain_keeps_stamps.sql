-- True while import_agent copies an agent in: its rows keep the chain stamps the
-- document carries (as a restore keeps what it loads; verify judges them), so
-- heads taken at the source hold after a move. Set only with the copy flag, by
-- the extension's own code (_copying); a fork's copies are stamped anew.
CREATE FUNCTION agent_state._chain_keeps_stamps()
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN pg_catalog.current_setting('agent_state.copy_stamps', true) IS NOT DISTINCT FROM 'keep'
        AND agent_state._copying();
END
$$;
