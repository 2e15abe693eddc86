-- At commit of a new revision: what it claims, and the entry state written with
-- it (_check_revision).
CREATE FUNCTION agent_state._tg_check_memory_revision()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_revision(
        NEW.runtime_agent_id, NEW.entry_id, NEW.revision, NEW.source_message_id, NEW.source_actor_id,
        NEW.evidence_observers, NEW.evidence_conversations, NEW.visibility, NEW.created_at);
    RETURN NULL;
END
$$;
