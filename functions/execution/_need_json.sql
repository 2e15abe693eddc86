-- Required JSON argument of one of the given types: 22004 null, 22023 otherwise.
CREATE FUNCTION agent_state._need_json(val jsonb, arg text, types text [])
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- _need only for a null: passing a value on would copy it, and an oversized
    -- value is refused before anything copies it (test_robustness).
    IF val IS NULL THEN
        PERFORM agent_state._need(val, arg);
    END IF;
    IF NOT pg_catalog.jsonb_typeof(val) = ANY (types) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: must be a JSON %s, not %s', arg,
                                        pg_catalog.array_to_string(types, ' or '),
                                        pg_catalog.jsonb_typeof(val));
    END IF;
END
$$;
