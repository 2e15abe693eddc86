-- Embeddings (the semantic axis of retrieval): derived data attached to one
-- immutable revision, one per revision and model. Stored as real[] so that the
-- tables exist without pgvector; the functions that use them need the vector
-- extension (0A000 otherwise) and cast to its type when they compare. All
-- embeddings of one model in one agent have the dimension recorded for that
-- model (composite foreign key). Never updated; deleted only by redact, in the
-- transaction that redacts their entry.
CREATE TABLE agent_state.memory_embedding_models (
    runtime_agent_id uuid NOT NULL,
    model text NOT NULL,
    dimensions integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_embedding_models_pkey PRIMARY KEY (runtime_agent_id, model),
    CONSTRAINT memory_embedding_models_dimensions_key UNIQUE (runtime_agent_id, model, dimensions),
    CONSTRAINT memory_embedding_models_agent_fkey FOREIGN KEY (runtime_agent_id)
    REFERENCES agent_state.agents (runtime_agent_id),
    CONSTRAINT memory_embedding_models_model_check CHECK (btrim(model) <> '' AND length(model) <= 200),
    CONSTRAINT memory_embedding_models_dimensions_check CHECK (dimensions BETWEEN 1 AND 16000)
);

COMMENT ON TABLE agent_state.memory_embedding_models IS
'Embedding models used by an agent, with the one dimension every embedding of that model has.';

CREATE TABLE agent_state.memory_embeddings (
    runtime_agent_id uuid NOT NULL,
    entry_id uuid NOT NULL,
    revision integer NOT NULL,
    model text NOT NULL,
    dimensions integer NOT NULL,
    embedding real [] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    CONSTRAINT memory_embeddings_pkey PRIMARY KEY (runtime_agent_id, entry_id, revision, model),
    CONSTRAINT memory_embeddings_revision_fkey FOREIGN KEY (runtime_agent_id, entry_id, revision)
    REFERENCES agent_state.memory_revisions (runtime_agent_id, entry_id, revision),
    CONSTRAINT memory_embeddings_model_fkey FOREIGN KEY (runtime_agent_id, model, dimensions)
    REFERENCES agent_state.memory_embedding_models (runtime_agent_id, model, dimensions),
    CONSTRAINT memory_embeddings_shape_check CHECK (
        array_ndims(embedding) = 1 AND cardinality(embedding) = dimensions
        AND array_position(embedding, NULL) IS NULL
    ),
    CONSTRAINT memory_embeddings_finite_check CHECK (
        NOT (
            'NaN'::real = ANY (embedding)
            OR 'Infinity'::real = ANY (embedding)
            OR '-Infinity'::real = ANY (embedding)
        )
    )
);

COMMENT ON TABLE agent_state.memory_embeddings IS
'Embeddings of memory revisions (derived data, one per revision and model); redact erases them.';
