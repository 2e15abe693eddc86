-- Value must be one of a fixed set: 22004 when null, 22023 otherwise.
CREATE FUNCTION agent_state._need_one_of(val text, arg text, allowed text [])
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need(val, arg);
    IF NOT val = ANY (allowed) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: %s is not one of %s', arg, agent_state._quote_prefix(val),
                                        pg_catalog.array_to_string(allowed, ', '));
    END IF;
END
$$;
