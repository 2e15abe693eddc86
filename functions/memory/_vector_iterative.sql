-- Does this pgvector version (pg_extension.extversion) have iterative index
-- scans (hnsw.iterative_scan, 0.8.0 and later)? Without them a filtered HNSW scan
-- stops after hnsw.ef_search candidates, however few of them pass the filter.
CREATE FUNCTION agent_state._vector_iterative(version text)
RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(
        pg_catalog.string_to_array(
            pg_catalog.substring(version, '^[0-9]+(?:\.[0-9]+)*'), '.'
        )::integer [] OPERATOR(pg_catalog.>=) ARRAY[0, 8],
        false
    )
$$;
