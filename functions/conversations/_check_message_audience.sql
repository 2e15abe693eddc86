-- A composite foreign key cannot reach into an array, so a constraint trigger does
-- the same job for audience members: each must be an actor of this perspective,
-- and only a public conversation may have a public (NULL) audience.
CREATE FUNCTION agent_state._check_message_audience()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    missing uuid;
BEGIN
    IF NEW.audience IS NULL THEN
        IF NOT EXISTS (
            SELECT FROM agent_state.conversations AS c
            WHERE c.runtime_agent_id = NEW.runtime_agent_id
              AND c.conversation_id = NEW.conversation_id
              AND c.kind = 'public'
        ) THEN
            RAISE EXCEPTION USING
                ERRCODE = '22004',
                MESSAGE = 'audience: required outside a public conversation';
        END IF;
        RETURN NULL;
    END IF;
    SELECT a INTO missing
    FROM pg_catalog.unnest(NEW.audience) AS a
    WHERE NOT EXISTS (
        SELECT FROM agent_state.actors AS x
        WHERE x.runtime_agent_id = NEW.runtime_agent_id AND x.actor_id = a
    )
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('audience: %s is not an actor of this perspective', missing);
    END IF;
    RETURN NULL;
END
$$;
