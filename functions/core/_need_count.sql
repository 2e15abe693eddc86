-- A count argument (max_results, skip and the like): not null (22004), at least
-- min_val and, when max_val is given, at most max_val (22023). One rule, one
-- message shape.
CREATE FUNCTION agent_state._need_count(
    val integer,
    arg text,
    min_val integer DEFAULT 1,
    max_val integer DEFAULT NULL
)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need(val, arg);
    IF val < min_val OR val > max_val THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = CASE
                WHEN max_val IS NOT NULL THEN pg_catalog.format('%s: must be from %s to %s', arg, min_val, max_val)
                WHEN min_val = 0 THEN arg || ': must not be negative'
                ELSE pg_catalog.format('%s: must be at least %s', arg, min_val)
            END;
    END IF;
END
$$;
