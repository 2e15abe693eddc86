-- The memory sources of a snapshot, [{"entry": uuid, "revision": n}], parsed when
-- every element has the usual form: exactly those two keys, the entry a
-- lower-case uuid string, the revision a plain integer 1 .. 999999999 (ok, and
-- the two arrays in element order). Otherwise ok is false and the caller takes
-- its detailed path, which names the first malformed element or accepts the
-- unusual valid forms. memory must be a JSON array. Each test is a CASE branch,
-- so nothing is cast or subtracted from an element of the wrong type. Inlined
-- into its callers (pinned SECURITY DEFINER functions; only the owner may
-- execute it): a set-returning SQL function without a SET clause.
CREATE FUNCTION agent_state._memory_sources(memory jsonb)
RETURNS TABLE (ok boolean, entries uuid [], revisions integer [])
LANGUAGE sql
STABLE
AS $$
    SELECT coalesce(pg_catalog.bool_and(c.ok), true),
           pg_catalog.array_agg(CASE WHEN c.ok THEN (e.elem OPERATOR(pg_catalog.->>) 'entry')::uuid END
                                ORDER BY e.ord),
           pg_catalog.array_agg(CASE WHEN c.ok THEN (e.elem OPERATOR(pg_catalog.->>) 'revision')::integer END
                                ORDER BY e.ord)
    FROM pg_catalog.jsonb_array_elements(memory) WITH ORDINALITY AS e (elem, ord)
    CROSS JOIN LATERAL (
        SELECT CASE
            WHEN pg_catalog.jsonb_typeof(e.elem) OPERATOR(pg_catalog.<>) 'object' THEN false
            WHEN (e.elem OPERATOR(pg_catalog.-) ARRAY['entry', 'revision']) OPERATOR(pg_catalog.<>) '{}'::jsonb
                THEN false
            WHEN coalesce(pg_catalog.jsonb_typeof(e.elem OPERATOR(pg_catalog.->) 'entry'), '')
                OPERATOR(pg_catalog.<>) 'string' THEN false
            WHEN coalesce(pg_catalog.jsonb_typeof(e.elem OPERATOR(pg_catalog.->) 'revision'), '')
                OPERATOR(pg_catalog.<>) 'number' THEN false
            ELSE (e.elem OPERATOR(pg_catalog.->>) 'entry')
                     OPERATOR(pg_catalog.~) '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                AND (e.elem OPERATOR(pg_catalog.->>) 'revision') OPERATOR(pg_catalog.~) '^[1-9][0-9]{0,8}$'
        END AS ok
    ) AS c
$$;
