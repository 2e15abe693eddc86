-- A referenced id was not found in the caller's perspective. If it exists in
-- another perspective the reference crosses perspectives (23503); otherwise the
-- thing is unknown (P0002).
CREATE FUNCTION agent_state._missing(kind text, arg text, id uuid, elsewhere boolean)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
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
