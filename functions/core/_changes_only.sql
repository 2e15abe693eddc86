-- Does an UPDATE change no column but the named ones? The test of every guard
-- trigger that lets one kind of update through: _tg_refuse_change (the columns
-- its trigger names), a share's revocation, a redaction's added hashes, a
-- revision's redacted body, a special graph write's value. The rows are compared
-- as JSON, so no column list is written out and a column added later is covered.
-- A SQL function with no SET clause, so that it is inlined into its callers (all
-- of them SECURITY DEFINER triggers with a pinned search_path); STABLE as
-- to_jsonb is.
CREATE FUNCTION agent_state._changes_only(new_row anyelement, old_row anyelement, cols text [])
RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT (pg_catalog.to_jsonb(new_row) OPERATOR(pg_catalog.-) cols)
        OPERATOR(pg_catalog.=) (pg_catalog.to_jsonb(old_row) OPERATOR(pg_catalog.-) cols)
$$;
