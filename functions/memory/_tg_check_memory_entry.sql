-- Entry updates that do not advance the current revision (a new revision runs
-- the full check below): deferred check at commit.
CREATE FUNCTION agent_state._tg_check_memory_entry()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_entry_state(NEW.runtime_agent_id, NEW.entry_id);
    RETURN NULL;
END
$$;
