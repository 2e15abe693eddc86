-- The name of the HNSW index that index_embeddings builds for one model and
-- dimension, over every agent's embeddings (agent NULL) or over one agent's:
-- deterministic, within PostgreSQL's 63 bytes for any model name (a model has
-- up to 200 characters, so it is named by a digest; a NUL byte, which text
-- cannot hold, separates the model from the agent in the digested bytes).
CREATE FUNCTION agent_state._embedding_index(model text, dimensions integer, agent uuid)
RETURNS name
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.format(
        CASE WHEN agent IS NULL THEN 'memory_embeddings_hnsw_%s_%s'
             ELSE 'memory_embeddings_hnsw_agent_%s_%s' END,
        dimensions,
        pg_catalog.left(pg_catalog.encode(pg_catalog.sha256(
            pg_catalog.convert_to(model, 'UTF8')
            || CASE WHEN agent IS NULL THEN ''::bytea
                    ELSE pg_catalog.decode('00', 'hex') || pg_catalog.uuid_send(agent) END
        ), 'hex'), 16)
    )::name
$$;
