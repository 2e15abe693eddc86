-- A JSON object argument names only known keys (22023 naming the first unknown
-- one, in key order, by its path). One message shape for every such argument
-- (a run's budget, a model call's usage).
CREATE FUNCTION agent_state._need_known_keys(val jsonb, arg text, known text [])
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    unknown text;
BEGIN
    SELECT k INTO unknown
    FROM pg_catalog.jsonb_object_keys(val - known) AS k
    ORDER BY k
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: unknown %s key; known keys are %s',
                                        agent_state._json_path(arg, unknown), arg,
                                        pg_catalog.array_to_string(known, ', '));
    END IF;
END
$$;
