-- Catalog checks for schema agent_state: security properties that must hold
-- for every object, whoever wrote it.
--
-- Returns one row per violation (check, object, detail); no rows means pass.
-- The test driver fails the lint stage on any row and names the objects.
--
--   security_definer_search_path  SECURITY DEFINER function without a pinned
--                                 search_path, or with one that names a schema
--                                 other roles can create objects in ("$user",
--                                 public) or does not end with pg_temp (pg_temp
--                                 is searched first for tables and types unless
--                                 it is listed, and last).
--   unpinned_callable             function without a pinned search_path that a
--                                 role other than its owner may execute. Only
--                                 internal, inlinable SQL helpers may go without
--                                 SET search_path (a SET clause prevents
--                                 inlining), and then only the owner's SECURITY
--                                 DEFINER functions, which pin the path, may
--                                 reach them. One exception: _restoring(),
--                                 which trigger WHEN clauses evaluate as the
--                                 writing role; its body schema-qualifies every
--                                 name and operator.
--   rls_not_forced                table without row-level security ENABLEd and
--                                 FORCEd.
--   public_execute                function executable by PUBLIC (a NULL proacl
--                                 means the default: EXECUTE for PUBLIC).
--   public_privilege              table, view or sequence with any privilege
--                                 granted to PUBLIC.
--   view_owner_rights             view readable by a role other than its owner
--                                 that runs with its owner's rights (no
--                                 security_invoker): the owner bypasses RLS.
--   foreign_owner                 object in the schema not owned by the
--                                 schema's owner (planted or stray object).
--
-- Run by hand: psql -X -f tests/lint/catalog_checks.sql
WITH ns AS (
    SELECT
        n.oid,
        n.nspowner
    FROM pg_catalog.pg_namespace AS n
    WHERE n.nspname = 'agent_state'
),

fn AS (
    SELECT
        p.oid,
        p.prosecdef,
        p.proacl,
        p.proowner,
        p.oid::pg_catalog.regprocedure::pg_catalog.text AS name,
        (
            SELECT pg_catalog.substr(cfg, pg_catalog.length('search_path=') + 1)
            FROM pg_catalog.unnest(p.proconfig) AS cfg
            WHERE cfg LIKE 'search\_path=%'
        ) AS search_path
    FROM pg_catalog.pg_proc AS p
    INNER JOIN ns ON ns.oid = p.pronamespace
),

rel AS (
    SELECT
        c.oid,
        c.relkind,
        c.relacl,
        c.relowner,
        c.relrowsecurity,
        c.relforcerowsecurity,
        c.reloptions,
        c.oid::pg_catalog.regclass::pg_catalog.text AS name
    FROM pg_catalog.pg_class AS c
    INNER JOIN ns ON ns.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
)

SELECT
    'security_definer_search_path' AS check,
    fn.name AS object,
    CASE
        WHEN fn.search_path IS NULL THEN 'SECURITY DEFINER without SET search_path'
        ELSE 'SECURITY DEFINER with unsafe search_path = ' || fn.search_path
    END AS detail
FROM fn
WHERE
    fn.prosecdef
    AND (
        fn.search_path IS NULL
        OR fn.search_path ~* '(^|[\s,])("?\$user"?|"?public"?)\s*(,|$)'
        OR fn.search_path !~* '(^|[\s,])"?pg_temp"?\s*$'
    )

UNION ALL
SELECT
    'unpinned_callable',
    fn.name,
    'no SET search_path, but executable by '
    || coalesce(
        (
            SELECT
                pg_catalog.string_agg(
                    CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE a.grantee::pg_catalog.regrole::pg_catalog.text END,
                    ', ' ORDER BY a.grantee
                )
            FROM pg_catalog.aclexplode(fn.proacl) AS a
            WHERE a.privilege_type = 'EXECUTE' AND a.grantee <> fn.proowner
        ),
        'PUBLIC'
    )
FROM fn
WHERE
    fn.search_path IS NULL
    AND fn.name <> 'agent_state._restoring()'
    AND (
        fn.proacl IS NULL
        OR EXISTS (
            SELECT
            FROM pg_catalog.aclexplode(fn.proacl) AS a
            WHERE a.privilege_type = 'EXECUTE' AND a.grantee <> fn.proowner
        )
    )

UNION ALL
SELECT
    'rls_not_forced',
    rel.name,
    pg_catalog.concat_ws(
        ' and ',
        CASE WHEN NOT rel.relrowsecurity THEN 'row level security not enabled' END,
        CASE WHEN NOT rel.relforcerowsecurity THEN 'row level security not forced' END
    )
FROM rel
WHERE
    rel.relkind IN ('r', 'p')
    AND NOT (rel.relrowsecurity AND rel.relforcerowsecurity)

UNION ALL
SELECT
    'public_execute',
    fn.name,
    CASE
        WHEN fn.proacl IS NULL THEN 'default privileges: EXECUTE granted to PUBLIC'
        ELSE 'EXECUTE granted to PUBLIC'
    END
FROM fn
WHERE
    fn.proacl IS NULL
    OR EXISTS (
        SELECT
        FROM pg_catalog.aclexplode(fn.proacl) AS a
        WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE'
    )

UNION ALL
SELECT
    'public_privilege',
    rel.name,
    (
        SELECT pg_catalog.string_agg(a.privilege_type, ', ' ORDER BY a.privilege_type)
        FROM pg_catalog.aclexplode(rel.relacl) AS a
        WHERE a.grantee = 0
    ) || ' granted to PUBLIC'
FROM rel
WHERE EXISTS (
    SELECT
    FROM pg_catalog.aclexplode(rel.relacl) AS a
    WHERE a.grantee = 0
)

UNION ALL
SELECT
    'view_owner_rights',
    rel.name,
    'view readable by other roles runs with its owner''s rights; add WITH (security_invoker = true)'
FROM rel
WHERE
    rel.relkind = 'v'
    AND NOT coalesce(
        'security_invoker=true' = ANY(rel.reloptions)
        OR 'security_invoker=on' = ANY(rel.reloptions),
        false
    )
    AND EXISTS (
        SELECT
        FROM pg_catalog.aclexplode(rel.relacl) AS a
        WHERE a.grantee <> rel.relowner
    )

UNION ALL
SELECT
    'foreign_owner',
    o.name,
    'owned by ' || o.owner::pg_catalog.regrole::pg_catalog.text
    || ', schema owned by ' || ns.nspowner::pg_catalog.regrole::pg_catalog.text
FROM (
    SELECT
        fn.name,
        fn.proowner AS owner
    FROM fn
    UNION ALL
    SELECT
        rel.name,
        rel.relowner
    FROM rel
    UNION ALL
    SELECT
        t.oid::pg_catalog.regtype::pg_catalog.text,
        t.typowner
    FROM pg_catalog.pg_type AS t
    INNER JOIN ns ON ns.oid = t.typnamespace
    WHERE t.typtype IN ('c', 'd', 'e', 'r', 'm') AND t.typrelid = 0
) AS o
CROSS JOIN ns
WHERE o.owner <> ns.nspowner

ORDER BY 1, 2;
