-- recall and context_for with a query embedding: the HNSW index to take the
-- agent's nearest neighbours from, or NULL for the exact scan. An index is used
-- when index_embeddings built it for this model and dimension (valid): the
-- agent's own one or the one over every agent's embeddings (where both exist,
-- the planner chooses by cost, and takes the agent's smaller one: a pytest
-- checks which one is scanned);
-- when pgvector has iterative index scans (0.8 or later), and the agent has at
-- least agent_state.hnsw_min_embeddings embeddings of the model (default 10000:
-- below that the exact scan is cheap and exact). The count stops at the
-- threshold, so the probe costs at most that many index entries.
CREATE FUNCTION agent_state._hnsw_index(agent uuid, embedding_model text, dimensions integer)
RETURNS name
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    index_name name;
    own_index name := agent_state._embedding_index(embedding_model, dimensions, agent);
    setting text := pg_catalog.current_setting('agent_state.hnsw_min_embeddings', true);
    threshold integer := 10000;
BEGIN
    IF setting IS NOT NULL AND setting <> '' THEN
        IF setting !~ '^\s*[0-9]{1,9}\s*$' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'agent_state.hnsw_min_embeddings: must be an integer from 0 to 999999999';
        END IF;
        threshold := setting::integer;
    END IF;
    SELECT c.relname INTO index_name
    FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_index AS i ON i.indexrelid = c.oid
    WHERE c.relname IN (own_index, agent_state._embedding_index(embedding_model, dimensions, NULL))
      AND c.relnamespace = 'agent_state'::regnamespace
      AND i.indisvalid AND i.indisready
    ORDER BY c.relname = own_index DESC
    LIMIT 1;
    IF index_name IS NULL OR NOT agent_state._vector_iterative(
        (SELECT e.extversion FROM pg_catalog.pg_extension AS e WHERE e.extname = 'vector')
    ) OR (
        SELECT pg_catalog.count(*) FROM (
            SELECT FROM agent_state.memory_embeddings AS x
            WHERE x.runtime_agent_id = agent AND x.model = embedding_model
            LIMIT threshold
        ) AS s
    ) < threshold THEN
        RETURN NULL;
    END IF;
    RETURN index_name;
END
$$;
