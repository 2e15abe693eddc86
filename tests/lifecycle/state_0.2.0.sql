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

-- A LangGraph thread: checkpoints of two runs, pending writes, and a prune (an
-- audited purge record).
DO $graph$
DECLARE
    agent uuid;
BEGIN
    SELECT a.runtime_agent_id INTO agent FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
    PERFORM agent_state.graph_put(agent, 'thread-1', '', 'cp-1', NULL, 'msgpack', '\x01'::bytea,
                                  '{"run_id": "run-a", "step": 0}');
    PERFORM agent_state.graph_put(agent, 'thread-1', '', 'cp-2', 'cp-1', 'msgpack', '\x02'::bytea,
                                  '{"run_id": "run-a", "step": 1}');
    PERFORM agent_state.graph_put(agent, 'thread-1', '', 'cp-3', 'cp-2', 'msgpack', '\x03'::bytea,
                                  '{"run_id": "run-b", "step": 2}');
    PERFORM agent_state.graph_put_writes(agent, 'thread-1', '', 'cp-3', 'task-1', 'a', ARRAY[0, -3],
                                         ARRAY['messages', '__interrupt__'], ARRAY['msgpack', 'msgpack'],
                                         ARRAY['\x04'::bytea, '\x05'::bytea]);
    PERFORM agent_state.graph_prune(agent, ARRAY['thread-1'], 'keep_latest');
END
$graph$;

-- A LangGraph store item, amended once (its value kept per revision).
DO $items$
DECLARE
    agent uuid;
BEGIN
    SELECT a.runtime_agent_id INTO agent FROM agent_state.agents AS a WHERE a.handle = 'lifecycle';
    PERFORM agent_state.graph_item_put(agent, ARRAY['users', 'alice'], 'prefs', '{"text": "likes tea"}',
                                       'likes tea');
    PERFORM agent_state.graph_item_put(agent, ARRAY['users', 'alice'], 'prefs',
                                       '{"text": "likes green tea"}', 'likes green tea');
END
$items$;
