-- Side channels: no error, number or count that a role sees may depend on another
-- perspective's rows. A runtime with a DBA's table grants probes another agent's
-- memory through insert triggers that run before row-level security; numbers that a
-- global sequence handed out would count another agent's imports, shares,
-- activations and messages.
BEGIN;
SET client_min_messages = warning;
SELECT plan(14);

CREATE ROLE t510_op IN ROLE agent_state_operator;
CREATE ROLE t510_ra LOGIN IN ROLE agent_state_runtime;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA agent_state TO t510_ra;
\ir _setup.sql
-- The SQLSTATE and message a statement fails with ('ok' when it succeeds), ids
-- masked.
CREATE FUNCTION pg_temp.outcome(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': '
        || pg_catalog.regexp_replace(SQLERRM, '[0-9a-f]{8}-[0-9a-f-]{27}', '<id>', 'g');
END
$$;
CREATE FUNCTION pg_temp.gen_missing() RETURNS uuid LANGUAGE sql
AS $$ SELECT '00000000-0000-4000-8000-000000000510'::uuid $$;

SET ROLE t510_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t510-a')),
    ('b', agent_state.create_agent('t510-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't510_ra') \g /dev/null
INSERT INTO pg_temp.ids VALUES
    ('bob', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U1')),
    ('bconv', agent_state.open_conversation(pg_temp.id('b'), 'slack', 'C1', 'direct'));
INSERT INTO pg_temp.ids VALUES
    ('bmsg', agent_state.record_message(pg_temp.id('b'), pg_temp.id('bconv'), pg_temp.id('bob'), 'hi',
                                        ARRAY[pg_temp.id('bob')]));
INSERT INTO pg_temp.ids SELECT 'bentry', r.entry
FROM agent_state.remember(pg_temp.id('b'), 'Bob likes tea', pg_temp.id('bmsg')) AS r;
SELECT agent_state.amend(pg_temp.id('b'), pg_temp.id('bentry'), 'Bob likes green tea', 1) \g /dev/null
RESET ROLE;

-- ---------------------------------------------------------------- probing through insert triggers
SET ROLE t510_ra;
SELECT is(
    pg_temp.outcome($$INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
                      VALUES (pg_temp.id('b'), pg_temp.id('bentry'), 2, pg_temp.id('bmsg'))$$),
    pg_temp.outcome($$INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
                      VALUES (pg_temp.id('b'), pg_temp.id('bentry'), 9, pg_temp.id('bmsg'))$$),
    'evidence for a revision of another agent that exists fails exactly like one that does not');
SELECT matches(
    pg_temp.outcome($$INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
                      VALUES (pg_temp.id('b'), pg_temp.id('bentry'), 2, pg_temp.id('bmsg'))$$),
    '^42501: runtime_agent_id: role t510_ra may not act for agent',
    'and it fails on the agent, before anything of that agent is read');
SELECT is(
    pg_temp.outcome($$INSERT INTO agent_state.memory_shares (runtime_agent_id, share_id, entry_id, revision,
                      conversation_id) VALUES (pg_temp.id('b'), 1, pg_temp.id('bentry'), 2, pg_temp.id('bconv'))$$),
    pg_temp.outcome($$INSERT INTO agent_state.memory_shares (runtime_agent_id, share_id, entry_id, revision,
                      conversation_id) VALUES (pg_temp.id('b'), 1, pg_temp.id('bentry'), 7, pg_temp.id('bconv'))$$),
    'a share of another agent''s revision fails the same whether the revision exists or not');
SELECT is(
    pg_temp.outcome($$INSERT INTO agent_state.memory_imports (runtime_agent_id, import_id, document,
                      document_sha256) VALUES (pg_temp.id('b'), 1, 'x', 'x')$$),
    pg_temp.outcome($$INSERT INTO agent_state.memory_imports (runtime_agent_id, import_id, document,
                      document_sha256) VALUES (pg_temp.gen_missing(), 1, 'x', 'x')$$),
    'an import into another agent fails the same as one into an agent that does not exist');
RESET ROLE;
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                  WHERE a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped)
      AND EXISTS (SELECT FROM pg_catalog.pg_trigger AS g JOIN pg_catalog.pg_proc AS f ON f.oid = g.tgfoid
                  WHERE g.tgrelid = c.oid AND NOT g.tgisinternal AND g.tgtype & 7 = 7 AND f.prosecdef
                    AND g.tgname <> 'stamp_created')
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_trigger AS g
                      WHERE g.tgrelid = c.oid AND g.tgname = c.relname || '_0_scope_guard'
                        AND g.tgfoid = 'agent_state._tg_guard_scope()'::regprocedure)
$$, 'every agent-owned table whose insert triggers read as the owner is guarded first');

-- ---------------------------------------------------------------- no global numbering
SELECT is_empty($$
    SELECT c.relname FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind = 'S'
$$, 'the schema has no sequence');
SELECT hasnt_column('agent_state', 'messages', 'seq', 'messages carry no global sequence number');

SET ROLE t510_op;
SELECT agent_state.import_markdown(pg_temp.id('b'), E'- b one\n') \g /dev/null
SELECT agent_state.import_markdown(pg_temp.id('b'), E'- b two\n') \g /dev/null
SELECT agent_state.import_markdown(pg_temp.id('b'), E'- b three\n') \g /dev/null
SELECT agent_state.import_markdown(pg_temp.id('a'), E'- a one\n') \g /dev/null
RESET ROLE;
SELECT is((SELECT pg_catalog.array_agg(i.import_id ORDER BY i.import_id) FROM agent_state.memory_imports AS i
           WHERE i.runtime_agent_id = pg_temp.id('a')), ARRAY[1]::bigint [],
          'imports are numbered per agent: another agent''s three imports leave no gap');
SELECT is((SELECT pg_catalog.array_agg(i.import_id ORDER BY i.import_id) FROM agent_state.memory_imports AS i
           WHERE i.runtime_agent_id = pg_temp.id('b')), ARRAY[1, 2, 3]::bigint [],
          'the other agent counts its own from 1');
SET ROLE t510_ra;
SELECT matches(agent_state.export_markdown(pg_temp.id('a')), 'import 1\M',
               'export_markdown shows the agent''s own import number');
RESET ROLE;

SET ROLE t510_op;
SELECT agent_state.revise_persona(pg_temp.id('b'), 'B one') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('b'), 'B two') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'A one') \g /dev/null
SELECT agent_state.share(pg_temp.id('b'), pg_temp.id('bentry'), 2, pg_temp.id('bconv')) \g /dev/null
RESET ROLE;
SELECT is((SELECT pg_catalog.array_agg(x.activation_id) FROM agent_state.persona_activations AS x
           WHERE x.runtime_agent_id = pg_temp.id('a')), ARRAY[1]::bigint [],
          'persona activations are numbered per agent');
SELECT is((SELECT pg_catalog.array_agg(x.share_id) FROM agent_state.memory_shares AS x
           WHERE x.runtime_agent_id = pg_temp.id('b')), ARRAY[1]::bigint [],
          'shares are numbered per agent');
-- The number comes from the database, whatever the INSERT says.
GRANT INSERT ON agent_state.memory_imports TO t510_op;
SET ROLE t510_op;
INSERT INTO agent_state.memory_imports (runtime_agent_id, import_id, document, document_sha256)
VALUES (pg_temp.id('a'), 1000, 'forged', 'x');
RESET ROLE;
SELECT is((SELECT i.import_id FROM agent_state.memory_imports AS i
           WHERE i.runtime_agent_id = pg_temp.id('a') AND i.document = 'forged'), 2::bigint,
          'a supplied number is replaced by the next one of the agent');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.verify()), 0::bigint, 'verify() finds nothing wrong');

SELECT * FROM finish();
ROLLBACK;
