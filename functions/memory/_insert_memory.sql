-- The one writer of new memory entries: remember, note and import_markdown all
-- create entries here, so an entry, its first revision and its evidence are always
-- written the same way.
--
-- _insert_memory(agent, body, subject, visibility, source_type, source_actor,
--   source_message, source_import) -> (entry, revision): the caller has bound the
-- call and checked body, subject and visibility. With a source_message the source
-- actor is that message's author (a different source_actor is refused, 22023),
-- its audience becomes evidence_observers (NULL when public) and its conversation
-- evidence_conversations; an unknown message raises P0002 (23503 when it belongs
-- to another perspective). Without one the entry restricts nobody (operator
-- notes, imports).
CREATE FUNCTION agent_state._insert_memory(
    agent uuid,
    body text,
    subject uuid,
    visibility text,
    source_type text,
    source_actor uuid,
    source_message uuid,
    source_import bigint
)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    new_entry uuid := pg_catalog.gen_random_uuid();
    author uuid;
    observers uuid [];
    convs uuid [] := '{}'::uuid [];
BEGIN
    IF source_message IS NOT NULL THEN
        SELECT m.author_id, m.audience, ARRAY[m.conversation_id]
        INTO author, observers, convs
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = agent AND m.message_id = source_message;
        IF NOT FOUND THEN
            PERFORM agent_state._missing('message', 'source_message', source_message);
        END IF;
        IF source_actor IS NOT NULL AND source_actor <> author THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = 'source_actor: must be the author of the source message';
        END IF;
    ELSIF source_actor IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'source_actor: only the author of a source message can be the source actor';
    END IF;

    -- The source message is the revision's evidence (its source_message_id
    -- column): a new entry has no evidence rows. One statement, so that even
    -- with SET CONSTRAINTS ALL IMMEDIATE the checks see the entry and its
    -- revision together.
    WITH rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, source_actor_id, source_message_id, source_import_id,
             evidence_observers, evidence_conversations)
        SELECT agent, new_entry, 1, 'create', body, subject, visibility,
               source_type, author, source_message, source_import, observers, convs
        RETURNING r.created_at
    )
    INSERT INTO agent_state.memory_entries
        (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
         source_type, evidence_observers, evidence_conversations, revised_at)
    SELECT agent, new_entry, 1, true, body, subject, visibility,
           source_type, observers, convs, rev.created_at
    FROM rev;

    entry := new_entry;
    revision := 1;
    RETURN NEXT;
END
$$;
