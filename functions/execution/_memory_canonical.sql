-- Is memory, a snapshot's memory sources, in the usual form: a non-empty JSON
-- array of exactly {"entry": lower-case uuid, "revision": 1 .. 999999999}? Its
-- canonical text shows that (jsonb prints keys in a fixed order, strings
-- unescaped only when plain), and then every element passes the detailed
-- checks and its casts cannot fail. The hot path of snapshot_prompt and
-- record_turn; anything else takes their detailed path. A SQL function with no
-- SET clause, inlined into its callers (pinned SECURITY DEFINER functions; only
-- the owner may execute it).
CREATE FUNCTION agent_state._memory_canonical(memory jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT memory::pg_catalog.text OPERATOR(pg_catalog.~) (
        '^\[\{"entry": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "revision": [1-9][0-9]{0,8}\}'
        '(, \{"entry": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "revision": [1-9][0-9]{0,8}\})*\]$'
    )
$$;
