CREATE FUNCTION agent_state.amend(
    agent uuid,
    entry uuid,
    body text,
    expected_revision integer,
    source_message uuid DEFAULT NULL,
    subject uuid DEFAULT NULL,
    visibility text DEFAULT NULL
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    caller_kind text;
    cur record;
    msg_author uuid;
    msg_audience uuid [];
    msg_conversation uuid;
    new_subject uuid;
    new_visibility text;
    new_source_type text;
    observers uuid [];
    convs uuid [];
BEGIN
    caller_kind := agent_state._bind(agent);
    -- Hot path: the helpers raise, and run only when their condition holds.
    IF entry IS NULL THEN
        PERFORM agent_state._need(entry, 'entry');
    END IF;
    IF NOT agent_state._text_fits(body) THEN
        PERFORM agent_state._need_text(body, 'body');
    END IF;
    IF expected_revision IS NULL THEN
        PERFORM agent_state._need(expected_revision, 'expected_revision');
    END IF;
    IF visibility IS NOT NULL THEN
        PERFORM agent_state._need_one_of(visibility, 'visibility', ARRAY['perspective', 'conversation']);
    END IF;
    IF subject IS NOT NULL THEN
        PERFORM agent_state._need_ref(agent, 'actor', subject, 'subject');
    END IF;
    IF source_message IS NOT NULL THEN
        SELECT m.author_id, m.audience, m.conversation_id
        INTO msg_author, msg_audience, msg_conversation
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = source_message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'source_message', source_message);
        END IF;
    END IF;

    SELECT * INTO cur FROM agent_state._lock_live_entry(agent, entry, expected_revision);
    new_visibility := coalesce(visibility, cur.visibility);
    IF cur.visibility = 'conversation' AND new_visibility = 'perspective' THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'visibility: can only narrow (perspective to conversation), never widen';
    END IF;
    new_subject := coalesce(subject, cur.subject_id);

    -- Evidence: everything the previous revision had, plus the new message. Who
    -- may observe it all is the intersection of the audiences (NULL = nobody
    -- restricted).
    observers := cur.evidence_observers;
    convs := cur.evidence_conversations;
    IF source_message IS NOT NULL THEN
        new_source_type := 'agent';
        IF msg_audience IS NOT NULL THEN
            IF observers IS NULL THEN
                observers := msg_audience;
            ELSE
                observers := ARRAY(
                    SELECT o FROM pg_catalog.unnest(observers) AS o
                    WHERE o = ANY (msg_audience)
                );
            END IF;
        END IF;
        IF NOT msg_conversation = ANY (convs) THEN
            convs := convs || msg_conversation;
        END IF;
    ELSIF caller_kind = 'operator' THEN
        new_source_type := 'operator';
    ELSE
        new_source_type := 'agent';
    END IF;

    -- The new revision's evidence is the previous revision's plus source_message.
    RETURN agent_state._append_revision(
        agent, entry, cur.current_revision, 'amend', body, new_subject, new_visibility,
        new_source_type, msg_author, source_message, observers, convs, NULL);
END
$$;

COMMENT ON FUNCTION agent_state.amend(uuid, uuid, text, integer, uuid, uuid, text) IS
'amend(agent, entry, body, expected_revision, source_message => null, subject => null, '
'visibility => null) -> int: appends a revision and returns its number. expected_revision '
'(required, 22004) must be the current revision, else 40001 and nothing is written. Forgotten or '
'redacted entry: 55000. Evidence: all earlier evidence plus source_message (P0002/23503 if not '
'this perspective''s). null subject or visibility keeps the current value; visibility only '
'narrows (perspective to conversation; widening: 22023). source_type: agent with the message''s '
'author as source actor when a source_message is given; otherwise operator for operators, agent '
'(no source actor) for runtimes.';
