-- agent_state router: privileges, loaded after router.sql and api.sql.
-- Privileges of the router's own functions (the API's are granted in api.sql,
-- as on a shard): nothing for PUBLIC; the helpers a call evaluates as the
-- caller for both group roles (each shard checks every call again); what
-- writes the directory, moves agents or checks the shards for operators only;
-- add_shard for its owner (a superuser) only.
DO $privileges$
DECLARE
    f record;
    operator_only constant text [] := ARRAY[
        '_reserve', '_placed', '_directory_set', '_resolve', '_lock_for_move',
        '_directory_entry', '_directory_all', '_dsn_names_user', 'move_agent', 'shard_check'
    ];
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS sig, p.proname::text AS name,
               p.pronamespace = 'agent_state'::regnamespace AS api
        FROM pg_catalog.pg_proc AS p
        WHERE p.pronamespace = 'agent_state_router'::regnamespace
           OR (p.pronamespace = 'agent_state'::regnamespace
               AND p.proname IN ('add_shard', 'move_agent', 'shard_check'))
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f.sig);
        CONTINUE WHEN f.name = 'add_shard';
        IF f.name = ANY (operator_only) THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO agent_state_operator', f.sig);
        ELSE
            EXECUTE pg_catalog.format(
                'GRANT EXECUTE ON FUNCTION %s TO agent_state_operator, agent_state_runtime', f.sig);
        END IF;
    END LOOP;
END
$privileges$;
