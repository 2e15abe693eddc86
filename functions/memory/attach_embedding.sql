-- The semantic axis: a runtime's embedding worker (or an operator) attaches the
-- embedding of one revision computed with one model.
CREATE FUNCTION agent_state.attach_embedding(
    agent uuid,
    entry uuid,
    revision integer,
    model text,
    embedding real []
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    dims integer;
    duplicate boolean;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._vector_schema('embedding');
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need(revision, 'revision');
    PERFORM agent_state._need_text(model, 'model', 200);
    PERFORM agent_state._need_embedding(embedding, 'embedding');
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry AND r.revision = revision
    ) THEN
        PERFORM agent_state._need_ref(agent, 'memory entry', entry, 'entry');
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('revision: entry %s has no revision %s', entry, revision);
    END IF;
    -- One per revision and model: an existing one is 23505 whatever the new
    -- one's dimension (a concurrent one is found by the insert below).
    duplicate := EXISTS (
        SELECT FROM agent_state.memory_embeddings AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry AND x.revision = revision
          AND x.model = model
    );
    IF NOT duplicate THEN
        -- The first embedding of a model fixes its dimension for this agent; a
        -- concurrent first one waits on the key and then compares.
        INSERT INTO agent_state.memory_embedding_models AS m (runtime_agent_id, model, dimensions)
        VALUES (agent, model, pg_catalog.cardinality(embedding))
        ON CONFLICT ON CONSTRAINT memory_embedding_models_pkey DO NOTHING;
        dims := pg_catalog.cardinality(embedding);
        IF EXISTS (
            SELECT FROM agent_state.memory_embedding_models AS m
            WHERE m.runtime_agent_id = agent AND m.model = model AND m.dimensions <> dims
        ) THEN
            -- Another dimension. Duplicates first, also when the dimension was fixed
            -- by a concurrent first embedding we just waited for: it committed its
            -- embedding with the model, and this statement's snapshot sees both; if
            -- it was of this revision this call is the second of one slot (23505,
            -- as after a commit) whichever way the two calls interleaved. Only on
            -- the way to an error: the worker's path reads the model row once.
            duplicate := EXISTS (
                SELECT FROM agent_state.memory_embeddings AS x
                WHERE x.runtime_agent_id = agent AND x.entry_id = entry AND x.revision = revision
                  AND x.model = model
            );
            IF NOT duplicate THEN
                PERFORM agent_state._need_model_dimension(agent, model, dims, 'embedding');
            END IF;
        ELSE
            -- ON CONFLICT rather than an exception block: no subtransaction per call
            -- on the embedding worker's path (a concurrent insert of the same key is
            -- waited for, then found).
            INSERT INTO agent_state.memory_embeddings
                (runtime_agent_id, entry_id, revision, model, dimensions, embedding)
            VALUES (agent, entry, revision, model, dims, embedding)
            ON CONFLICT ON CONSTRAINT memory_embeddings_pkey DO NOTHING;
            duplicate := NOT FOUND;
        END IF;
    END IF;
    IF duplicate THEN
        RAISE EXCEPTION USING
            ERRCODE = '23505',
            MESSAGE = pg_catalog.format('revision: revision %s of entry %s already has an embedding '
                                        'of model %s', revision, entry, agent_state._quote_prefix(model));
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.attach_embedding(uuid, uuid, integer, text, real []) IS
'attach_embedding(agent, entry, revision, model, embedding real[]) (runtime or operator): '
'derived data for the semantic axis, one per revision and model (again: 23505, whatever its '
'dimension; a concurrent second waits for the first to commit). Every embedding of one model in '
'one agent has the same dimension, fixed by the first (22023). embedding: 1 to 16,000 finite components, a '
'Euclidean norm from 1e-15 to 1e15; model: 1 to 200 characters (22023). A redacted entry: '
'55000. '
'Needs the pgvector extension (vector) in the database: 0A000 without it.';
