-- The live search path of recall can use the per-agent full-text index: the
-- eligibility function's live branch, planned generically (as _rank_memory
-- plans it, with the agent and the query as parameters), is a bitmap scan of
-- memory_entries_search_idx on both columns (ARRAY[agent], tsv). Sequential
-- scans are disabled so that a tiny test table cannot hide an unusable index.
BEGIN;
SELECT plan(3);

SET LOCAL enable_seqscan = off;
SET LOCAL plan_cache_mode = force_generic_plan;
PREPARE t145_live (uuid, tsquery, uuid, boolean, uuid [], timestamptz) AS
SELECT * FROM agent_state._eligible_memory($1, $2, $3, $4, $5, $6);

CREATE FUNCTION pg_temp.plan_of(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    line text;
    out text := '';
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || stmt LOOP
        out := out || line || E'\n';
    END LOOP;
    RETURN out;
END
$$;

SELECT matches(
    pg_temp.plan_of($$EXECUTE t145_live(gen_random_uuid(), to_tsquery('english', 'tea'), NULL, false, NULL, NULL)$$),
    'Bitmap Index Scan on memory_entries_search_idx',
    'the live branch with a query is a bitmap scan of memory_entries_search_idx');
SELECT matches(
    pg_temp.plan_of($$EXECUTE t145_live(gen_random_uuid(), to_tsquery('english', 'tea'), NULL, false, NULL, NULL)$$),
    'Index Cond: \(\(ARRAY\[runtime_agent_id\] @> ARRAY\[\$1\]\) AND \(tsv @@ \$2\)\)',
    'both index columns are index conditions: the agent and the query');
SELECT matches(
    pg_temp.plan_of($$EXECUTE t145_live(gen_random_uuid(), to_tsquery('english', 'tea'), NULL, false, NULL, NULL)$$),
    'One-Time Filter: \(\(\$6 IS NULL\) AND \(\$2 IS NOT NULL\)\)',
    'the branch is chosen at run time by a one-time filter on the parameters');

DEALLOCATE t145_live;
SELECT * FROM finish();
ROLLBACK;
