-- A row written in this perspective references an id the perspective does not
-- have (23503, a foreign key's SQLSTATE): for the checks that reach the rows
-- directly, under a lock or in a trigger, after the public functions checked
-- the argument with _missing. One message shape for them all.
CREATE FUNCTION agent_state._not_in_perspective(kind text, arg text, id uuid)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = '23503',
        MESSAGE = pg_catalog.format('%s: unknown %s %s in this perspective', arg, kind, id);
END
$$;
