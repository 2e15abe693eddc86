-- Required text: null is 22004; blank or longer than max_len characters is 22023.
CREATE FUNCTION agent_state._need_text(val text, arg text, max_len integer DEFAULT 100000)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- _need only for a null: passing a value on would copy it, and an oversized
    -- value is refused before anything copies it (test_robustness).
    IF val IS NULL THEN
        PERFORM agent_state._need(val, arg);
    END IF;
    -- The length first, before anything copies the value: octet_length reads a
    -- stored value's size from its header, and a character takes at most 4 bytes.
    IF pg_catalog.octet_length(val) > max_len::bigint * 4 OR pg_catalog.length(val) > max_len THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: longer than %s characters', arg, max_len);
    END IF;
    IF pg_catalog.btrim(val, E' \t\r\n') = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be empty';
    END IF;
END
$$;
