-- Time windows of memory_entries_search_idx (the exact top-k search of
-- _top_memory_search reads the agent's matches window by window, newest first).
-- A window is one agent's entries revised in one week: weeks counted from
-- 2000-01-01 00:00 UTC, week b holding the revised_at in
-- [to_timestamp(946684800 + 604800 b), to_timestamp(946684800 + 604800 (b + 1))).
-- Exact: the epoch of an interval is a numeric, so no entry is ever counted in a
-- neighbouring week. The index keys are text ('<agent uuid>/<week>'), in a
-- column of their own: they never mix with the lexemes of tsv, so they cannot
-- change what a query matches, and a key names exactly one agent (uuid_out is
-- canonical), so a window never holds another agent's entries.
--
-- Inlinable SQL expressions (no SET clause, not SECURITY DEFINER, not granted):
-- the index expression and the queries expand to the same expression, which is
-- what lets the planner match them.
CREATE FUNCTION agent_state._memory_week(revised_at timestamptz)
RETURNS bigint
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT pg_catalog.floor(
               EXTRACT(EPOCH FROM revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800
           )::bigint
$$;

-- The index key of one agent's week.
CREATE FUNCTION agent_state._memory_window(agent uuid, week bigint)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT agent::text || '/' || week::text
$$;
