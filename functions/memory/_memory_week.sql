-- Time windows of memory_entries_search_idx (the exact top-k search of
-- _top_memory_search reads the agent's matches window by window, newest first).
-- A window is one agent's entries revised in one week: weeks counted from
-- 2000-01-01 00:00 UTC, week b holding the revised_at in
-- [to_timestamp(946684800 + 604800 b), to_timestamp(946684800 + 604800 (b + 1))).
-- Exact: the epoch of an interval is a numeric, so no entry is ever counted in a
-- neighbouring week. The index key is the week alone, in a column of its own:
-- it never mixes with the lexemes of tsv, so it cannot change what a query
-- matches, and the search intersects it with the agent's key (the first
-- column) and the query's lexemes, as GIN does for any three keys. A key per
-- agent and week was measured too: one key per entry for the many small
-- agents (an index 3x the size; the week alone adds 5%), for a window scan
-- about 0.8 ms faster on a 200,000-entry agent.
--
-- The index (sql/memory.sql) and the window query of _top_memory_search write
-- this formula out instead of calling the function (see the index's comment);
-- the owner's functions call it to number weeks.
CREATE FUNCTION agent_state._memory_week(revised_at timestamptz)
RETURNS bigint
LANGUAGE sql IMMUTABLE
AS $$
    SELECT pg_catalog.floor(
               EXTRACT(EPOCH FROM revised_at - '2000-01-01 00:00:00+00'::timestamptz) / 604800
           )::bigint
$$;

