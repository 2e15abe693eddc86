-- hnsw.ef_search for the HNSW path of _rank_memory: how many candidates the
-- index keeps while it walks its graph, which bounds how close its answer comes
-- to the exact one. The setting agent_state.hnsw_ef_search (1 to 1000, pgvector's
-- range; 22023 otherwise), default 1000.
--
-- Why 1000: recall and context_for fuse the vector ranks of at least 50
-- neighbours, so the fused top 10 changes when the index misses any of the
-- nearest 50 or swaps two of them; the index's answer must be right to 50
-- places, not 10. Measured with bench/hybrid.py (clustered 384-dimension
-- embeddings, half the queries near an ineligible cluster), recall@10 of
-- hybrid recall against the exact scan: a 50,000-entry agent 0.85 at 200, 0.93
-- at 500, 0.95 at 700, 0.97 at 1000; a 200,000-entry agent 0.92 at 200, 0.96 at
-- 600, 0.98 at 1000 (370,000 embeddings, one shared index; at 1.2M embeddings,
-- where that agent is a sixth of the shared index, 0.86 from it and 0.96 from
-- an index of its own). The scan's cost grows with it (at 200,000 entries: p50
-- 18 ms at 200, 46 ms at 1000). Neither a strict order nor asking the index for
-- more candidates than the 50 and keeping the nearest by exact distance changed
-- the recall: the index's first batch of ef_search candidates decides it.
CREATE FUNCTION agent_state._hnsw_ef_search()
RETURNS integer
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    setting text := pg_catalog.current_setting('agent_state.hnsw_ef_search', true);
BEGIN
    IF setting IS NULL OR setting = '' THEN
        RETURN 1000;
    END IF;
    IF setting ~ '^\s*[0-9]{1,4}\s*$' THEN
        IF setting::integer BETWEEN 1 AND 1000 THEN
            RETURN setting::integer;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '22023',
        MESSAGE = 'agent_state.hnsw_ef_search: must be an integer from 1 to 1000';
END
$$;
