-- Argument checks shared by every public function. Each raises a stable SQLSTATE
-- with a message that starts with the name of the offending argument.

-- Required argument is null: 22004.
CREATE FUNCTION agent_state._need(val anyelement, arg text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
END
$$;

-- Required text: null is 22004; blank or longer than max_len characters is 22023.
CREATE FUNCTION agent_state._need_text(val text, arg text, max_len integer DEFAULT 100000)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF pg_catalog.btrim(val, E' \t\r\n') = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be empty';
    END IF;
    IF pg_catalog.length(val) > max_len THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: longer than %s characters', arg, max_len);
    END IF;
END
$$;

-- Value must be one of a fixed set: 22004 when null, 22023 otherwise.
CREATE FUNCTION agent_state._need_one_of(val text, arg text, allowed text [])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF NOT val = ANY (allowed) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: %L is not one of %s', arg, val,
                                        pg_catalog.array_to_string(allowed, ', '));
    END IF;
END
$$;

-- A referenced id was not found in the caller's perspective. If it exists in
-- another perspective the reference crosses perspectives (23503); otherwise the
-- thing is unknown (P0002).
CREATE FUNCTION agent_state._missing(kind text, arg text, id uuid, elsewhere boolean)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF elsewhere THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('%s: %s %s belongs to another perspective', arg, kind, id);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'P0002',
        MESSAGE = pg_catalog.format('%s: unknown %s %s', arg, kind, id);
END
$$;
