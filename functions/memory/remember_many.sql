-- A batch of agent-authored memories (typically several facts from one message):
-- each item is written as remember writes it, all or nothing, in one call.
--
-- Hot path: when every item is well-formed and names this agent's message (and
-- actor), all of them are written by one set-based statement, as _insert_memory
-- writes one. Otherwise the loop writes them one by one through remember, so the
-- first bad item is named with remember's own error.
CREATE FUNCTION agent_state.remember_many(agent uuid, memories jsonb)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    item jsonb;
    i integer := 0;
    failed text;
    state text;
    unknown text;
    n integer;
    ids uuid [];
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(memories, 'memories');
    PERFORM agent_state._need_json(memories, 'memories', ARRAY['array']);
    IF pg_catalog.jsonb_array_length(memories) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'memories: more than 1000 items';
    END IF;
    n := pg_catalog.jsonb_array_length(memories);
    WITH items AS MATERIALIZED (
        SELECT e.ord, e.item ->> 'body' AS body, (e.item ->> 'source_message')::uuid AS msg,
               (e.item ->> 'subject')::uuid AS subject,
               coalesce(e.item ->> 'visibility', 'perspective') AS visibility
        FROM pg_catalog.jsonb_array_elements(memories) WITH ORDINALITY AS e (item, ord)
        -- Conditions under which remember accepts the item; the casts above run
        -- only on rows that pass (a scan projects after its filter).
        WHERE pg_catalog.jsonb_typeof(e.item) = 'object'
          AND (e.item - ARRAY['body', 'source_message', 'subject', 'visibility']) = '{}'::jsonb
          AND pg_catalog.jsonb_typeof(e.item -> 'body') = 'string'
          AND agent_state._text_fits(e.item ->> 'body')
          AND pg_catalog.jsonb_typeof(e.item -> 'source_message') = 'string'
          AND (e.item ->> 'source_message') ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
          AND coalesce(pg_catalog.jsonb_typeof(e.item -> 'subject'), 'null') IN ('null', 'string')
          AND coalesce(e.item ->> 'subject', '00000000-0000-0000-0000-000000000000')
              ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
          AND coalesce(pg_catalog.jsonb_typeof(e.item -> 'visibility'), 'null') IN ('null', 'string')
          AND coalesce(e.item ->> 'visibility', 'perspective') IN ('perspective', 'conversation')
    ),
    src AS MATERIALIZED (
        SELECT i.ord, pg_catalog.gen_random_uuid() AS entry_id, i.body, i.subject, i.visibility, i.msg,
               m.author_id, m.audience, m.conversation_id
        FROM items AS i
        JOIN agent_state.messages AS m ON m.runtime_agent_id = agent AND m.message_id = i.msg
        WHERE i.subject IS NULL OR EXISTS (
            SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = i.subject
        )
    ),
    rev AS (
        INSERT INTO agent_state.memory_revisions AS r
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
             source_type, source_actor_id, source_message_id, evidence_observers, evidence_conversations)
        SELECT agent, s.entry_id, 1, 'create', s.body, s.subject, s.visibility,
               'agent', s.author_id, s.msg, s.audience, ARRAY[s.conversation_id]
        FROM src AS s
        -- All or none: a batch with a bad item writes nothing here.
        WHERE (SELECT pg_catalog.count(*) FROM src) = n
        RETURNING r.entry_id, r.created_at
    ),
    ent AS (
        INSERT INTO agent_state.memory_entries AS w
            (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
             source_type, evidence_observers, evidence_conversations, revised_at)
        SELECT agent, s.entry_id, 1, true, s.body, s.subject, s.visibility,
               'agent', s.audience, ARRAY[s.conversation_id], rev.created_at
        FROM src AS s
        JOIN rev ON rev.entry_id = s.entry_id
        RETURNING w.entry_id
    )
    SELECT pg_catalog.array_agg(s.entry_id ORDER BY s.ord) INTO ids
    FROM src AS s
    JOIN ent ON ent.entry_id = s.entry_id;
    IF n > 0 AND pg_catalog.cardinality(ids) = n THEN
        RETURN QUERY SELECT u.id, 1 FROM pg_catalog.unnest(ids) WITH ORDINALITY AS u (id, ord) ORDER BY u.ord;
        RETURN;
    END IF;

    FOR item IN SELECT e.value FROM pg_catalog.jsonb_array_elements(memories) AS e LOOP
        IF pg_catalog.jsonb_typeof(item) <> 'object' THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = pg_catalog.format('memories[%s]: must be a JSON object', i);
        END IF;
        SELECT k INTO unknown FROM pg_catalog.jsonb_object_keys(item) AS k
        WHERE k <> ALL (ARRAY['body', 'source_message', 'subject', 'visibility']) ORDER BY k LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023',
                MESSAGE = pg_catalog.format('%s: unknown key; known keys are body, '
                                            'source_message, subject, visibility',
                                            agent_state._json_path(pg_catalog.format('memories[%s]', i), unknown));
        END IF;
        SELECT k INTO unknown FROM pg_catalog.unnest(ARRAY['source_message', 'subject']) AS k
        WHERE item ? k AND pg_catalog.jsonb_typeof(item -> k) <> 'null'
          AND (item ->> k) !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = pg_catalog.format('memories[%s].%s: must be a UUID', i, unknown);
        END IF;
        BEGIN
            SELECT r.entry, r.revision INTO entry, revision
            FROM agent_state.remember(
                agent,
                item ->> 'body',
                (item ->> 'source_message')::uuid,
                (item ->> 'subject')::uuid,
                coalesce(item ->> 'visibility', 'perspective')
            ) AS r;
        EXCEPTION WHEN OTHERS THEN
            -- The same error, naming the item: memories[3].body: ...
            GET STACKED DIAGNOSTICS failed = MESSAGE_TEXT, state = RETURNED_SQLSTATE;
            RAISE EXCEPTION USING
                ERRCODE = state,
                MESSAGE = pg_catalog.format('memories[%s].%s', i, failed);
        END;
        RETURN NEXT;
        i := i + 1;
    END LOOP;
END
$$;

COMMENT ON FUNCTION agent_state.remember_many(uuid, jsonb) IS
'remember_many(agent, memories jsonb) -> (entry, revision) per item: memories is an array of '
'up to 1,000 objects {"body", "source_message", "subject" (optional), "visibility" (optional)}, '
'each written as remember writes it; all or nothing. An error names the item: '
'memories[i].<argument> with remember''s SQLSTATE.';
