-- Every agent-scoped function binds first (SPEC section 3), whatever its other
-- arguments: derived from the catalog, so a new function cannot forget its
-- binding. Each public function whose first parameter is `agent uuid` is
-- called with null for every other argument by a runtime that hosts another
-- agent, for an agent it does not host and for one that does not exist: both
-- 42501, before any other argument is looked at; and by an operator for an
-- agent that does not exist: P0002 (the operator-only functions included,
-- which a runtime cannot even execute).
BEGIN;

CREATE ROLE t021_rt IN ROLE agent_state_runtime;
CREATE ROLE t021_op IN ROLE agent_state_operator;
\ir _setup.sql
SELECT agent_state.create_agent('t021-mine') \g /dev/null
SELECT agent_state.create_agent('t021-other') \g /dev/null
INSERT INTO pg_temp.ids
SELECT 'mine', a.runtime_agent_id FROM agent_state.agents AS a WHERE a.handle = 't021-mine'
UNION ALL
SELECT 'other', a.runtime_agent_id FROM agent_state.agents AS a WHERE a.handle = 't021-other';
SELECT agent_state.grant_hosting(pg_temp.id('mine'), 't021_rt') \g /dev/null

-- Each call: agent as a literal, every other parameter null (typed).
CREATE TEMP TABLE calls AS
SELECT p.proname::text AS name,
       pg_catalog.format('SELECT agent_state.%I(%%L::uuid%s)', p.proname,
           (SELECT coalesce(pg_catalog.string_agg(', NULL::' || pg_catalog.format_type(t, NULL), '' ORDER BY n), '')
            FROM pg_catalog.unnest(p.proargtypes) WITH ORDINALITY AS a (t, n) WHERE n > 1)) AS template
FROM pg_catalog.pg_proc AS p
WHERE p.pronamespace = 'agent_state'::regnamespace
  AND p.proname NOT LIKE '\_%'
  AND p.proargnames[1] = 'agent'
  AND p.proargtypes[0] = 'uuid'::regtype
ORDER BY 1;
GRANT SELECT ON pg_temp.calls TO PUBLIC;

SELECT plan((SELECT 3 * count(*)::integer + 1 FROM pg_temp.calls));
SELECT cmp_ok((SELECT count(*)::integer FROM pg_temp.calls), '>=', 60,
              'the catalog lists the agent-scoped functions');

SET ROLE t021_rt;
SELECT throws_ok(pg_catalog.format(c.template, pg_temp.id('other')), '42501', NULL,
                 c.name || ': refused for an agent the runtime does not host')
FROM pg_temp.calls AS c ORDER BY c.name;
SELECT throws_ok(pg_catalog.format(c.template, gen_random_uuid()), '42501', NULL,
                 c.name || ': refused the same way for an agent that does not exist')
FROM pg_temp.calls AS c ORDER BY c.name;
RESET ROLE;
SET ROLE t021_op;
SELECT throws_ok(pg_catalog.format(c.template, gen_random_uuid()), 'P0002', NULL,
                 c.name || ': an operator naming an unknown agent: P0002')
FROM pg_temp.calls AS c ORDER BY c.name;
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
