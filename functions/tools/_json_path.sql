-- The JSON Schema subset that tool contracts use, and a validator for it.
--
-- Supported keywords: type (object, string, integer, number, boolean, array, null,
-- or a non-empty array of those), properties (object of subschemas), required
-- (array of distinct strings), enum (non-empty array), minimum, maximum (numbers),
-- items (one subschema), additionalProperties (boolean; absent means allowed, as in
-- JSON Schema), description and title (strings, ignored). Anything else is refused
-- with 22023 naming the path of the offending keyword. Semantics follow JSON
-- Schema: an integer is a number with no fractional part (1.0 is an integer);
-- minimum and maximum apply to numbers, properties/required/additionalProperties
-- to objects, items to arrays; other values pass those keywords.

-- Path of a member: .name for plain names, ["name"] (JSON-quoted) otherwise. A
-- member is a caller's key: past 64 characters only its start is shown, as
-- ["start"...], so that no message quotes a key whole (_quote_prefix).
CREATE FUNCTION agent_state._json_path(base text, member text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN pg_catalog.length(pg_catalog.substr(member, 1, 65)) > 64
            THEN base || '[' || pg_catalog.to_jsonb(pg_catalog.substr(member, 1, 64))::text || '...]'
        WHEN member ~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN base || '.' || member
        ELSE base || '[' || pg_catalog.to_jsonb(member)::text || ']'
    END
$$;
