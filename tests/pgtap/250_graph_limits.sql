-- The limits of the LangGraph store and checkpointer arguments: every value
-- within them is stored (whatever its characters, and however badly it
-- compresses), so no index ever surfaces 54000; one byte beyond is 22023 naming
-- the argument; and a huge array or label is refused from its size, before it
-- is read or copied.
BEGIN;
SET client_min_messages = warning;
SELECT plan(46);

CREATE ROLE t250_op IN ROLE agent_state_operator;
\ir _setup.sql
-- n characters that pglz cannot compress (index entries are compressed when
-- they can be: only incompressible text reaches the limit), of one byte each,
-- or of three (CJK).
CREATE FUNCTION pg_temp.ascii(n integer) RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.chr(97 + (pg_catalog.random() * 25)::integer), ''), '')
    FROM pg_catalog.generate_series(1, n)
$$;
CREATE FUNCTION pg_temp.cjk(n integer) RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(pg_catalog.string_agg(pg_catalog.chr(20000 + (pg_catalog.random() * 20000)::integer), ''), '')
    FROM pg_catalog.generate_series(1, n)
$$;
-- A namespace of n labels, each of the given text.
CREATE FUNCTION pg_temp.ns(n integer, label_len integer) RETURNS text [] LANGUAGE sql VOLATILE AS $$
    SELECT pg_catalog.array_agg(pg_temp.ascii(label_len)) FROM pg_catalog.generate_series(1, n)
$$;
-- (Owned by the test's superuser: the operator reads the table through the API only.)
CREATE FUNCTION pg_temp.items() RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER AS $$
    SELECT pg_catalog.count(*) FROM agent_state.graph_items
$$;

SET ROLE t250_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t250-a'));

-- Store: the largest items. 100 labels of 9 bytes take the most room per byte
-- of label (each label's length word and alignment); 4 of 200 and one of 100
-- are the longest labels; CJK counts three bytes a character.
SELECT lives_ok($$SELECT agent_state.graph_item_put(pg_temp.id('a'), pg_temp.ns(100, 9), pg_temp.ascii(1000), '{}', 'b')$$,
                'graph_item_put: 100 labels of 9 bytes and a 1,000-byte key (both incompressible) are stored');
SELECT lives_ok($$SELECT agent_state.graph_item_put(pg_temp.id('a'), pg_temp.ns(4, 200) || pg_temp.ascii(100),
                                                    pg_temp.ascii(1000), '{}', 'b')$$,
                'graph_item_put: 900 bytes in labels of 200 and a 1,000-byte key are stored');
SELECT lives_ok($$SELECT agent_state.graph_item_put(pg_temp.id('a'),
                      ARRAY[pg_temp.cjk(66), pg_temp.cjk(66), pg_temp.cjk(66), pg_temp.cjk(66), pg_temp.cjk(36)],
                      pg_temp.cjk(333), '{}', 'b')$$,
                'graph_item_put: a namespace and key of CJK characters within the byte limits are stored');
SELECT is(pg_temp.items(), 3::bigint, 'the three largest items are there');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, max_results => 10)),
          3::bigint, 'and read back');

-- One beyond, in each direction: 22023, nothing written.
SELECT throws_ok(s, '22023', NULL, d)
FROM (VALUES
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), pg_temp.ns(4, 200) || pg_temp.ascii(101), 'k', '{}', 'b')$$,
     'graph_item_put: labels of 901 bytes together: 22023'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), ARRAY[pg_temp.ascii(201)], 'k', '{}', 'b')$$,
     'graph_item_put: a label of 201 bytes: 22023'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), ARRAY[pg_temp.cjk(67)], 'k', '{}', 'b')$$,
     'graph_item_put: a label of 67 CJK characters (201 bytes): 22023'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), pg_temp.ns(101, 1), 'k', '{}', 'b')$$,
     'graph_item_put: 101 labels: 22023'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), ARRAY['n'], pg_temp.ascii(1001), '{}', 'b')$$,
     'graph_item_put: a key of 1,001 bytes: 22023'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), ARRAY['n'], pg_temp.cjk(334), '{}', 'b')$$,
     'graph_item_put: a key of 334 CJK characters (1,002 bytes): 22023'),
    -- What the limits of 0.2.0 allowed and the primary key refused with 54000.
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), pg_temp.ns(100, 200), 'k', '{}', 'b')$$,
     'graph_item_put: 100 labels of 200 characters: 22023, not 54000'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), pg_temp.ns(10, 200), pg_temp.ascii(1000), '{}', 'b')$$,
     'graph_item_put: a 2,000-character namespace with a 1,000-character key: 22023, not 54000'),
    ($$SELECT agent_state.graph_item_delete(pg_temp.id('a'), pg_temp.ns(4, 200) || pg_temp.ascii(101), 'k')$$,
     'graph_item_delete: labels of 901 bytes: 22023'),
    ($$SELECT agent_state.graph_item_delete(pg_temp.id('a'), ARRAY['n'], pg_temp.ascii(1001))$$,
     'graph_item_delete: a key of 1,001 bytes: 22023'),
    ($$SELECT agent_state.graph_item_search(pg_temp.id('a'), pg_temp.ns(101, 1))$$,
     'graph_item_search: a prefix of 101 labels: 22023'),
    ($$SELECT agent_state.graph_item_search(pg_temp.id('a'), ARRAY['n'], item_key => pg_temp.ascii(1001))$$,
     'graph_item_search: an item_key of 1,001 bytes: 22023'),
    ($$SELECT agent_state.graph_list_namespaces(pg_temp.id('a'), ARRAY[pg_temp.ascii(201)])$$,
     'graph_list_namespaces: a prefix label of 201 bytes: 22023'),
    ($$SELECT agent_state.graph_list_namespaces(pg_temp.id('a'), suffix => pg_temp.ns(101, 1))$$,
     'graph_list_namespaces: a suffix of 101 labels: 22023')
) AS t (s, d);
SELECT is(pg_temp.items(), 3::bigint, 'the refused puts wrote nothing');

-- Huge arrays and labels: refused from their size (the 0.2.0 code read and
-- copied them, over a gigabyte for 100 MB, and listed namespaces with them).
CREATE TEMP TABLE huge AS SELECT pg_catalog.repeat('a', 10000000) AS label;
SELECT throws_ok(s, '22023', NULL, d)
FROM (VALUES
    ($$SELECT agent_state.graph_list_namespaces(pg_temp.id('a'), ARRAY[(SELECT label FROM huge)])$$,
     'graph_list_namespaces: a 10 MB prefix label: 22023'),
    ($$SELECT agent_state.graph_list_namespaces(pg_temp.id('a'), suffix => ARRAY[(SELECT label FROM huge)])$$,
     'graph_list_namespaces: a 10 MB suffix label: 22023'),
    ($$SELECT agent_state.graph_list_namespaces(pg_temp.id('a'),
                                                 pg_catalog.array_fill('*'::text, ARRAY[1000000]))$$,
     'graph_list_namespaces: a prefix of a million labels: 22023'),
    ($$SELECT agent_state.graph_item_put(pg_temp.id('a'), ARRAY[(SELECT label FROM huge)], 'k', '{}', 'b')$$,
     'graph_item_put: a 10 MB namespace label: 22023'),
    ($$SELECT agent_state.graph_item_delete(pg_temp.id('a'), ARRAY[(SELECT label FROM huge)], 'k')$$,
     'graph_item_delete: a 10 MB namespace label: 22023'),
    ($$SELECT agent_state.graph_item_search(pg_temp.id('a'), ARRAY[(SELECT label FROM huge)])$$,
     'graph_item_search: a 10 MB prefix label: 22023')
) AS t (s, d);

-- Checkpointer: the largest keys are stored; beyond, 22023.
SELECT lives_ok($$SELECT agent_state.graph_put(pg_temp.id('a'), pg_temp.ascii(1000), pg_temp.ascii(1000),
                      pg_temp.ascii(200), pg_temp.ascii(200), 'json', '\x00',
                      pg_catalog.jsonb_build_object('run_id', pg_temp.ascii(200)))$$,
                'graph_put: the largest thread, namespace, checkpoint, parent and run ids are stored');
SELECT lives_ok($$SELECT agent_state.graph_put(pg_temp.id('a'), pg_temp.cjk(333), pg_temp.cjk(333),
                      pg_temp.cjk(66), pg_temp.cjk(66), 'json', '\x00',
                      pg_catalog.jsonb_build_object('run_id', pg_temp.cjk(66)))$$,
                'graph_put: and the same in CJK characters within the byte limits');
SELECT lives_ok($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), pg_temp.ascii(1000), pg_temp.ascii(1000),
                      pg_temp.ascii(200), pg_temp.ascii(400), pg_temp.ascii(1000), '{0}', '{c}', '{json}',
                      ARRAY['\x00'::bytea])$$,
                'graph_put_writes: the largest thread, namespace, checkpoint and task ids and task path are stored');
SELECT throws_ok(s, '22023', NULL, d)
FROM (VALUES
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', '1', pg_temp.ascii(201), 'json', '\x00', '{}')$$,
     'graph_put: a parent_checkpoint_id of 201 bytes: 22023'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', '1', pg_catalog.repeat('p', 10000000), 'json', '\x00',
                                    '{}')$$,
     'graph_put: a 10 MB parent_checkpoint_id: 22023 (it was stored)'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', '', '1', NULL, 'json', '\x00',
                                    pg_catalog.jsonb_build_object('run_id', pg_temp.ascii(201)))$$,
     'graph_put: a metadata.run_id of 201 bytes: 22023'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), pg_temp.cjk(334), '', '1', NULL, 'json', '\x00', '{}')$$,
     'graph_put: a thread_id of 334 CJK characters (1,002 bytes): 22023, not 54000'),
    ($$SELECT agent_state.graph_put(pg_temp.id('a'), 't', pg_temp.cjk(334), '1', NULL, 'json', '\x00', '{}')$$,
     'graph_put: a checkpoint_ns of 1,002 bytes: 22023, not 54000'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', pg_temp.cjk(334), '1', 'task', '', '{0}', '{c}',
                                           '{json}', ARRAY['\x00'::bytea])$$,
     'graph_put_writes: a checkpoint_ns of 1,002 bytes: 22023, not 54000'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', pg_temp.ascii(201), 'task', '', '{0}', '{c}',
                                           '{json}', ARRAY['\x00'::bytea])$$,
     'graph_put_writes: a checkpoint_id of 201 bytes: 22023'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', '1', 'task', pg_temp.ascii(1001), '{0}', '{c}',
                                           '{json}', ARRAY['\x00'::bytea])$$,
     'graph_put_writes: a task_path of 1,001 characters: 22023'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', '1', 'task', pg_catalog.repeat('p', 10000000),
                                           '{0}', '{c}', '{json}', ARRAY['\x00'::bytea])$$,
     'graph_put_writes: a 10 MB task_path: 22023 (it was stored)'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', '1', pg_temp.ascii(401), '', '{0}', '{c}',
                                           '{json}', ARRAY['\x00'::bytea])$$,
     'graph_put_writes: a task_id of 401 bytes: 22023'),
    ($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), pg_temp.ascii(1000), pg_temp.ascii(1000),
                                           pg_temp.ascii(200), pg_temp.ascii(1000), '', '{0}', '{c}', '{json}',
                                           ARRAY['\x00'::bytea])$$,
     'graph_put_writes: the keys at the 0.2.0 limits (a 1,000-character task id): 22023, not 54000'),
    ($$SELECT agent_state.graph_copy_thread(pg_temp.id('a'), 't', pg_temp.cjk(334))$$,
     'graph_copy_thread: a target_thread_id of 1,002 bytes: 22023')
) AS t (s, d);

-- A null write array is named (all four were once reported as idxs).
SELECT throws_ok($$SELECT agent_state.graph_put_writes(pg_temp.id('a'), 't', '', '1', 'task', '', '{0}', '{c}',
                                                       NULL, ARRAY['\x00'::bytea])$$,
                 '22004', 'value_types: must not be null', 'graph_put_writes: a null value_types is named');

-- Counts name the argument at fault (skip was once reported as max_results).
SELECT throws_ok($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, skip => -1)$$,
                 '22023', 'skip: must not be negative', 'a negative skip names skip');
SELECT throws_ok($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, skip => NULL)$$,
                 '22004', 'skip: must not be null', 'a null skip names skip');
SELECT throws_ok($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, max_results => -1)$$,
                 '22023', 'max_results: must not be negative', 'a negative max_results names max_results');
SELECT lives_ok($$SELECT * FROM agent_state.graph_item_search(pg_temp.id('a'), NULL, max_results => 0, skip => 0)$$,
                'zero results and no skip are fine (LangGraph''s limit 0)');

SELECT * FROM finish();
ROLLBACK;
