-- What tests/lifecycle/realistic_state.sql (the 0.1.0 API) cannot write: rows of the
-- tables added in 0.2.0. Embeddings are inserted directly (as the superuser, which
-- the guards check like any writer) so that this works without pgvector too;
-- attach_embedding, which needs pgvector, writes the same rows.
DO $state$
DECLARE
    agent uuid;
    e1 uuid;
BEGIN
    SELECT a.runtime_agent_id INTO agent FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
    SELECT e.entry_id INTO e1 FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = agent AND e.body = 'Alice is severely allergic to peanuts';
    INSERT INTO agent_state.memory_embedding_models (runtime_agent_id, model, dimensions)
    VALUES (agent, 'lifecycle-model', 3);
    INSERT INTO agent_state.memory_embeddings (runtime_agent_id, entry_id, revision, model, dimensions, embedding)
    VALUES (agent, e1, 1, 'lifecycle-model', 3, '{1, 0, 0}'),
           (agent, e1, 2, 'lifecycle-model', 3, '{0.5, 0.5, 0.25}');
END
$state$;
