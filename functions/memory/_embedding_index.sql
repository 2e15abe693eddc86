-- The name of the HNSW index that index_embeddings builds for one model and
-- dimension: deterministic, within PostgreSQL's 63 bytes for any model name (a
-- model has up to 200 characters, so it is named by a digest).
CREATE FUNCTION agent_state._embedding_index(model text, dimensions integer)
RETURNS name
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format(
        'memory_embeddings_hnsw_%s_%s', dimensions,
        pg_catalog.left(pg_catalog.encode(
            pg_catalog.sha256(pg_catalog.convert_to(model, 'UTF8')), 'hex'), 16)
    )::name
$$;
