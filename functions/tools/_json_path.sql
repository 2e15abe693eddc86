-- Path of a member: .name for plain names, ["name"] (JSON-quoted) otherwise. A
-- member is a caller's key: past 64 characters only its start is shown, as
-- ["start"...], so that no message quotes a key whole (_quote_prefix).
CREATE FUNCTION agent_state._json_path(base text, member text)
RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN pg_catalog.length(pg_catalog.substr(member, 1, 65)) > 64
            THEN base || '[' || pg_catalog.to_jsonb(pg_catalog.substr(member, 1, 64))::text || '...]'
        WHEN member ~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN base || '.' || member
        ELSE base || '[' || pg_catalog.to_jsonb(member)::text || ']'
    END
$$;
