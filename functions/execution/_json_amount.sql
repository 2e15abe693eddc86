-- One numeric member of a budget or usage object: a JSON number within
-- (0 or more than 0, per strict) .. max, integral when whole is set; 22023 naming
-- arg.key otherwise.
CREATE FUNCTION agent_state._json_amount(
    obj jsonb, arg text, key text, strict boolean, whole boolean, max_value numeric
)
RETURNS numeric
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v numeric;
BEGIN
    IF NOT obj ? key THEN
        RETURN NULL;
    END IF;
    IF pg_catalog.jsonb_typeof(obj -> key) = 'number' THEN
        v := (obj ->> key)::numeric;
        IF (v > 0 OR (NOT strict AND v = 0)) AND v <= max_value AND (NOT whole OR v = pg_catalog.trunc(v)) THEN
            RETURN v;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '22023',
        MESSAGE = pg_catalog.format('%s.%s: must be a %s%s of at most %s, not %s', arg, key,
                                    CASE WHEN strict THEN 'positive ' ELSE 'non-negative ' END,
                                    CASE WHEN whole THEN 'integer' ELSE 'number' END,
                                    max_value, agent_state._json_excerpt(obj -> key));
END
$$;
