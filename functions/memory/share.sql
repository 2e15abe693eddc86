CREATE FUNCTION agent_state.share(agent uuid, entry uuid, revision integer, conversation uuid)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
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
