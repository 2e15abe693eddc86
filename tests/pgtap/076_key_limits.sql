-- Text that a btree index keys is bounded in bytes as well as characters, so that
-- no argument within the limits surfaces 54000 ("index row requires ... bytes")
-- and multibyte text beyond them is refused with 22023 before anything is
-- written (SPEC section 6 and 10).
BEGIN;
SELECT plan(11);

\ir _setup.sql
-- n characters of two bytes each that barely compress (index entries are
-- compressed before they are measured).
CREATE FUNCTION pg_temp.noise(n integer, seed integer) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT pg_catalog.string_agg(pg_catalog.chr(256 + (i * 7919 + seed * 104729) % 1536), '' ORDER BY i)
      FROM generate_series(1, n) AS i $$;
-- The same in a 3-byte script (CJK): 1,000 characters are 3,000 bytes.
CREATE FUNCTION pg_temp.noise3(n integer, seed integer) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT pg_catalog.string_agg(pg_catalog.chr(19968 + (i * 7919 + seed * 104729) % 20000), '' ORDER BY i)
      FROM generate_series(1, n) AS i $$;
CREATE ROLE t076_op IN ROLE agent_state_operator;
SET ROLE t076_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t076-a'));
INSERT INTO pg_temp.ids SELECT 'u', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1');
INSERT INTO pg_temp.ids SELECT 'c', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1');

-- 1,000 characters of a 3-byte script: within the character limit, 3,000 bytes
-- that do not compress (an index entry is compressed before it is measured).
SELECT throws_ok($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', pg_temp.noise3(1000, 5))$$,
                 '22023', NULL, 'open_conversation: a 3,000-byte external_ref is 22023, not 54000');
SELECT throws_ok($$SELECT agent_state.open_conversation(pg_temp.id('a'), pg_temp.noise3(200, 6), 'C2')$$,
                 '22023', NULL, 'open_conversation: a 600-byte connector is 22023');
SELECT throws_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', pg_temp.noise3(1000, 5))$$,
                 '22023', NULL, 'resolve_actor: a 3,000-byte external_id is 22023, not 54000');
SELECT throws_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('u'), 'github', pg_temp.noise3(1000, 5))$$,
                 '22023', NULL, 'link_identity: a 3,000-byte external_id is 22023, not 54000');
SELECT throws_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('c'), pg_temp.id('u'), 'hi',
                                                    ARRAY[pg_temp.id('u')], pg_temp.noise3(1000, 5))$$,
                 '22023', NULL, 'record_message: a 3,000-byte external_ref is 22023, not 54000');
-- The largest keys allowed fit their indexes (incompressible text).
SELECT lives_ok($$SELECT agent_state.open_conversation(pg_temp.id('a'), pg_temp.noise(200, 1),
                                                        pg_temp.noise(1000, 2))$$,
                'open_conversation: a 400-byte connector with a 2,000-byte external_ref is stored');
SELECT lives_ok($$SELECT agent_state.resolve_actor(pg_temp.id('a'), pg_catalog.repeat('é', 200),
                      pg_catalog.repeat('é', 1000))$$,
                'resolve_actor: 200 two-byte characters and 1,000 more are stored');
SELECT lives_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('c'), pg_temp.id('u'), 'hi',
                      ARRAY[pg_temp.id('u')], pg_catalog.repeat('é', 1000))$$,
                'record_message: a 2,000-byte external_ref is stored');
SELECT lives_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('u'), pg_temp.noise(200, 3),
                                                    pg_temp.noise(1000, 4))$$,
                'link_identity: a 400-byte connector with a 2,000-byte id is stored');
RESET ROLE;
SELECT is((SELECT count(*) FROM agent_state.conversations WHERE runtime_agent_id = pg_temp.id('a')), 2::bigint,
          'the refused calls wrote no conversation');
SELECT is((SELECT count(*) FROM agent_state.actor_identities WHERE runtime_agent_id = pg_temp.id('a')), 3::bigint,
          'nor any identity');

SELECT * FROM finish();
ROLLBACK;
