-- Does a text argument pass _need_text(val, arg, max_len): not null, at most
-- max_len characters, not blank? (NULL for a null value: callers coalesce.) The
-- inlinable twin for fast paths that must decide without raising, as _json_fits
-- is _json_within's; anything that does not fit goes through _need_text, which
-- raises the exact error. A SQL function with no SET clause, so that it is
-- inlined into its callers (pinned SECURITY DEFINER functions; only the owner
-- may execute it).
CREATE FUNCTION agent_state._text_fits(val text, max_len integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT pg_catalog.length(val) OPERATOR(pg_catalog.<=) max_len
        AND pg_catalog.btrim(val, E' \t\r\n') OPERATOR(pg_catalog.<>) ''
$$;
