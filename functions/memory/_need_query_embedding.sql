-- recall and context_for: a query embedding needs pgvector (0A000), a model
-- (22004), a valid shape, and the model's dimension in this agent when the agent
-- has embeddings of that model (22023). A model without an embedding is ignored.
CREATE FUNCTION agent_state._need_query_embedding(agent uuid, query_embedding real [], embedding_model text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF query_embedding IS NULL THEN
        RETURN;
    END IF;
    PERFORM agent_state._vector_schema('query_embedding');
    IF embedding_model IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'embedding_model: required with query_embedding';
    END IF;
    PERFORM agent_state._need_text(embedding_model, 'embedding_model', 200);
    PERFORM agent_state._need_embedding(query_embedding, 'query_embedding');
    PERFORM agent_state._need_model_dimension(agent, embedding_model,
                                              pg_catalog.cardinality(query_embedding), 'query_embedding');
END
$$;
