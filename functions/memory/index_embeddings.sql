-- The semantic axis at scale: an HNSW index (pgvector) over the embeddings of
-- one model and dimension, for the nearest-neighbour search of big agents
-- (_rank_memory). A partial expression index on
-- ((embedding::vector(dimensions)) vector_cosine_ops) WHERE model = ... AND
-- dimensions = ... (AND runtime_agent_id = ... for one agent's: a filtered
-- search of a shared index finds fewer of a small share's true neighbours),
-- named by _embedding_index (deterministic), so that
-- _rank_memory finds it and repeats its expression exactly. Idempotent: an
-- existing valid index of that name is kept. Needs pgvector 0.8 or later
-- (iterative index scans, without which a filtered index scan may stop short);
-- 0A000 otherwise. Built in the calling transaction (CREATE INDEX, not
-- CONCURRENTLY: writes to the embeddings wait for the build).
CREATE FUNCTION agent_state.index_embeddings(model text, dimensions integer, agent uuid DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    vschema name;
    version text;
    index_name name;
    valid boolean;
BEGIN
    PERFORM agent_state._need_operator();
    vschema := agent_state._vector_schema('index_embeddings');
    SELECT e.extversion INTO version FROM pg_catalog.pg_extension AS e WHERE e.extname = 'vector';
    IF NOT agent_state._vector_iterative(version) THEN
        RAISE EXCEPTION USING
            ERRCODE = '0A000',
            MESSAGE = pg_catalog.format(
                'index_embeddings: needs pgvector 0.8 or later (iterative index scans), not %s',
                version),
            HINT = 'ALTER EXTENSION vector UPDATE;';
    END IF;
    PERFORM agent_state._need_text(model, 'model', 200);
    PERFORM agent_state._need(dimensions, 'dimensions');
    -- pgvector's HNSW indexes vectors of up to 2,000 dimensions.
    IF dimensions NOT BETWEEN 1 AND 2000 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'dimensions: an HNSW index takes 1 to 2000 dimensions';
    END IF;
    IF agent IS NOT NULL
        AND NOT EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent) THEN
        RAISE EXCEPTION USING ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
    END IF;
    index_name := agent_state._embedding_index(model, dimensions, agent);
    SELECT i.indisvalid INTO valid
    FROM pg_catalog.pg_class AS c
    JOIN pg_catalog.pg_index AS i ON i.indexrelid = c.oid
    WHERE c.relname = index_name AND c.relnamespace = 'agent_state'::regnamespace;
    IF valid THEN
        RETURN index_name;
    ELSIF NOT valid THEN
        -- Left invalid by an interrupted build elsewhere: built again.
        EXECUTE pg_catalog.format('DROP INDEX agent_state.%I', index_name);
    END IF;
    EXECUTE pg_catalog.format(
        'CREATE INDEX %1$I ON agent_state.memory_embeddings USING hnsw '
        '((embedding::%2$I.vector(%3$s)) %2$I.vector_cosine_ops) WITH (ef_construction = 128) '
        'WHERE model = %4$L AND dimensions = %3$s%5$s',
        index_name, vschema, dimensions, model,
        CASE WHEN agent IS NOT NULL
             THEN pg_catalog.format(' AND runtime_agent_id = %L::uuid', agent) ELSE '' END);
    RETURN index_name;
END
$$;

COMMENT ON FUNCTION agent_state.index_embeddings(text, integer, uuid) IS
'index_embeddings(model, dimensions, agent default null) -> index name (operator): an HNSW '
'index (pgvector 0.8 or later, 0A000 otherwise or without pgvector) over every agent''s '
'embeddings of that model and dimension, or with agent over that agent''s only (for a big '
'agent: the index then holds only its neighbours, and recall@10 stays high where the agent is '
'a small share of all embeddings; one per agent for a handful of the biggest: each is a '
'predicate on every embedding insert and in every plan of the table). recall and context_for '
'use an index (the agent''s own or the shared one, the planner picks the cheaper, which is '
'the agent''s own) for agents with at least agent_state.hnsw_min_embeddings (default 10000) '
'embeddings of the model; eligibility still applies before the neighbours are taken (the '
'exact scan when the index finds too few). Idempotent; built in the calling transaction '
'(writes to the embeddings wait). dimensions: 1 to 2000 (22023); unknown agent: P0002.';
