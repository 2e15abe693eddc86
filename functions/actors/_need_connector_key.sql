-- A connector key: the connector (1-200 characters, at most 400 bytes) and the
-- reference it knows something by, named arg (_need_external_key). Identities
-- (resolve_actor, link_identity) and conversations (open_conversation) are
-- keyed so; a btree index keys the connector, hence its bound in bytes.
CREATE FUNCTION agent_state._need_connector_key(connector text, external text, arg text)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need_text(connector, 'connector', 200);
    PERFORM agent_state._need_text_bytes(connector, 'connector', 400);
    PERFORM agent_state._need_external_key(external, arg);
END
$$;
