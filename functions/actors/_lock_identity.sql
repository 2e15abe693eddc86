-- The advisory lock on one identity (agent, connector, external id), held to
-- the end of the transaction: resolve_actor takes it before creating an actor
-- for a new identity and link_identity before linking one, so concurrent calls
-- for the same identity end with one actor.
CREATE FUNCTION agent_state._lock_identity(agent uuid, connector text, external_id text)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtextextended(agent::text || '/' || connector || '/' || external_id, 0));
END
$$;
