-- Is a JSON argument within the size and depth limits that _json_within
-- enforces with its default depth (a null fits)? For fast paths that must decide
-- without raising; anything that does not fit goes the way that raises the exact
-- error. The depth test is _json_within's written out for 200 levels
-- (070_bad_input checks that the two agree). A SQL function with no SET clause,
-- so that it is inlined into its callers (all of them pinned SECURITY DEFINER
-- functions: only the owner may execute it). STABLE as pg_column_size is: an
-- IMMUTABLE one would not be inlined.
CREATE FUNCTION agent_state._json_fits(val jsonb, max_bytes integer DEFAULT 10000000)
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT val IS NULL
        OR (pg_catalog.pg_column_size(val) OPERATOR(pg_catalog.<=) max_bytes
            AND NOT pg_catalog.jsonb_path_exists(
                val, 'strict $.**{200} ? (@.type() == "array" || @.type() == "object")'::pg_catalog.jsonpath))
$$;
