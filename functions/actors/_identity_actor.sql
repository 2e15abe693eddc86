-- The actor an identity (connector, external id) names in this perspective, or
-- NULL: the one lookup of resolve_actor (before and after it takes the
-- identity's lock) and link_identity. PL/pgSQL, so the lookup's plan is cached
-- for the session (a SQL function with a SET clause is planned on every call).
CREATE FUNCTION agent_state._identity_actor(agent uuid, connector text, external_id text)
RETURNS uuid
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (
        SELECT i.actor_id
        FROM agent_state.actor_identities AS i
        WHERE i.runtime_agent_id = _identity_actor.agent AND i.connector = _identity_actor.connector
          AND i.external_id = _identity_actor.external_id
    );
END
$$;
