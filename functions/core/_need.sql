-- Required argument is null: 22004, with a message that starts with the
-- argument's name.
CREATE FUNCTION agent_state._need(val anyelement, arg text)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
END
$$;
