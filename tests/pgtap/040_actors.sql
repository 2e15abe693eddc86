-- Actors and identities (SPEC section 4): resolve_actor is idempotent and
-- per perspective; link_identity links inside one perspective only.
BEGIN;
SET client_min_messages = warning;
SELECT plan(36);

CREATE ROLE t040_op IN ROLE agent_state_operator;
CREATE ROLE t040_ra LOGIN IN ROLE agent_state_runtime;
CREATE ROLE t040_rb LOGIN IN ROLE agent_state_runtime;
\ir _setup.sql
CREATE FUNCTION pg_temp.actor_rows() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT (SELECT pg_catalog.count(*) FROM agent_state.actors) || '/'
        || (SELECT pg_catalog.count(*) FROM agent_state.actor_identities)
$$;

SET ROLE t040_op;
INSERT INTO pg_temp.ids VALUES
    ('a', agent_state.create_agent('t040-a')),
    ('b', agent_state.create_agent('t040-b'));
SELECT agent_state.grant_hosting(pg_temp.id('a'), 't040_ra'),
       agent_state.grant_hosting(pg_temp.id('b'), 't040_rb') \g /dev/null
RESET ROLE;

-- ---------------------------------------------------------------- resolve_actor
SET ROLE t040_ra;
INSERT INTO pg_temp.ids VALUES
    ('ann', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ANN', 'Ann')),
    ('bot', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'B-1', 'Deploy bot', 'bot'));
SELECT is(agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ANN'), pg_temp.id('ann'),
          'resolving the same identity again returns the same actor');
SELECT is(agent_state.resolve_actor(agent => pg_temp.id('a'), connector => 'slack', external_id => 'U-ANN',
                                    display_name => 'Someone else', kind => 'system'),
          pg_temp.id('ann'), 'with other display_name and kind: still the same actor');
RESET ROLE;
SELECT is((SELECT x.display_name || '/' || x.kind FROM agent_state.actors AS x WHERE x.actor_id = pg_temp.id('ann')),
          'Ann/human', 'resolving again changes nothing about the actor (kind defaults to human)');
SELECT is((SELECT x.kind FROM agent_state.actors AS x WHERE x.actor_id = pg_temp.id('bot')),
          'bot', 'kind is stored');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actor_identities AS i
           WHERE i.runtime_agent_id = pg_temp.id('a') AND i.connector = 'slack' AND i.external_id = 'U-ANN'),
          1::bigint, 'one identity row after three resolutions');
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actors AS x WHERE x.runtime_agent_id = pg_temp.id('a')),
          2::bigint, 'agent A has exactly two actors');
SELECT is((SELECT x.created_by::text FROM agent_state.actors AS x WHERE x.actor_id = pg_temp.id('ann')),
          't040_ra', 'actors.created_by is the calling runtime role');
SELECT is((SELECT i.created_by::text FROM agent_state.actor_identities AS i WHERE i.actor_id = pg_temp.id('ann')),
          't040_ra', 'actor_identities.created_by is the calling runtime role');

SET ROLE t040_ra;
SELECT isnt(agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-BEN'), pg_temp.id('ann'),
            'another external_id is another actor');
SELECT isnt(agent_state.resolve_actor(pg_temp.id('a'), 'github', 'U-ANN'), pg_temp.id('ann'),
            'the same external_id on another connector is another actor');
SELECT ok(agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'S-1', NULL, k) IS NOT NULL,
          'kind ' || k || ' is accepted')
FROM pg_catalog.unnest(ARRAY['human', 'agent', 'bot', 'system']) AS k;
RESET ROLE;

-- The same human seen by two agents is two actors.
SET ROLE t040_rb;
INSERT INTO pg_temp.ids VALUES ('ann_b', agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U-ANN', 'Ann'));
RESET ROLE;
SELECT isnt(pg_temp.id('ann_b'), pg_temp.id('ann'), 'the same connector identity in B is a different actor');
SELECT is((SELECT x.runtime_agent_id FROM agent_state.actors AS x WHERE x.actor_id = pg_temp.id('ann_b')),
          pg_temp.id('b'), 'B''s actor belongs to B');
SET ROLE t040_op;
SELECT is(agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U-ANN'), pg_temp.id('ann'),
          'an operator resolving in A gets A''s actor');
SELECT is(agent_state.resolve_actor(pg_temp.id('b'), 'slack', 'U-ANN'), pg_temp.id('ann_b'),
          'an operator resolving in B gets B''s actor');
RESET ROLE;

-- Hostile text round-trips exactly.
SET ROLE t040_ra;
INSERT INTO pg_temp.ids VALUES ('weird', agent_state.resolve_actor(pg_temp.id('a'),
    E'conn \'"\\ ü', E'id \'; DROP TABLE x; --" 😀 \u00e9', E'Zoë "Q" O\'Brien'));
SELECT is(agent_state.resolve_actor(pg_temp.id('a'), E'conn \'"\\ ü', E'id \'; DROP TABLE x; --" 😀 \u00e9'),
          pg_temp.id('weird'), 'quotes, backslashes and Unicode in identities resolve to the same actor');
RESET ROLE;
SELECT is((SELECT i.connector || '|' || i.external_id || '|' || x.display_name
           FROM agent_state.actor_identities AS i JOIN agent_state.actors AS x
             ON x.runtime_agent_id = i.runtime_agent_id AND x.actor_id = i.actor_id
           WHERE i.actor_id = pg_temp.id('weird')),
          E'conn \'"\\ ü|id \'; DROP TABLE x; --" 😀 \u00e9|Zoë "Q" O\'Brien', 'and are stored unchanged');

-- ---------------------------------------------------------------- link_identity
SET ROLE t040_ra;
SELECT lives_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('ann'), 'github', 'ann-gh')$$,
                'link a GitHub identity to Ann');
SELECT is(agent_state.resolve_actor(pg_temp.id('a'), 'github', 'ann-gh'), pg_temp.id('ann'),
          'resolving the linked identity gives Ann');
SELECT lives_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('ann'), 'github', 'ann-gh')$$,
                'linking the same identity to the same actor again is a no-op');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actor_identities AS i WHERE i.actor_id = pg_temp.id('ann')),
          2::bigint, 'Ann has two identities (slack and github), no duplicate');
CREATE TEMP TABLE before_rows AS SELECT pg_temp.actor_rows() AS v;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;

SET ROLE t040_ra;
SELECT throws_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('bot'), 'github', 'ann-gh')$$,
                 '23505', NULL, 'linking an identity already linked to another actor: 23505');
SELECT throws_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('bot'), 'slack', 'U-ANN')$$,
                 '23505', NULL, 'taking over an identity created by resolve_actor: 23505');
SELECT throws_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('ann_b'), 'github', 'x')$$,
                 '23503', NULL, 'linking to an actor of another perspective: 23503');
SELECT throws_ok($$SELECT agent_state.link_identity(pg_temp.id('a'), '00000000-0000-0000-0000-000000000040', 'github', 'x')$$,
                 'P0002', NULL, 'linking to an unknown actor: P0002');
SELECT throws_ok($$SELECT agent_state.link_identity(pg_temp.id('b'), pg_temp.id('ann_b'), 'github', 'x')$$,
                 '42501', NULL, 'linking in a perspective the runtime does not host: 42501');
RESET ROLE;
SELECT is(pg_temp.actor_rows(), (SELECT v FROM before_rows), 'refused links wrote nothing');
SELECT is((SELECT i.actor_id FROM agent_state.actor_identities AS i
           WHERE i.runtime_agent_id = pg_temp.id('a') AND i.connector = 'github' AND i.external_id = 'ann-gh'),
          pg_temp.id('ann'), 'the identity still points at Ann');

-- A link never reaches another perspective.
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actor_identities AS i
           WHERE i.runtime_agent_id = pg_temp.id('b') AND i.connector = 'github'),
          0::bigint, 'B has no GitHub identity after A linked one');
SET ROLE t040_rb;
SELECT isnt(agent_state.resolve_actor(pg_temp.id('b'), 'github', 'ann-gh'), pg_temp.id('ann'),
            'resolving A''s linked identity in B creates B''s own actor');
SELECT isnt(agent_state.resolve_actor(pg_temp.id('b'), 'github', 'ann-gh'), pg_temp.id('ann_b'),
            'and it is not linked to B''s Ann either (B never inherits A''s links)');
SELECT lives_ok($$SELECT agent_state.link_identity(pg_temp.id('b'), pg_temp.id('ann_b'), 'github', 'ann-gh-2')$$,
                'B links its own identities independently');
RESET ROLE;
SELECT is((SELECT pg_catalog.count(*) FROM agent_state.actor_identities AS i
           WHERE i.runtime_agent_id = pg_temp.id('a') AND i.external_id = 'ann-gh-2'),
          0::bigint, 'B''s link is not visible in A');

SELECT * FROM finish();
ROLLBACK;
