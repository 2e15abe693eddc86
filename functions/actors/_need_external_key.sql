-- An external reference a connector knows something by (an identity's
-- external_id, a conversation's or message's external_ref): 1-1000 characters
-- and, since a btree index keys it, at most 2,000 bytes (no value surfaces
-- 54000).
CREATE FUNCTION agent_state._need_external_key(val text, arg text)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need_text(val, arg, 1000);
    PERFORM agent_state._need_text_bytes(val, arg, 2000);
END
$$;
