-- A reference argument names a row of this agent: null 22004, unknown P0002,
-- another perspective's 23503 (_missing). The one check for every argument that
-- names an actor, conversation, memory entry, message, run, snapshot, model
-- call or tool call; each kind is probed by its table's primary key
-- (runtime_agent_id, id), a plan PL/pgSQL caches.
CREATE FUNCTION agent_state._need_ref(agent uuid, kind text, id uuid, arg text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    here boolean;
BEGIN
    PERFORM agent_state._need(id, arg);
    CASE kind
    WHEN 'actor' THEN
        here := EXISTS (SELECT FROM agent_state.actors AS t WHERE t.runtime_agent_id = agent AND t.actor_id = id);
    WHEN 'conversation' THEN
        here := EXISTS (SELECT FROM agent_state.conversations AS t WHERE t.runtime_agent_id = agent AND t.conversation_id = id);
    WHEN 'memory entry' THEN
        here := EXISTS (SELECT FROM agent_state.memory_entries AS t WHERE t.runtime_agent_id = agent AND t.entry_id = id);
    WHEN 'message' THEN
        here := EXISTS (SELECT FROM agent_state.messages AS t WHERE t.runtime_agent_id = agent AND t.message_id = id);
    WHEN 'run' THEN
        here := EXISTS (SELECT FROM agent_state.runs AS t WHERE t.runtime_agent_id = agent AND t.run_id = id);
    WHEN 'snapshot' THEN
        here := EXISTS (SELECT FROM agent_state.prompt_snapshots AS t WHERE t.runtime_agent_id = agent AND t.snapshot_id = id);
    WHEN 'model call' THEN
        here := EXISTS (SELECT FROM agent_state.model_calls AS t WHERE t.runtime_agent_id = agent AND t.model_call_id = id);
    WHEN 'tool call' THEN
        here := EXISTS (SELECT FROM agent_state.tool_calls AS t WHERE t.runtime_agent_id = agent AND t.tool_call_id = id);
    END CASE;
    IF NOT here THEN
        PERFORM agent_state._missing(kind, arg, id);
    END IF;
END
$$;
