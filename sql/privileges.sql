-- Function privileges, written once for the whole schema (this file loads last).
-- PostgreSQL grants EXECUTE to PUBLIC on every new function, and default
-- privileges (ALTER DEFAULT PRIVILEGES FOR ROLE <installer>) may grant it to other
-- roles: take every grant back (an upgrade also takes back EXECUTE granted by
-- hand on a function: grant membership in a group role instead), then grant the
-- public API to the two group roles. Operator-only functions are not
-- granted to runtimes at all (they check again inside). Internal helpers stay
-- ungranted, except those that row-level-security policies and trigger WHEN
-- clauses evaluate as the querying or writing role.
DO $privileges$
DECLARE
    f record;
    grantee text;
    operator_only constant text [] := ARRAY[
        'create_agent', 'grant_hosting', 'revoke_hosting', 'revise_profile',
        'revise_persona', 'activate_persona',
        'note', 'share', 'unshare', 'redact',
        'register_tool', 'grant_tool', 'import_markdown', 'verify', 'index_embeddings',
        'restore_agent', 'fork_agent', 'fork_origin', 'export_agent', 'import_agent',
        'move_step', 'shard_inventory'
    ];
    policy_helpers constant text [] := ARRAY[
        '_caller', '_caller_is_operator', '_hosted_agents', '_restoring', '_own_write',
        '_copying'
    ];
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS sig, p.proname::text AS name
        FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = 'agent_state'::regnamespace
        ORDER BY p.oid
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f.sig);
        FOR grantee IN
            SELECT DISTINCT pg_catalog.quote_ident(r.rolname)
            FROM pg_catalog.pg_proc AS p, pg_catalog.aclexplode(p.proacl) AS a
            JOIN pg_catalog.pg_roles AS r ON r.oid = a.grantee
            WHERE p.oid = f.sig AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
        LOOP
            EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM %s CASCADE', f.sig, grantee);
        END LOOP;
        IF f.name = ANY (operator_only) THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO agent_state_operator', f.sig);
        ELSIF f.name = ANY (policy_helpers) OR f.name NOT LIKE '\_%' THEN
            EXECUTE pg_catalog.format(
                'GRANT EXECUTE ON FUNCTION %s TO agent_state_operator, agent_state_runtime', f.sig);
        END IF;
    END LOOP;
END
$privileges$;
