-- The schema must be one that only its owner can add to, before anything is
-- created in it (install) or replaced in it (upgrade). The SECURITY DEFINER
-- functions resolve every helper by name in this schema: an object another role
-- put there (an exact-type overload of a helper, say) would run as the owner.
--
-- Refused (42501, nothing created or changed):
-- * a schema owned by a role other than the installing one (sql/schema.sql
--   refuses it at install; an upgrade checks it here);
-- * any right on the schema but USAGE held by a role other than its owner (CREATE
--   adds objects; a grant option passes rights on);
-- * any object in it owned by another role (only its creator owns an object, so
--   it was not made by the install);
-- * default privileges for the schema (ALTER DEFAULT PRIVILEGES IN SCHEMA
--   agent_state), which would grant rights on every object the install creates.
-- After the install, the event trigger of sql/guard.sql keeps it so (where the
-- installing role may create one).
DO $trust$
DECLARE
    home constant oid := 'agent_state'::regnamespace;
    schema_owner oid;
    culprit text;
BEGIN
    SELECT n.nspowner INTO schema_owner FROM pg_catalog.pg_namespace AS n WHERE n.oid = home;
    IF schema_owner OPERATOR(pg_catalog.<>) (SELECT a.oid FROM pg_catalog.pg_roles AS a
                                      WHERE a.rolname = current_user) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('schema agent_state is owned by %s, not by %s',
                                        schema_owner::regrole, current_user),
            HINT = 'Install or upgrade as the schema''s owner.';
    END IF;
    SELECT pg_catalog.format('%s holds %s%s on it',
                             CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END,
                             a.privilege_type,
                             CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
    INTO culprit
    FROM pg_catalog.pg_namespace AS n, pg_catalog.aclexplode(n.nspacl) AS a
    WHERE n.oid = home AND a.grantee OPERATOR(pg_catalog.<>) schema_owner
      AND (a.privilege_type OPERATOR(pg_catalog.<>) 'USAGE' OR a.is_grantable)
    ORDER BY a.grantee
    LIMIT 1;
    IF culprit IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = 'schema agent_state: ' || culprit,
            DETAIL = 'A role that may create objects in the schema could replace what the '
                || 'installed functions call, and act as their owner.',
            HINT = 'REVOKE CREATE ON SCHEMA agent_state FROM that role (and any grant option), '
                || 'check what it created there, then try again.';
    END IF;
    SELECT pg_catalog.format('%s %s is owned by %s', o.kind, o.name, o.owner::regrole)
    INTO culprit
    FROM (
        SELECT 'relation' AS kind, c.relname::text AS name, c.relowner AS owner
        FROM pg_catalog.pg_class AS c WHERE c.relnamespace = home
        UNION ALL
        SELECT 'function', p.oid::regprocedure::text, p.proowner
        FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = home
        UNION ALL
        SELECT 'type', t.typname::text, t.typowner
        FROM pg_catalog.pg_type AS t WHERE t.typnamespace = home
        UNION ALL
        SELECT 'operator', o.oid::regoperator::text, o.oprowner
        FROM pg_catalog.pg_operator AS o WHERE o.oprnamespace = home
        UNION ALL
        SELECT 'collation', l.collname::text, l.collowner
        FROM pg_catalog.pg_collation AS l WHERE l.collnamespace = home
        UNION ALL
        SELECT 'conversion', v.conname::text, v.conowner
        FROM pg_catalog.pg_conversion AS v WHERE v.connamespace = home
        UNION ALL
        SELECT 'operator class', k.opcname::text, k.opcowner
        FROM pg_catalog.pg_opclass AS k WHERE k.opcnamespace = home
        UNION ALL
        SELECT 'operator family', f.opfname::text, f.opfowner
        FROM pg_catalog.pg_opfamily AS f WHERE f.opfnamespace = home
        UNION ALL
        SELECT 'text search configuration', g.cfgname::text, g.cfgowner
        FROM pg_catalog.pg_ts_config AS g WHERE g.cfgnamespace = home
        UNION ALL
        SELECT 'text search dictionary', d.dictname::text, d.dictowner
        FROM pg_catalog.pg_ts_dict AS d WHERE d.dictnamespace = home
        UNION ALL
        SELECT 'statistics object', x.stxname::text, x.stxowner
        FROM pg_catalog.pg_statistic_ext AS x WHERE x.stxnamespace = home
    ) AS o
    WHERE o.owner OPERATOR(pg_catalog.<>) schema_owner
    ORDER BY o.kind, o.name
    LIMIT 1;
    IF culprit IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = 'schema agent_state holds an object the install did not create: '
                || pg_catalog.left(culprit, 200),
            DETAIL = 'The installed functions could resolve it and run it as their owner.',
            HINT = 'Find out who created it and why, drop it, then try again.';
    END IF;
    IF EXISTS (SELECT FROM pg_catalog.pg_default_acl AS d WHERE d.defaclnamespace = home) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = 'schema agent_state has default privileges (ALTER DEFAULT PRIVILEGES '
                || 'IN SCHEMA agent_state)',
            DETAIL = 'They would grant rights on the objects the install creates.',
            HINT = 'Remove them (ALTER DEFAULT PRIVILEGES ... IN SCHEMA agent_state REVOKE ...), '
                || 'then try again.';
    END IF;
END
$trust$;
