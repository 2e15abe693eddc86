-- A composite foreign key cannot reach into an array, so this does the same job
-- for audience members: each must be an actor of this perspective, and only a
-- public conversation may have a public (NULL) audience. Run after each message
-- insert and by verify().
CREATE FUNCTION agent_state._check_audience(agent uuid, conversation uuid, audience uuid [])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    missing uuid;
BEGIN
    IF audience IS NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.conversations AS c
            WHERE c.runtime_agent_id = agent
              AND c.conversation_id = conversation
              AND c.kind = 'public'
        ) THEN
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'audience: required outside a public conversation';
        END IF;
        RETURN;
    END IF;
    SELECT a INTO missing
    FROM pg_catalog.unnest(audience) AS a
    WHERE NOT EXISTS (
        SELECT FROM agent_state.actors AS x
        WHERE x.runtime_agent_id = agent AND x.actor_id = a
    )
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('audience: %s is not an actor of this perspective', missing);
    END IF;
    RETURN;
END
$$;
