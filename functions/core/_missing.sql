-- A referenced id was not found in the caller's perspective. If it exists in
-- another perspective the reference crosses perspectives (23503); otherwise the
-- thing is unknown (P0002). Called after a lookup in the caller's perspective
-- came back empty (_need_ref, or a SELECT ... INTO that reads the row anyway).
-- The lookup here is by id alone, across agents: a scan, which only this error
-- path pays; _need_ref's per-agent probes are the primary keys'.
CREATE FUNCTION agent_state._missing(kind text, arg text, id uuid)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    elsewhere boolean;
BEGIN
    CASE kind
    WHEN 'agent' THEN
        elsewhere := false;
    WHEN 'actor' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.actors AS t WHERE t.actor_id = id);
    WHEN 'conversation' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.conversations AS t WHERE t.conversation_id = id);
    WHEN 'memory entry' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.memory_entries AS t WHERE t.entry_id = id);
    WHEN 'message' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.messages AS t WHERE t.message_id = id);
    WHEN 'run' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.runs AS t WHERE t.run_id = id);
    WHEN 'snapshot' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.prompt_snapshots AS t WHERE t.snapshot_id = id);
    WHEN 'model call' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.model_calls AS t WHERE t.model_call_id = id);
    WHEN 'tool call' THEN
        elsewhere := EXISTS (SELECT FROM agent_state.tool_calls AS t WHERE t.tool_call_id = id);
    END CASE;
    IF elsewhere THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('%s: %s %s belongs to another perspective', arg, kind, id);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'P0002',
        MESSAGE = pg_catalog.format('%s: unknown %s %s', arg, kind, id);
END
$$;
