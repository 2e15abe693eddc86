-- The target of a read for a conversation: whether it has a message, and the
-- audience of its latest one (latest observed_at, then latest recorded), as of a
-- moment or now. P0002 (23503 if another perspective's) for an unknown one.
-- (context_for computes it in the statement that also reads the message's text
-- and author.)
CREATE FUNCTION agent_state._conversation_target(
    agent uuid,
    conversation uuid,
    as_of timestamptz,
    OUT known boolean,
    OUT audience uuid []
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    known := false;
    IF conversation IS NULL THEN
        RETURN;
    END IF;
    SELECT coalesce(m.known, false), m.audience INTO known, audience
    FROM agent_state.conversations AS c
    LEFT JOIN LATERAL (
        SELECT true AS known, x.audience
        FROM agent_state.messages AS x
        WHERE x.runtime_agent_id = agent AND x.conversation_id = conversation
          AND (as_of IS NULL OR x.created_at <= as_of)
        ORDER BY x.observed_at DESC, x.created_at DESC, x.message_id DESC
        LIMIT 1
    ) AS m ON true
    WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
    IF NOT FOUND THEN
        PERFORM agent_state._missing('conversation', 'conversation', conversation);
    END IF;
END
$$;
