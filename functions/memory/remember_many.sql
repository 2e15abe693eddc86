-- A batch of agent-authored memories (typically several facts from one message):
-- each item is written as remember writes it, all or nothing, in one call.
CREATE FUNCTION agent_state.remember_many(agent uuid, memories jsonb)
RETURNS TABLE (entry uuid, revision integer)
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    item jsonb;
    i integer := 0;
    failed text;
    state text;
    unknown text;
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._json_within(memories, 'memories');
    PERFORM agent_state._need_json(memories, 'memories', ARRAY['array']);
    IF pg_catalog.jsonb_array_length(memories) > 1000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'memories: more than 1000 items';
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
                MESSAGE = pg_catalog.format('memories[%s].%s: unknown key; known keys are body, '
                                            'source_message, subject, visibility', i, unknown);
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
