-- A redacted entry: every revision carries the marker, the entry is retired with
-- the marker as its body, and nothing derived from its text (embeddings, item
-- values) is left. Run at commit of a redaction and by verify().
CREATE FUNCTION agent_state._check_redaction(agent uuid, entry uuid)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry
          AND r.body <> '[redacted]'
    ) OR EXISTS (
        SELECT FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = agent AND e.entry_id = entry
          AND (e.live OR e.body <> '[redacted]')
    ) OR EXISTS (
        SELECT FROM agent_state.memory_embeddings AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry
    ) OR EXISTS (
        SELECT FROM agent_state.graph_item_values AS x
        WHERE x.runtime_agent_id = agent AND x.entry_id = entry
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_redactions: entry %s still holds text that its redaction removed', entry);
    END IF;
    RETURN;
END
$$;
