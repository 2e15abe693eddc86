-- Whole microseconds since 1970 as a moment (the inverse of _chain_micros).
CREATE FUNCTION agent_state._chain_moment(micros bigint)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'epoch'::timestamptz OPERATOR(pg_catalog.+) (micros OPERATOR(pg_catalog.*) '1 microsecond'::interval)
$$;
