-- A new agent row for a handle (create_agent, fork_agent): 23505 when the handle
-- is taken, however a concurrent insert of it interleaves. Not granted to anyone.
CREATE FUNCTION agent_state._insert_agent(handle text)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    new_id uuid;
BEGIN
    INSERT INTO agent_state.agents AS a (handle)
    VALUES (handle)
    ON CONFLICT ON CONSTRAINT agents_handle_key DO NOTHING
    RETURNING a.runtime_agent_id INTO new_id;
    IF new_id IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505',
            MESSAGE = pg_catalog.format('handle: an agent with handle %s already exists',
                                        agent_state._quote_prefix(handle));
    END IF;
    RETURN new_id;
END
$$;
