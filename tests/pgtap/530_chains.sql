-- Tamper evidence (SPEC section 14): the hash chains, attacked as a superuser who
-- switches triggers off (session_replication_role = replica) and edits rows.
-- Each attack runs in a savepoint and is rolled back. The heads of records this
-- transaction wrote are left out by chain_head (they may yet roll back), so heads
-- over committed history are attacked in tests/python/test_chains.py.
BEGIN;
SET client_min_messages = warning;
SELECT plan(45);

CREATE ROLE t530_op IN ROLE agent_state_operator;
CREATE ROLE t530_ra IN ROLE agent_state_runtime;
CREATE ROLE t530_rb IN ROLE agent_state_runtime;
\ir _setup.sql

SET ROLE t530_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t530-a')), ('b', agent_state.create_agent('t530-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't530_ra') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be exact') \g /dev/null
INSERT INTO pg_temp.ids
SELECT 'e1', n.entry FROM agent_state.note(pg_temp.id('a'), 'the deploy key rotates on Mondays') AS n;
INSERT INTO pg_temp.ids
SELECT 'e2', n.entry FROM agent_state.note(pg_temp.id('a'), 'the launch is in May') AS n;
INSERT INTO pg_temp.ids
SELECT 'e3', n.entry FROM agent_state.note(pg_temp.id('a'), 'coffee is in the kitchen') AS n;
INSERT INTO pg_temp.ids
SELECT 'eb', n.entry FROM agent_state.note(pg_temp.id('b'), 'the vault code is 4711') AS n;
SELECT agent_state.amend(pg_temp.id('a'), pg_temp.id('e1'), 'the deploy key rotates on Fridays', 1) \g /dev/null
INSERT INTO pg_temp.ids VALUES ('c', agent_state.open_conversation(pg_temp.id('a'), 'chat', 't530-c'));
SELECT agent_state.share(pg_temp.id('a'), pg_temp.id('e3'), 1, pg_temp.id('c')) \g /dev/null
INSERT INTO pg_temp.ids VALUES ('r', agent_state.start_run(pg_temp.id('a')));
RESET ROLE;

-- Findings of one kind for agent a, as (check_name, table) pairs.
CREATE FUNCTION pg_temp.findings(agent uuid) RETURNS TABLE (check_name text, tbl text)
LANGUAGE sql AS $$
    SELECT DISTINCT v.check_name, pg_catalog.split_part(pg_catalog.split_part(v.object, ': ', 2), ' ', 1)
    FROM agent_state.verify(agent) AS v
    WHERE v.check_name LIKE 'chain%'
$$;

-- ---------------------------------------------------------------- the catalog
SELECT is_empty($$
    SELECT t.tbl FROM agent_state._chain_tables() AS t
    WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_trigger AS g
                      WHERE g.tgrelid = pg_catalog.format('agent_state.%I', t.tbl)::regclass
                        AND g.tgname IN ('zz_chain', 'zz_chain_again')
                        AND g.tgfoid = 'agent_state._tg_chain_stamp()'::regprocedure
                      HAVING pg_catalog.count(*) = 2)
$$, 'every record table of the chains is stamped on insert and update (zz_chain, zz_chain_again)');
SELECT is_empty($$
    SELECT t.tbl, g.tgname FROM agent_state._chain_tables() AS t
    JOIN pg_catalog.pg_trigger AS g ON g.tgrelid = pg_catalog.format('agent_state.%I', t.tbl)::regclass
    WHERE NOT g.tgisinternal AND g.tgtype & 2 = 2 AND g.tgname > 'zz_chain' AND g.tgname NOT LIKE 'zz\_chain\_%'
$$, 'the stamps are the last BEFORE triggers of each table (they see the settled row)');
SELECT is_empty($$
    SELECT t.tbl FROM agent_state._chain_tables() AS t
    WHERE (t.closing IS NOT NULL) <> EXISTS (
        SELECT FROM pg_catalog.pg_trigger AS g
        WHERE g.tgrelid = pg_catalog.format('agent_state.%I', t.tbl)::regclass
          AND g.tgname IN ('zz_chain_close', 'zz_chain_close_again')
          AND g.tgfoid = 'agent_state._tg_chain_close_stamp()'::regprocedure
        HAVING pg_catalog.count(*) = 2)
$$, 'exactly the tables whose records close have the closing stamp');
SELECT is_empty($$
    SELECT t.tbl, c.col FROM agent_state._chain_tables() AS t
    CROSS JOIN LATERAL pg_catalog.unnest(ARRAY['chain_at', 'chain_xact', 'chain_digest']
        || CASE WHEN t.closing IS NULL THEN '{}'::text []
                ELSE ARRAY['chain_close_at', 'chain_close_xact', 'chain_close_digest'] END) AS c (col)
    WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                      WHERE a.attrelid = pg_catalog.format('agent_state.%I', t.tbl)::regclass
                        AND a.attname = c.col AND NOT a.attisdropped)
$$, 'every record table has the chain columns');
SELECT is_empty($$
    SELECT t.tbl, x.col FROM agent_state._chain_tables() AS t
    CROSS JOIN LATERAL pg_catalog.unnest(coalesce(t.excluded, '{}') || coalesce(t.closing, '{}')
                                         || coalesce(t.stream, '{}') || ARRAY[t.erasable, t.numbered]) AS x (col)
    WHERE x.col IS NOT NULL AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_attribute AS a
        WHERE a.attrelid = pg_catalog.format('agent_state.%I', t.tbl)::regclass AND a.attname = x.col)
$$, '_chain_tables names only columns that exist');
SELECT is_empty($$
    SELECT r.entry_id FROM agent_state.memory_revisions AS r
    WHERE r.chain_digest IS NULL OR r.chain_at IS NULL OR r.chain_xact IS NULL
$$, 'every record written through the API is stamped');
SELECT is_empty($$ SELECT * FROM agent_state.verify() $$, 'verify() finds nothing in untouched history');

-- ---------------------------------------------------------------- chain_head, verify(expected_head)
SET ROLE t530_ra;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.chain_head(pg_temp.id('a'))), 1::bigint,
          'chain_head is a read verb for the agent''s host');
SELECT matches((SELECT h.digest FROM agent_state.chain_head(pg_temp.id('a')) AS h),
               '^ash1/[0-9]+/0/[0-9]+:[0-9]+:[0-9,]*/[0-9]+/[0-9a-f]{64}$',
               'a head leaves out the records of the asking transaction (they may roll back)');
SELECT throws_ok($$ SELECT * FROM agent_state.chain_head(pg_temp.id('b')) $$, '42501', NULL,
                 'chain_head of an agent the runtime does not host: 42501');
SELECT throws_ok($$ SELECT * FROM agent_state.verify(pg_temp.id('a')) $$, '42501', NULL,
                 'verify stays operator-only');
RESET ROLE;
SELECT throws_ok($$ SELECT * FROM agent_state.verify(pg_temp.id('a'), 'ash1/1/2/3') $$, '22023', NULL,
                 'a malformed expected_head: 22023');
SELECT throws_ok($$ SELECT * FROM agent_state.verify(NULL, 'ash1/1/0/10:10:/0/' || repeat('0', 64)) $$, '22023', NULL,
                 'an expected_head without its agent: 22023');
SELECT throws_ok($$ SELECT * FROM agent_state.verify(gen_random_uuid()) $$, 'P0002', NULL,
                 'verify of an unknown agent: P0002');
SELECT is_empty(pg_catalog.format('SELECT * FROM agent_state.verify(%L, %L)', pg_temp.id('a'),
                                  (SELECT h.digest FROM agent_state.chain_head(pg_temp.id('a')) AS h)),
                'the agent''s own head: no finding');
SELECT results_eq(
    pg_catalog.format('SELECT check_name FROM agent_state.verify(%L, %L)', pg_temp.id('a'),
                      (SELECT h.digest FROM agent_state.chain_head(pg_temp.id('b')) AS h)),
    $$ VALUES ('chain_head') $$,
    'a head of another agent is a finding, not an error');
SELECT results_eq(
    pg_catalog.format('SELECT check_name FROM agent_state.verify(%L, %L)', pg_temp.id('a'),
                      'ash1/1/0/10:10:/0/' || repeat('0', 64)),
    $$ VALUES ('chain_head') $$,
    'a head never issued is a finding');

-- ---------------------------------------------------------------- the attacks
-- T1: content tamper (the revision and the entry recall reads).
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions SET body = 'the launch is cancelled' WHERE entry_id = pg_temp.id('e2');
UPDATE agent_state.memory_entries SET body = 'the launch is cancelled' WHERE entry_id = pg_temp.id('e2');
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_changed', 'memory_revisions') $$,
                  'T1: a changed revision is reported, naming its table');
SELECT matches((SELECT v.object FROM agent_state.verify(pg_temp.id('a')) AS v WHERE v.check_name = 'chain_changed'),
               pg_temp.id('e2')::text, '... and its row');
SET ROLE t530_ra;
SELECT throws_ok($$ SELECT * FROM agent_state.recall(pg_temp.id('a'), 'launch') $$, 'XX001', NULL,
                 'T1: recall refuses the altered record (XX001)');
SELECT throws_like($$ SELECT * FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e2')) $$,
                   '%memory_revisions%' || pg_temp.id('e2') || '%',
                   'T1: memory_history refuses it, naming the table and row');
SELECT throws_ok($$ SELECT * FROM agent_state.memory_entry(pg_temp.id('a'), pg_temp.id('e2')) $$, 'XX001', NULL,
                 'T1: memory_entry refuses it');
SELECT lives_ok($$ SELECT * FROM agent_state.recall(pg_temp.id('a'), 'coffee') $$,
                'an intact record is still served');
RESET ROLE;
ROLLBACK TO SAVEPOINT attack;

-- The entry recall reads, changed alone.
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_entries SET body = 'coffee is gone' WHERE entry_id = pg_temp.id('e3');
RESET session_replication_role;
SELECT throws_like($$ SELECT * FROM agent_state.recall(pg_temp.id('a'), 'coffee', max_results => 5) $$,
                   '%memory_entries: entry ' || pg_temp.id('e3') || '%',
                   'recall refuses an entry that does not match its revision');
ROLLBACK TO SAVEPOINT attack;

-- T8: metadata tamper (content untouched).
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions SET created_by = 'someone_else', visibility = 'conversation'
WHERE entry_id = pg_temp.id('e3');
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_changed', 'memory_revisions') $$,
                  'T8: changed metadata is reported');
ROLLBACK TO SAVEPOINT attack;

-- T4: reordering: two revisions of one entry exchange their stamps.
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions AS r
SET chain_at = o.chain_at, chain_xact = o.chain_xact, chain_digest = o.chain_digest
FROM agent_state.memory_revisions AS o
WHERE r.entry_id = pg_temp.id('e1') AND o.entry_id = r.entry_id AND o.revision = 3 - r.revision;
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) ORDER BY 1 $$,
                  $$ VALUES ('chain_changed', 'memory_revisions'), ('chain_reordered', 'memory_revisions') $$,
                  'T4: reordered records are reported');
ROLLBACK TO SAVEPOINT attack;

-- T5: forged insertion: a copy of the newest revision, changed, appended.
SAVEPOINT attack;
SET session_replication_role = replica;
INSERT INTO agent_state.memory_revisions
SELECT (pg_catalog.jsonb_populate_record(r, '{"revision": 3, "operation": "amend", "body": "the deploy key is public"}')).*
FROM agent_state.memory_revisions AS r WHERE r.entry_id = pg_temp.id('e1') AND r.revision = 2;
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_copied', 'memory_revisions') $$,
                  'T5: a forged record carrying a genuine digest is reported as a copy');
ROLLBACK TO SAVEPOINT attack;
SAVEPOINT attack;
SET session_replication_role = replica;
INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision, operation, body, visibility, source_type)
VALUES (pg_temp.id('a'), pg_temp.id('e1'), 3, 'amend', 'the deploy key is public', 'perspective', 'operator');
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_inserted', 'memory_revisions') $$,
                  'T5: a record inserted without a digest is reported');
ROLLBACK TO SAVEPOINT attack;

-- T6: cross-context replay: agent b's genuine revision copied over one of a's.
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions AS r
SET body = o.body, created_at = o.created_at, chain_at = o.chain_at, chain_xact = o.chain_xact,
    chain_digest = o.chain_digest
FROM agent_state.memory_revisions AS o
WHERE r.entry_id = pg_temp.id('e2') AND o.entry_id = pg_temp.id('eb');
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_copied', 'memory_revisions') $$,
                  'T6: a record copied from another agent is reported as a copy');
ROLLBACK TO SAVEPOINT attack;

-- T7: rollback replay: the oldest revision's content over the newest.
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions AS r SET body = o.body
FROM agent_state.memory_revisions AS o
WHERE r.entry_id = pg_temp.id('e1') AND r.revision = 2 AND o.entry_id = r.entry_id AND o.revision = 1;
UPDATE agent_state.memory_entries SET body = 'the deploy key rotates on Mondays' WHERE entry_id = pg_temp.id('e1');
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_changed', 'memory_revisions') $$,
                  'T7: an older record replayed over the newest is reported');
SET ROLE t530_ra;
SELECT throws_ok($$ SELECT * FROM agent_state.recall(pg_temp.id('a'), 'deploy key') $$, 'XX001', NULL,
                 'T7: recall refuses it');
RESET ROLE;
ROLLBACK TO SAVEPOINT attack;

-- T3: a middle record deleted; and the revision an entry serves deleted.
SAVEPOINT attack;
SET session_replication_role = replica;
DELETE FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1') AND revision = 1;
RESET session_replication_role;
SELECT results_eq($$ SELECT * FROM pg_temp.findings(pg_temp.id('a')) $$,
                  $$ VALUES ('chain_deleted', 'memory_revisions') $$,
                  'T3: a deleted middle record is reported (a gap in its stream)');
ROLLBACK TO SAVEPOINT attack;
SAVEPOINT attack;
SET session_replication_role = replica;
DELETE FROM agent_state.memory_revisions WHERE entry_id = pg_temp.id('e1') AND revision = 2;
RESET session_replication_role;
SELECT ok(EXISTS (SELECT FROM pg_temp.findings(pg_temp.id('a')) AS f WHERE f.check_name = 'chain_deleted'),
          'T2 within an entry: its served revision deleted is reported');
SET ROLE t530_ra;
SELECT throws_ok($$ SELECT * FROM agent_state.recall(pg_temp.id('a'), 'deploy key') $$, 'XX001', NULL,
                 '... and recall refuses the entry');
RESET ROLE;
ROLLBACK TO SAVEPOINT attack;

-- A record others refer to, deleted whole: its stream shows no gap (it was the
-- only one), the reference that is left names it.
SAVEPOINT attack;
SET session_replication_role = replica;
DELETE FROM agent_state.persona_revisions WHERE runtime_agent_id = pg_temp.id('a');
RESET session_replication_role;
SELECT ok(EXISTS (SELECT FROM agent_state.verify(pg_temp.id('a')) AS v
                  WHERE v.check_name = 'chain_deleted' AND v.object LIKE '%persona_activations%'
                    AND v.detail LIKE '%persona_revisions%'),
          'a deleted record that another refers to is reported through the reference');
ROLLBACK TO SAVEPOINT attack;

-- Persona, run and snapshot records.
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.persona_revisions SET body = 'Obey every request' WHERE runtime_agent_id = pg_temp.id('a');
RESET session_replication_role;
SET ROLE t530_ra;
SELECT throws_ok($$ SELECT * FROM agent_state.active_persona(pg_temp.id('a')) $$, 'XX001', NULL,
                 'active_persona refuses an altered persona revision');
RESET ROLE;
ROLLBACK TO SAVEPOINT attack;
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.runs SET task_context = '{"goal": "exfiltrate"}' WHERE run_id = pg_temp.id('r');
RESET session_replication_role;
SET ROLE t530_ra;
SELECT throws_ok($$ SELECT agent_state.recover_run(pg_temp.id('a'), pg_temp.id('r')) $$, 'XX001', NULL,
                 'recover_run refuses an altered run');
RESET ROLE;
ROLLBACK TO SAVEPOINT attack;

-- With the triggers on, a stamp cannot be rewritten.
SELECT throws_ok($$ UPDATE agent_state.persona_revisions SET chain_digest = '\x00' $$, '42501', NULL,
                 'an append-only table refuses a change of its stamp');
SELECT throws_ok($$ UPDATE agent_state.runs SET chain_digest = '\x00' WHERE run_id = pg_temp.id('r') $$, '42501', NULL,
                 'a run refuses a change of its stamp');

-- ---------------------------------------------------------------- sanctioned changes keep every chain valid
SET ROLE t530_op;
SELECT agent_state.unshare(pg_temp.id('a'), pg_temp.id('e3'), 1, pg_temp.id('c')) \g /dev/null
SELECT agent_state.redact(pg_temp.id('a'), pg_temp.id('e2'), 'a test of erasure') \g /dev/null
SELECT agent_state.revise_persona(pg_temp.id('a'), 'Be exact and brief') \g /dev/null
SELECT agent_state.activate_persona(pg_temp.id('a'), 1) \g /dev/null
SELECT agent_state.finish_run(pg_temp.id('a'), pg_temp.id('r'), 'succeeded') \g /dev/null
RESET ROLE;
SELECT is_empty($$ SELECT * FROM agent_state.verify() $$,
                'unshare, redact, persona revert and a finished run keep every chain valid');
SELECT isnt((SELECT s.chain_close_digest FROM agent_state.memory_shares AS s
             WHERE s.runtime_agent_id = pg_temp.id('a')), NULL, 'a share''s removal has a stamp of its own');
SELECT isnt((SELECT r.chain_close_digest FROM agent_state.runs AS r WHERE r.run_id = pg_temp.id('r')), NULL,
            'a run''s outcome has a stamp of its own');
SET ROLE t530_ra;
SELECT lives_ok($$ SELECT * FROM agent_state.memory_history(pg_temp.id('a'), pg_temp.id('e2')) $$,
                'a redacted entry''s history is served (the digest counts the removed text''s sha256)');
RESET ROLE;
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_shares SET revoked_at = NULL, revoked_by = NULL WHERE runtime_agent_id = pg_temp.id('a');
RESET session_replication_role;
-- The findings leave the rolled-back attack in a psql variable: a test run
-- inside it would be rolled back from pgTAP's count too.
SELECT pg_catalog.string_agg(f::text, ';') AS found FROM pg_temp.findings(pg_temp.id('a')) AS f \gset
ROLLBACK TO SAVEPOINT attack;
SELECT is(:'found'::text, '(chain_changed,memory_shares)', 'a removed share made active again is reported');
SAVEPOINT attack;
SET session_replication_role = replica;
UPDATE agent_state.memory_revisions SET body = 'the launch moved to June' WHERE entry_id = pg_temp.id('e2');
RESET session_replication_role;
SELECT pg_catalog.string_agg(f::text, ';') AS found FROM pg_temp.findings(pg_temp.id('a')) AS f \gset
ROLLBACK TO SAVEPOINT attack;
SELECT is(:'found'::text, '(chain_changed,memory_revisions)', 'text written into a redacted revision is reported');

SELECT * FROM finish();
ROLLBACK;
