-- Required text bounded in bytes (UTF-8), for values that a btree index keys:
-- an index entry holds at most 2,704 bytes whatever the characters, so a limit
-- in characters would let multibyte text surface 54000. Null is 22004; longer
-- than max_bytes bytes (read from the value's header first) or blank is 22023.
CREATE FUNCTION agent_state._need_text_bytes(val text, arg text, max_bytes integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- _need's rule and message, inline: passing val on would copy it, and an
    -- oversized value is refused before anything copies it (test_robustness).
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF pg_catalog.octet_length(val) > max_bytes THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: longer than %s bytes', arg, max_bytes);
    END IF;
    IF pg_catalog.btrim(val, E' \t\r\n') = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be empty';
    END IF;
END
$$;
