-- A moment as whole microseconds since 1970 (a head's time in its token; back:
-- _chain_moment): no time zone or date style enters the token. Whole seconds
-- and the microseconds within them, each exact in a double. (OPERATOR() forms
-- all bind alike, left to right: the parentheses give the arithmetic its order.)
CREATE FUNCTION agent_state._chain_micros(at timestamptz)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (pg_catalog.date_part('epoch', pg_catalog.date_trunc('second', at))::bigint
            OPERATOR(pg_catalog.*) 1000000)
           OPERATOR(pg_catalog.+) (pg_catalog.date_part('microseconds', at)::bigint OPERATOR(pg_catalog.%) 1000000)
$$;
