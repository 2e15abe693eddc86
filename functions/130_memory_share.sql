-- Sharing grants (operator): one revision of an entry made eligible in one
-- conversation regardless of audience. Grants are revision-specific, so an
-- amendment is not shared until granted again. unshare revokes (stamps
-- revoked_at/revoked_by); grants are never deleted.

-- Checks shared by share and unshare: the entry, the revision and the
-- conversation all belong to this perspective.
CREATE FUNCTION agent_state._check_share_target(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need(revision, 'revision');
    PERFORM agent_state._need(conversation, 'conversation');
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = agent AND e.entry_id = entry
    ) THEN
        PERFORM agent_state._missing('memory entry', 'entry', entry,
            EXISTS (SELECT FROM agent_state.memory_entries AS e WHERE e.entry_id = entry));
    END IF;
    IF NOT EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.entry_id = entry AND r.revision = revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('revision: memory entry %s has no revision %s', entry, revision);
    END IF;
    IF NOT EXISTS (
        SELECT FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation
    ) THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation,
            EXISTS (SELECT FROM agent_state.conversations AS c WHERE c.conversation_id = conversation));
    END IF;
END
$$;

CREATE FUNCTION agent_state.share(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(share.agent, true);
    PERFORM agent_state._check_share_target(share.agent, share.entry, share.revision, share.conversation);
    INSERT INTO agent_state.memory_shares AS s (runtime_agent_id, entry_id, revision, conversation_id)
    VALUES (share.agent, share.entry, share.revision, share.conversation)
    ON CONFLICT (runtime_agent_id, entry_id, revision, conversation_id) WHERE revoked_at IS NULL
    DO NOTHING;
END
$$;

COMMENT ON FUNCTION agent_state.share(uuid, uuid, integer, uuid) IS
'share(agent, entry, revision, conversation) (operator): grants that exact revision into the '
'conversation: eligible there whatever its audience, while it is the entry''s current revision '
'and the entry is live. Sharing an active grant again is a no-op. Unknown entry or conversation: '
'P0002 (23503 if another perspective''s); unknown revision: P0002.';

CREATE FUNCTION agent_state.unshare(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
