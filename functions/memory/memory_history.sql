-- The revision history of one memory entry.
CREATE FUNCTION agent_state.memory_history(agent uuid, entry uuid)
RETURNS TABLE (
    revision integer,
    operation text,
    body text,
    subject uuid,
    visibility text,
    source_type text,
    source_actor uuid,
    source_messages uuid [],
    created_at timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(memory_history.agent);
    PERFORM agent_state._need(memory_history.entry, 'entry');
    PERFORM agent_state._need_ref(memory_history.agent, 'memory entry', memory_history.entry, 'entry');
    RETURN QUERY
    SELECT r.revision, r.operation, r.body, r.subject_id, r.visibility, r.source_type,
           r.source_actor_id,
           ARRAY(
               SELECT v.message_id
               FROM agent_state._revision_evidence(r.runtime_agent_id, r.entry_id, r.revision)
                    AS v (message_id)
               ORDER BY v.message_id
           ),
           r.created_at
    FROM agent_state.memory_revisions AS r
    WHERE r.runtime_agent_id = memory_history.agent AND r.entry_id = memory_history.entry
      AND agent_state._chain_checked('memory_revisions', r)
    ORDER BY r.revision;
END
$$;

COMMENT ON FUNCTION agent_state.memory_history(uuid, uuid) IS
'memory_history(agent, entry) -> (revision, operation, body, subject, visibility, source_type, '
'source_actor, source_messages, created_at), oldest first. operation: create, amend, forget. '
'source_messages: the revision''s full evidence set (sorted; empty for notes and imports). '
'Redacted entries show ''[redacted]'' bodies. Unknown entry: P0002 (23503 if another '
'perspective''s).';
