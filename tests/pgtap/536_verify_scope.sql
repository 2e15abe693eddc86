-- verify(agent) reads that agent's rows only: its work (the row checks it runs,
-- the records it hashes) does not grow with the other agents of the database.
-- Counted with track_functions: the calls of the per-row check and of the chain
-- hash in this transaction, before and after another agent grows.
BEGIN;
SELECT plan(4);

CREATE ROLE t536_op IN ROLE agent_state_operator;
\ir _setup.sql
SET LOCAL track_functions = 'all';
CREATE FUNCTION pg_temp.calls(fn text) RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT coalesce((SELECT f.calls FROM pg_catalog.pg_stat_xact_user_functions AS f
                     WHERE f.schemaname = 'agent_state' AND f.funcname = fn), 0)
$$;
-- The work of one verify() call: calls of the entry check, of the chain hash and
-- of the lineage walk (one per redaction looked at).
CREATE FUNCTION pg_temp.work(agent uuid) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    checks bigint := pg_temp.calls('_check_entry_state');
    hashes bigint := pg_temp.calls('_chain_fault');
    walks bigint := pg_temp.calls('_lineage');
BEGIN
    PERFORM pg_catalog.count(*) FROM agent_state.verify(agent);
    RETURN pg_catalog.format('%s entry checks, %s records hashed, %s lineage walks',
                             pg_temp.calls('_check_entry_state') - checks, pg_temp.calls('_chain_fault') - hashes,
                             pg_temp.calls('_lineage') - walks);
END
$$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_temp TO PUBLIC;

SET ROLE t536_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t536-a')),
    ('b', agent_state.create_agent('t536-b'));
SELECT agent_state.note(pg_temp.id('a'), 'fact ' || g) FROM pg_catalog.generate_series(1, 3) AS g \g /dev/null
SELECT agent_state.note(pg_temp.id('b'), 'fact ' || g) FROM pg_catalog.generate_series(1, 3) AS g \g /dev/null
-- b has a redaction already, so verify(a) walks a lineage before b grows too.
SELECT agent_state.redact(pg_temp.id('b'), l.entry, 'erasure')
FROM agent_state.list_memories(pg_temp.id('b'), max_results => 1) AS l \g /dev/null

CREATE TEMP TABLE before AS
SELECT pg_temp.work(pg_temp.id('a')) AS a, pg_temp.work(pg_temp.id('b')) AS b, pg_temp.work(NULL) AS everyone;
SELECT agent_state.note(pg_temp.id('b'), 'more ' || g) FROM pg_catalog.generate_series(1, 40) AS g \g /dev/null
SELECT agent_state.redact(pg_temp.id('b'), l.entry, 'erasure')
FROM agent_state.list_memories(pg_temp.id('b'), max_results => 5) AS l \g /dev/null

SELECT is(pg_temp.work(pg_temp.id('a')), (SELECT a FROM before),
          'verify(agent): the same work after another agent grew by 40 entries and 5 redactions');
SELECT isnt(pg_temp.work(pg_temp.id('b')), (SELECT b FROM before),
            'verify(agent) of the agent that grew does more (the counting works)');
SELECT isnt(pg_temp.work(NULL), (SELECT everyone FROM before),
            'and so does verify() of every agent');
SELECT is_empty($$ SELECT * FROM agent_state.verify(pg_temp.id('a')) $$, 'and finds nothing wrong');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
