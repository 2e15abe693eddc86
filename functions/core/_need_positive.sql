-- A count argument (max_results and the like): not null (22004), at least 1 and,
-- when max_val is given, at most max_val (22023). One rule, one message shape.
CREATE FUNCTION agent_state._need_positive(val integer, arg text, max_val integer DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF val IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = arg || ': must not be null';
    END IF;
    IF val < 1 OR val > max_val THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = CASE WHEN max_val IS NULL THEN arg || ': must be at least 1'
                           ELSE pg_catalog.format('%s: must be from 1 to %s', arg, max_val) END;
    END IF;
END
$$;
