-- An agent-authored memory from a persisted message: the message's author is
-- the source actor and its audience the evidence (_insert_memory writes the
-- entry and its first revision).
CREATE FUNCTION agent_state.remember(
    agent uuid,
    body text,
    source_message uuid,
    subject uuid DEFAULT NULL,
    visibility text DEFAULT 'perspective'
)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent);
    -- Hot path: the helpers (which raise the errors) run only when their own
    -- condition holds, so valid arguments cost simple expressions, not calls.
    IF NOT agent_state._text_fits(body) THEN
        PERFORM agent_state._need_text(body, 'body');
    END IF;
    IF source_message IS NULL THEN
        PERFORM agent_state._need(source_message, 'source_message');
    END IF;
    IF visibility IS NULL OR visibility NOT IN ('perspective', 'conversation') THEN
        PERFORM agent_state._need_one_of(visibility, 'visibility', ARRAY['perspective', 'conversation']);
    END IF;
    IF subject IS NOT NULL THEN
        PERFORM agent_state._need_ref(agent, 'actor', subject, 'subject');
    END IF;
    -- Source actor and evidence come from the persisted message (an unknown
    -- message raises before anything is written).
    RETURN QUERY
    SELECT i.entry, i.revision
    FROM agent_state._insert_memory(agent, body, subject, visibility, 'agent', NULL, source_message, NULL) AS i;
END
$$;

COMMENT ON FUNCTION agent_state.remember(uuid, text, uuid, uuid, text) IS
'remember(agent, body, source_message, subject => null, visibility => ''perspective'') '
'-> (entry, revision): an agent-authored memory. source_message is required (22004) and must be '
'a message of this perspective (P0002; 23503 if another perspective''s): its author is the source '
'actor and its audience the evidence. subject: an actor of this perspective or null. visibility: '
'perspective or conversation (22023). body: 1 to 100,000 characters (22023).';
