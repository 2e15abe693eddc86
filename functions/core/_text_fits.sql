-- Would _need_text accept the value (not null, not blank, at most max_len
-- characters)? Its inlinable twin, for fast paths that must decide without
-- raising: anything that does not fit goes the way that raises the exact error
-- (070_bad_input checks that the two agree). The default is _need_text's. A SQL
-- function with no SET clause, so that it is inlined into its callers (all of
-- them pinned SECURITY DEFINER functions).
CREATE FUNCTION agent_state._text_fits(val text, max_len integer DEFAULT 100000)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT val IS NOT NULL
        AND pg_catalog.length(val) OPERATOR(pg_catalog.<=) max_len
        AND pg_catalog.btrim(val, E' \t\r\n') OPERATOR(pg_catalog.<>) ''
$$;
