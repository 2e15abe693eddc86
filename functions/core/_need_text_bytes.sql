-- Required text bounded in bytes (UTF-8), for values that a btree index keys:
-- an index entry holds at most 2,704 bytes whatever the characters, so a limit
-- in characters would let multibyte text surface 54000. Null is 22004; longer
-- than max_bytes bytes (read from the value's header first) or blank is 22023.
-- The bound in bytes is checked here, the rest is _need_text's (a value within
-- max_bytes bytes is within max_bytes characters too).
CREATE FUNCTION agent_state._need_text_bytes(val text, arg text, max_bytes integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Before anything copies the value (test_robustness): octet_length reads a
    -- stored value's size from its header; null passes on to _need_text.
    IF pg_catalog.octet_length(val) > max_bytes THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: longer than %s bytes', arg, max_bytes);
    END IF;
    PERFORM agent_state._need_text(val, arg, max_bytes);
END
$$;
