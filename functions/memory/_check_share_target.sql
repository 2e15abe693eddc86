-- Checks shared by share and unshare: the entry, the revision and the
-- conversation all belong to this perspective.
CREATE FUNCTION agent_state._check_share_target(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need(revision, 'revision');
    PERFORM agent_state._need(conversation, 'conversation');
    PERFORM agent_state._need_ref(agent, 'memory entry', entry, 'entry');
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry AND r.revision = revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('revision: memory entry %s has no revision %s', entry, revision);
    END IF;
    PERFORM agent_state._need_ref(agent, 'conversation', conversation, 'conversation');
END
$$;
