CREATE FUNCTION agent_state.context_for(
    agent uuid,
    conversation uuid,
    message uuid DEFAULT NULL,
    max_results integer DEFAULT 20,
    match text DEFAULT 'any',
    query_embedding real [] DEFAULT NULL,
    embedding_model text DEFAULT NULL
)
RETURNS TABLE (
    entry uuid, revision integer, body text, subject uuid, score double precision,
    text_rank double precision, subject_match boolean, age interval
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    msg_conversation uuid;
    msg_body text;
    msg_author uuid;
    msg_audience uuid [];
    known boolean := false;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need(conversation, 'conversation');
    PERFORM agent_state._need_count(max_results, 'max_results');
    IF message IS NOT NULL THEN
        PERFORM agent_state._need_ref(agent, 'conversation', conversation, 'conversation');
        SELECT m.conversation_id, m.body, m.author_id, m.audience
        INTO msg_conversation, msg_body, msg_author, msg_audience
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'message', message);
        END IF;
        IF msg_conversation <> conversation THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002',
                MESSAGE = pg_catalog.format('message: %s is not a message of conversation %s',
                                            message, conversation);
        END IF;
        known := true;
    ELSE
        -- One statement: the conversation, and its latest message if any.
        SELECT coalesce(m.known, false), m.body, m.author_id, m.audience
        INTO known, msg_body, msg_author, msg_audience
        FROM agent_state.conversations AS c
        LEFT JOIN LATERAL (
            SELECT true AS known, x.body, x.author_id, x.audience
            FROM agent_state.messages AS x
            WHERE x.runtime_agent_id = agent AND x.conversation_id = conversation
            ORDER BY x.observed_at DESC, x.created_at DESC, x.message_id DESC
            LIMIT 1
        ) AS m ON true
        WHERE c.runtime_agent_id = agent AND c.conversation_id = conversation;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('conversation', 'conversation', conversation);
        END IF;
    END IF;
    -- Relevance to a message: its words (any of them by default), from its first
    -- 10,000 characters, ranked like recall (none without a message).
    RETURN QUERY
    SELECT r.entry, r.revision, r.body, r.subject, r.score, r.text_rank, r.subject_match, r.age
    FROM agent_state._rank_memory(agent, pg_catalog.left(msg_body, 10000), match, conversation,
                                  known, msg_audience, msg_author, max_results, NULL, true,
                                  query_embedding, embedding_model) AS r
    WHERE agent_state._chain_served_memory(agent, r.entry, r.revision, r.body, r.subject);
END
$$;

COMMENT ON FUNCTION agent_state.context_for(uuid, uuid, uuid, integer, text, real [], text) IS
'context_for(agent, conversation, message => null, max_results => 20, match => ''any'', '
'query_embedding => null, embedding_model => null) -> same columns as recall: '
'memory for automatic prompt context. The message (default: the conversation''s latest) gives '
'the text, the current subject (its author) and the target audience (its audience). Eligible '
'entries matching any word of the message (rare words weighing more; match ''all'': every '
'word) come first, ranked as '
'recall ranks them (with query_embedding: fused with the nearest, as recall does); the newest '
'other eligible entries fill up to max_results (text_rank 0, score 0). A message without words, '
'or a conversation without messages, ranks every eligible entry by subject and recency. message '
'not in the conversation: P0002 (23503 if another perspective''s). max_results: null 22004, '
'< 1 22023, capped at 1000.';
