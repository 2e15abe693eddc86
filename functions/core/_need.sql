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
