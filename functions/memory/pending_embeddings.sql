CREATE FUNCTION agent_state.pending_embeddings(agent uuid, model text, max_results integer DEFAULT 100)
RETURNS TABLE (entry uuid, revision integer, body text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._vector_schema('model');
    PERFORM agent_state._need_text(model, 'model', 200);
    PERFORM agent_state._need_count(max_results, 'max_results');
    RETURN QUERY
    SELECT e.entry_id, e.current_revision, e.body
    FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.live
      AND NOT EXISTS (
          SELECT FROM agent_state.memory_embeddings AS x
          WHERE x.runtime_agent_id = agent AND x.entry_id = e.entry_id
            AND x.revision = e.current_revision AND x.model = model)
    ORDER BY e.revised_at, e.entry_id
    LIMIT LEAST(max_results, 1000);
END
$$;

COMMENT ON FUNCTION agent_state.pending_embeddings(uuid, text, integer) IS
'pending_embeddings(agent, model, max_results => 100) -> (entry, revision, body): the current '
'revisions of live entries that have no embedding of model yet, oldest first, for a worker to '
'embed and attach_embedding. max_results: null 22004, < 1 22023, capped at 1000. Needs pgvector '
'(0A000 without it).';
