-- Size and depth limits of a JSON argument, checked before anything else reads it:
-- at most max_bytes stored bytes (pg_column_size reads the header of a stored
-- value) and at most max_depth levels of nesting, so that every later walk over
-- the value stays far from the stack limit. 22023 naming the argument. Levels
-- count arrays and objects inside one another: {"a": 1} and [] have one, [[]] and
-- {"a": [1]} two. In jsonpath the top-level value is at level 0 ($.**{0}), so
-- a value is nested deeper than max_depth exactly when an array or object sits
-- at level max_depth (an empty one too: testing only for any item at level
-- max_depth + 1 let an empty array or object one level too deep through). A
-- value nested so deep that PostgreSQL cannot parse it (thousands of levels)
-- fails before any function runs, with PostgreSQL's own 54001.
--
-- Limits (README): 10,000,000 bytes for request, response, input, output, frontier,
-- task_context, detail and memory; 1,000,000 for settings, budget, usage, config and
-- config_schema; 200 levels, 32 for a tool grant's config.
CREATE FUNCTION agent_state._json_within(
    val jsonb,
    arg text,
    max_bytes integer DEFAULT 10000000,
    max_depth integer DEFAULT 200
)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.pg_column_size(val) > max_bytes THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: larger than %s bytes', arg,
                                        pg_catalog.to_char(max_bytes, 'FM999,999,999,999'));
    END IF;
    IF pg_catalog.jsonb_path_exists(
        val,
        ('strict $.**{' || max_depth || '} ? (@.type() == "array" || @.type() == "object")')::jsonpath
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: nested deeper than %s levels', arg, max_depth);
    END IF;
END
$$;
