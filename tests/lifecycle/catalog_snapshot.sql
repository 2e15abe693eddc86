-- Everything agent_state's catalog says, one row per object property, for
-- comparing an upgraded database with a fresh install object by object:
-- (kind, object, definition). Owners are left out (the installing role differs
-- between databases only by name); privileges name roles, which match, and a
-- default ACL (NULL) is shown as what it means, as pg_dump leaves it out.
WITH ns AS (
    SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'agent_state'
),
rel AS (
    SELECT c.oid, c.relname, c.relkind
    FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = (SELECT oid FROM ns)
)
SELECT 'schema' AS kind, 'agent_state' AS object,
       pg_catalog.concat_ws(' | ', coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))::text,
                            pg_catalog.obj_description(n.oid, 'pg_namespace')) AS definition
FROM pg_catalog.pg_namespace AS n WHERE n.oid = (SELECT oid FROM ns)
UNION ALL
SELECT 'event trigger', e.evtname,
       pg_catalog.concat_ws(' | ', e.evtevent, e.evtenabled::text, e.evttags::text,
                            e.evtfoid::regprocedure::text)
FROM pg_catalog.pg_event_trigger AS e
JOIN pg_catalog.pg_proc AS p ON p.oid = e.evtfoid
WHERE p.pronamespace = (SELECT oid FROM ns)
UNION ALL
SELECT 'role', r.rolname,
       pg_catalog.concat_ws(' | ', r.rolcanlogin::text, r.rolinherit::text,
                            pg_catalog.shobj_description(r.oid, 'pg_authid'))
FROM pg_catalog.pg_roles AS r
WHERE r.rolname IN ('agent_state_operator', 'agent_state_runtime')
UNION ALL
SELECT 'relation', c.relname,
       pg_catalog.concat_ws(' | ', c.relkind::text, 'rls=' || c.relrowsecurity::text,
                            'force=' || c.relforcerowsecurity::text,
                            coalesce(c.relacl, pg_catalog.acldefault(CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END::"char", c.relowner))::text,
                            c.reloptions::text, c.relpersistence::text,
                            pg_catalog.obj_description(c.oid, 'pg_class'))
FROM pg_catalog.pg_class AS c JOIN rel USING (oid)
UNION ALL
SELECT 'column', rel.relname || '.' || a.attname,
       pg_catalog.concat_ws(' | ',
           'position ' || pg_catalog.row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum),
           pg_catalog.format_type(a.atttypid, a.atttypmod),
           CASE WHEN a.attnotnull THEN 'not null' END,
           'default ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid),
           'generated ' || NULLIF(a.attgenerated::text, ''),
           'identity ' || NULLIF(a.attidentity::text, ''),
           'collation ' || NULLIF(a.attcollation, 0)::regcollation::text,
           a.attacl::text,
           pg_catalog.col_description(a.attrelid, a.attnum))
FROM pg_catalog.pg_attribute AS a
JOIN rel ON rel.oid = a.attrelid AND rel.relkind IN ('r', 'p', 'v', 'm', 'f')
LEFT JOIN pg_catalog.pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint', rel.relname || '.' || k.conname,
       pg_catalog.concat_ws(' | ', pg_catalog.pg_get_constraintdef(k.oid),
                            pg_catalog.obj_description(k.oid, 'pg_constraint'))
FROM pg_catalog.pg_constraint AS k JOIN rel ON rel.oid = k.conrelid
UNION ALL
SELECT 'index', i.relname,
       pg_catalog.concat_ws(' | ', pg_catalog.pg_get_indexdef(i.oid),
                            pg_catalog.obj_description(i.oid, 'pg_class'))
FROM pg_catalog.pg_index AS x
JOIN rel ON rel.oid = x.indrelid
JOIN pg_catalog.pg_class AS i ON i.oid = x.indexrelid
UNION ALL
SELECT 'policy', rel.relname || '.' || p.polname,
       pg_catalog.concat_ws(' | ', p.polcmd::text, CASE WHEN p.polpermissive THEN 'permissive' ELSE 'restrictive' END,
           (SELECT pg_catalog.string_agg(CASE WHEN r = 0 THEN 'public' ELSE r::regrole::text END, ',' ORDER BY 1)
            FROM pg_catalog.unnest(p.polroles) AS r),
           'using ' || pg_catalog.pg_get_expr(p.polqual, p.polrelid),
           'check ' || pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid),
           pg_catalog.obj_description(p.oid, 'pg_policy'))
FROM pg_catalog.pg_policy AS p JOIN rel ON rel.oid = p.polrelid
UNION ALL
SELECT 'trigger', rel.relname || '.' || t.tgname,
       pg_catalog.concat_ws(' | ', pg_catalog.pg_get_triggerdef(t.oid), 'enabled ' || t.tgenabled::text,
                            pg_catalog.obj_description(t.oid, 'pg_trigger'))
FROM pg_catalog.pg_trigger AS t JOIN rel ON rel.oid = t.tgrelid
WHERE NOT t.tgisinternal
UNION ALL
SELECT 'sequence', rel.relname,
       pg_catalog.concat_ws(' | ', s.seqtypid::regtype::text, s.seqstart, s.seqincrement, s.seqmax,
                            s.seqmin, s.seqcache, s.seqcycle)
FROM pg_catalog.pg_sequence AS s JOIN rel ON rel.oid = s.seqrelid
UNION ALL
SELECT 'function', p.oid::regprocedure::text,
       pg_catalog.concat_ws(' | ', pg_catalog.pg_get_functiondef(p.oid),
                            coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))::text,
                            pg_catalog.obj_description(p.oid, 'pg_proc'))
FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = (SELECT oid FROM ns)
UNION ALL
SELECT 'type', t.typname,
       pg_catalog.concat_ws(' | ', t.typtype::text, t.typacl::text,
                            pg_catalog.obj_description(t.oid, 'pg_type'))
FROM pg_catalog.pg_type AS t
WHERE t.typnamespace = (SELECT oid FROM ns) AND t.typtype NOT IN ('c', 'b')
UNION ALL
-- Under CREATE EXTENSION: what belongs to the extension and which tables it dumps.
SELECT 'extension member', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid), ''
FROM pg_catalog.pg_depend AS d
JOIN pg_catalog.pg_extension AS e ON e.oid = d.refobjid AND e.extname = 'agent_state'
WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.deptype = 'e'
UNION ALL
SELECT 'extension config', c::regclass::text, ''
FROM pg_catalog.pg_extension AS e, pg_catalog.unnest(e.extconfig) AS c
WHERE e.extname = 'agent_state'
ORDER BY 1, 2, 3;
