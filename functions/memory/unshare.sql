CREATE FUNCTION agent_state.unshare(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._check_share_target(agent, entry, revision, conversation);
    UPDATE agent_state.memory_shares AS s
    SET revoked_at = pg_catalog.clock_timestamp(), revoked_by = agent_state._caller()
    WHERE s.runtime_agent_id = agent AND s.entry_id = entry AND s.revision = revision
      AND s.conversation_id = conversation AND s.revoked_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format(
                'revision: revision %s of memory entry %s is not shared with conversation %s',
                revision, entry, conversation);
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.unshare(uuid, uuid, integer, uuid) IS
'unshare(agent, entry, revision, conversation) (operator): revokes the active grant (stamped '
'revoked_at/revoked_by; never deleted). No active grant: P0002. Unknown entry or conversation: '
'P0002 (23503 if another perspective''s).';
