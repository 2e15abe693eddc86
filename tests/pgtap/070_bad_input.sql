-- Bad input for every foundation function: null required arguments (22004),
-- empty, blank and overlong text, unknown kinds and invalid settings (22023).
-- A fuzz pass checks that no hostile value surfaces an undocumented SQLSTATE
-- (never XX000) and that refused calls write nothing.
BEGIN;
SET client_min_messages = warning;
SELECT plan(128);

CREATE ROLE t070_op IN ROLE agent_state_operator;
\ir _setup.sql
CREATE FUNCTION pg_temp.foundation_rows() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.concat_ws(',',
        (SELECT pg_catalog.count(*) FROM agent_state.agents),
        (SELECT pg_catalog.count(*) FROM agent_state.agent_hosts),
        (SELECT pg_catalog.count(*) FROM agent_state.actors),
        (SELECT pg_catalog.count(*) FROM agent_state.actor_identities),
        (SELECT pg_catalog.count(*) FROM agent_state.conversations),
        (SELECT pg_catalog.count(*) FROM agent_state.messages),
        (SELECT pg_catalog.count(*) FROM agent_state.persona_revisions),
        (SELECT pg_catalog.count(*) FROM agent_state.persona_activations))
$$;

SET ROLE t070_op;
INSERT INTO pg_temp.ids VALUES ('a', agent_state.create_agent('t070-a'));
INSERT INTO pg_temp.ids VALUES
    ('x', agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1')),
    ('g', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1')),
    ('p', agent_state.open_conversation(pg_temp.id('a'), 'slack', 'P1', 'public'));
SELECT agent_state.revise_persona(pg_temp.id('a'), 'persona') \g /dev/null
RESET ROLE;
CREATE TEMP TABLE before_rows AS SELECT pg_temp.foundation_rows() AS v;
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;

-- Every case runs as the operator (who may call everything), one statement each.
SET ROLE t070_op;
SELECT throws_ok(s, e, NULL, d)
FROM (VALUES
    -- create_agent
    ($$SELECT agent_state.create_agent(NULL)$$, '22004', 'create_agent: handle null'),
    ($$SELECT agent_state.create_agent('')$$, '22023', 'create_agent: handle empty'),
    ($$SELECT agent_state.create_agent('   ')$$, '22023', 'create_agent: handle blank'),
    ($$SELECT agent_state.create_agent(E'\t\r\n ')$$, '22023', 'create_agent: handle of tabs and newlines'),
    ($$SELECT agent_state.create_agent(pg_catalog.repeat('h', 201))$$, '22023', 'create_agent: handle over 200 characters'),
    ($$SELECT agent_state.create_agent('t070-d', '')$$, '22023', 'create_agent: display_name empty'),
    ($$SELECT agent_state.create_agent('t070-d', ' ')$$, '22023', 'create_agent: display_name blank'),
    ($$SELECT agent_state.create_agent('t070-d', pg_catalog.repeat('n', 1001))$$, '22023',
     'create_agent: display_name over 1000 characters'),
    ($$SELECT agent_state.create_agent('t070-s', settings => NULL)$$, '22004', 'create_agent: settings null'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '[]')$$, '22023', 'create_agent: settings an array'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '"x"')$$, '22023', 'create_agent: settings a string'),
    ($$SELECT agent_state.create_agent('t070-s', settings => 'null')$$, '22023', 'create_agent: settings JSON null'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"subject_boost": "2"}')$$, '22023',
     'create_agent: subject_boost as a string'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"subject_boost": null}')$$, '22023',
     'create_agent: subject_boost null'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"subject_boost": -0.5}')$$, '22023',
     'create_agent: subject_boost negative'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"subject_boost": 1000001}')$$, '22023',
     'create_agent: subject_boost above 1000000'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"subject_boost": 1e400}')$$, '22023',
     'create_agent: subject_boost beyond double precision'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"subject_boost": 1e-400}')$$, '22023',
     'create_agent: subject_boost underflowing double precision'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": "soon"}')$$, '22023',
     'create_agent: recency_half_life not an interval'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": 30}')$$, '22023',
     'create_agent: recency_half_life a number'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": "0 days"}')$$, '22023',
     'create_agent: recency_half_life zero'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": "-3 days"}')$$, '22023',
     'create_agent: recency_half_life negative'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": "1 mon -30 days"}')$$, '22023',
     'create_agent: recency_half_life that adds up to zero'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": "9999999999999999999 years"}')$$,
     '22023', 'create_agent: recency_half_life overflowing interval'),
    ($$SELECT agent_state.create_agent('t070-s', settings => '{"recency_half_life": null}')$$, '22023',
     'create_agent: recency_half_life null'),
    -- grant_hosting / revoke_hosting
    ($$SELECT agent_state.grant_hosting(NULL, 't070_op')$$, '22004', 'grant_hosting: agent null'),
    ($$SELECT agent_state.grant_hosting(pg_temp.id('a'), NULL)$$, '22004', 'grant_hosting: host null'),
    ($$SELECT agent_state.grant_hosting(pg_temp.id('a'), 0::oid::regrole)$$, '22023', 'grant_hosting: host oid 0'),
    ($$SELECT agent_state.revoke_hosting(NULL, 't070_op')$$, '22004', 'revoke_hosting: agent null'),
    ($$SELECT agent_state.revoke_hosting(pg_temp.id('a'), NULL)$$, '22004', 'revoke_hosting: host null'),
    -- resolve_actor
    ($$SELECT agent_state.resolve_actor(NULL, 'slack', 'U9')$$, '22004', 'resolve_actor: agent null'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), NULL, 'U9')$$, '22004', 'resolve_actor: connector null'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), '', 'U9')$$, '22023', 'resolve_actor: connector empty'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), E' \n', 'U9')$$, '22023', 'resolve_actor: connector blank'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), pg_catalog.repeat('c', 201), 'U9')$$, '22023',
     'resolve_actor: connector over 200 characters'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', NULL)$$, '22004', 'resolve_actor: external_id null'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', '')$$, '22023', 'resolve_actor: external_id empty'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', '  ')$$, '22023', 'resolve_actor: external_id blank'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', pg_catalog.repeat('e', 1001))$$, '22023',
     'resolve_actor: external_id over 1000 characters'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U9', '')$$, '22023', 'resolve_actor: display_name empty'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U9', pg_catalog.repeat('n', 1001))$$, '22023',
     'resolve_actor: display_name over 1000 characters'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U9', NULL, NULL)$$, '22004', 'resolve_actor: kind null'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U9', NULL, 'robot')$$, '22023', 'resolve_actor: kind unknown'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U9', NULL, 'Human')$$, '22023',
     'resolve_actor: kind is case-sensitive'),
    ($$SELECT agent_state.resolve_actor(pg_temp.id('a'), 'slack', 'U1', NULL, '')$$, '22023',
     'resolve_actor: kind empty (even for a known identity)'),
    -- link_identity
    ($$SELECT agent_state.link_identity(NULL, pg_temp.id('x'), 'github', 'g1')$$, '22004', 'link_identity: agent null'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), NULL, 'github', 'g1')$$, '22004', 'link_identity: actor null'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('x'), NULL, 'g1')$$, '22004', 'link_identity: connector null'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('x'), ' ', 'g1')$$, '22023', 'link_identity: connector blank'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('x'), pg_catalog.repeat('c', 201), 'g1')$$, '22023',
     'link_identity: connector over 200 characters'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('x'), 'github', NULL)$$, '22004',
     'link_identity: external_id null'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('x'), 'github', '')$$, '22023',
     'link_identity: external_id empty'),
    ($$SELECT agent_state.link_identity(pg_temp.id('a'), pg_temp.id('x'), 'github', pg_catalog.repeat('e', 1001))$$,
     '22023', 'link_identity: external_id over 1000 characters'),
    -- open_conversation
    ($$SELECT agent_state.open_conversation(NULL, 'slack', 'C9')$$, '22004', 'open_conversation: agent null'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), NULL, 'C9')$$, '22004', 'open_conversation: connector null'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), '', 'C9')$$, '22023', 'open_conversation: connector empty'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), pg_catalog.repeat('c', 201), 'C9')$$, '22023',
     'open_conversation: connector over 200 characters'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', NULL)$$, '22004', 'open_conversation: external_ref null'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', E'\t')$$, '22023', 'open_conversation: external_ref blank'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', pg_catalog.repeat('r', 1001))$$, '22023',
     'open_conversation: external_ref over 1000 characters'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C9', NULL)$$, '22004', 'open_conversation: kind null'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C9', 'private')$$, '22023',
     'open_conversation: kind unknown'),
    ($$SELECT agent_state.open_conversation(pg_temp.id('a'), 'slack', 'C1', 'Group')$$, '22023',
     'open_conversation: kind is checked even for a known conversation'),
    -- record_message
    ($$SELECT agent_state.record_message(NULL, pg_temp.id('g'), pg_temp.id('x'), 'b', '{}')$$, '22004',
     'record_message: agent null'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), NULL, pg_temp.id('x'), 'b', '{}')$$, '22004',
     'record_message: conversation null'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), NULL, 'b', '{}')$$, '22004',
     'record_message: author null'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), NULL, '{}')$$, '22004',
     'record_message: body null'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), '', '{}')$$, '22023',
     'record_message: body empty'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), E' \r\n\t', '{}')$$, '22023',
     'record_message: body blank'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'),
        pg_catalog.repeat('b', 100001), '{}')$$, '22023', 'record_message: body over 100000 characters'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'),
        pg_catalog.repeat('b', 5000000), '{}')$$, '22023', 'record_message: a 5 MB body is 22023, not a limit error'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b')$$, '22004',
     'record_message: audience null in a group conversation'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b',
        ARRAY[NULL]::uuid [])$$, '22004', 'record_message: audience of one null'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b',
        ARRAY[ARRAY[pg_temp.id('x'), pg_temp.id('x')]])$$, '22023', 'record_message: two-dimensional audience'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b', '{}', '')$$, '22023',
     'record_message: external_ref empty'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b', '{}', ' ')$$, '22023',
     'record_message: external_ref blank'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b', '{}',
        pg_catalog.repeat('r', 1001))$$, '22023', 'record_message: external_ref over 1000 characters'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b', '{}', NULL, NULL)$$,
     '22004', 'record_message: observed_at null'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b', '{}', NULL, 'infinity')$$,
     '22023', 'record_message: observed_at infinity'),
    ($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'), 'b', '{}', NULL, '-infinity')$$,
     '22023', 'record_message: observed_at -infinity'),
    -- persona
    ($$SELECT agent_state.revise_persona(NULL, 'b')$$, '22004', 'revise_persona: agent null'),
    ($$SELECT agent_state.revise_persona(pg_temp.id('a'), NULL)$$, '22004', 'revise_persona: body null'),
    ($$SELECT agent_state.revise_persona(pg_temp.id('a'), '')$$, '22023', 'revise_persona: body empty'),
    ($$SELECT agent_state.revise_persona(pg_temp.id('a'), E'\n\n  ')$$, '22023', 'revise_persona: body blank'),
    ($$SELECT agent_state.revise_persona(pg_temp.id('a'), pg_catalog.repeat('p', 100001))$$, '22023',
     'revise_persona: body over 100000 characters'),
    ($$SELECT agent_state.revise_persona(pg_temp.id('a'), 'b', NULL)$$, '22004', 'revise_persona: activate null'),
    ($$SELECT agent_state.activate_persona(NULL, 1)$$, '22004', 'activate_persona: agent null'),
    ($$SELECT agent_state.activate_persona(pg_temp.id('a'), NULL)$$, '22004', 'activate_persona: revision null'),
    ($$SELECT agent_state.activate_persona(pg_temp.id('a'), -1)$$, 'P0002', 'activate_persona: revision -1'),
    ($$SELECT * FROM agent_state.active_persona(NULL)$$, '22004', 'active_persona: agent null'),
    ($$SELECT * FROM agent_state.persona_history(NULL)$$, '22004', 'persona_history: agent null')
) AS v (s, e, d);
RESET ROLE;
SELECT is(pg_temp.foundation_rows(), (SELECT v FROM before_rows), 'no bad input wrote anything');

-- ---------------------------------------------------------------- limits accept what they document
SET ROLE t070_op;
SELECT lives_ok($$SELECT agent_state.create_agent(pg_catalog.repeat('h', 200), pg_catalog.repeat('n', 1000),
                  '{"subject_boost": 0, "recency_half_life": "1 second", "custom": [1, 2]}')$$,
                'handle of 200, display_name of 1000 characters and edge settings are accepted');
SELECT lives_ok($$SELECT agent_state.record_message(pg_temp.id('a'), pg_temp.id('g'), pg_temp.id('x'),
                  pg_catalog.repeat('b', 100000), '{}', pg_catalog.repeat('r', 1000))$$,
                'a body of exactly 100000 characters and an external_ref of 1000 are accepted');
SELECT lives_ok($$SELECT agent_state.revise_persona(pg_temp.id('a'), pg_catalog.repeat('p', 100000))$$,
                'a persona of exactly 100000 characters is accepted');
RESET ROLE;
SELECT is((SELECT p.settings FROM agent_state.agents AS a
           JOIN agent_state.profile_revisions AS p USING (runtime_agent_id)
           WHERE a.handle = pg_catalog.repeat('h', 200)),
          '{"subject_boost": 0, "recency_half_life": "1 second", "custom": [1, 2]}'::jsonb,
          'settings are stored as given, unknown keys kept');

-- Hostile text round-trips through every text argument.
SET ROLE t070_op;
INSERT INTO pg_temp.ids VALUES ('q', agent_state.create_agent(E'h\'"\\ ü😀', E'Display \'"\\ ü'));
RESET ROLE;
SELECT is((SELECT a.handle || '|' || p.display_name FROM agent_state.agents AS a
           JOIN agent_state.profile_revisions AS p USING (runtime_agent_id)
           WHERE a.runtime_agent_id = pg_temp.id('q')),
          E'h\'"\\ ü😀|Display \'"\\ ü', 'handle and display_name with quotes and Unicode round-trip');
SET ROLE t070_op;
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('q'))), NULL, 'no persona yet for the new agent');
SELECT agent_state.revise_persona(pg_temp.id('q'), E'Du bist \'Q\' "ü" \\n 😀\n') \g /dev/null
SELECT is((SELECT body FROM agent_state.active_persona(pg_temp.id('q'))), E'Du bist \'Q\' "ü" \\n 😀\n',
          'a persona body with quotes, backslashes, newlines and emoji round-trips');
RESET ROLE;

-- ---------------------------------------------------------------- JSON depth
-- The README's limit of 200 levels: arrays and objects inside one another, whatever
-- holds the innermost one (an empty array or object is a level too). 200 pass, 201
-- are refused with 22023; _json_fits, the copy inlined for fast paths, agrees.
CREATE TEMP TABLE deep AS
SELECT s.shape, n.levels,
       (CASE s.shape
            WHEN 'empty arrays' THEN pg_catalog.repeat('[', n.levels) || pg_catalog.repeat(']', n.levels)
            WHEN 'arrays around a number' THEN pg_catalog.repeat('[', n.levels) || '1' || pg_catalog.repeat(']', n.levels)
            WHEN 'objects, the innermost empty' THEN
                pg_catalog.repeat('{"k": ', n.levels - 1) || '{}' || pg_catalog.repeat('}', n.levels - 1)
            ELSE pg_catalog.repeat('{"k": ', n.levels) || '"v"' || pg_catalog.repeat('}', n.levels)
        END)::jsonb AS val
FROM (VALUES ('empty arrays'), ('arrays around a number'), ('objects, the innermost empty'),
             ('objects around a string')) AS s (shape)
CROSS JOIN (VALUES (200), (201)) AS n (levels);
SELECT lives_ok(pg_catalog.format('SELECT agent_state._json_within(%L::jsonb, %L)', d.val, 'frontier'),
                'JSON depth: ' || d.shape || ', 200 levels: accepted')
FROM pg_temp.deep AS d WHERE d.levels = 200 ORDER BY d.shape;
SELECT throws_ok(pg_catalog.format('SELECT agent_state._json_within(%L::jsonb, %L)', d.val, 'frontier'),
                 '22023', 'frontier: nested deeper than 200 levels',
                 'JSON depth: ' || d.shape || ', 201 levels: 22023')
FROM pg_temp.deep AS d WHERE d.levels = 201 ORDER BY d.shape;
SELECT is(agent_state._json_fits(d.val), d.levels = 200,
          'JSON depth: _json_fits agrees for ' || d.shape || ', ' || d.levels || ' levels')
FROM pg_temp.deep AS d ORDER BY d.shape, d.levels;
-- _text_fits, the copy of _need_text's rules inlined for fast paths, agrees.
CREATE FUNCTION pg_temp.need_text_accepts(val text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    PERFORM agent_state._need_text(val, 'text');
    RETURN true;
EXCEPTION WHEN null_value_not_allowed OR invalid_parameter_value THEN
    RETURN false;
END
$$;
SELECT is(agent_state._text_fits(v.val), pg_temp.need_text_accepts(v.val), '_text_fits agrees with _need_text: ' || v.what)
FROM (VALUES (NULL, 'null'), ('', 'empty'), (E' \t\r\n', 'blank'), ('x', 'one character'),
             (pg_catalog.repeat('é', 100000), '100,000 characters'),
             (pg_catalog.repeat('x', 100001), '100,001 characters')) AS v (val, what);
SELECT throws_ok($$SELECT agent_state._json_within(
                       (pg_catalog.repeat('[', 33) || pg_catalog.repeat(']', 33))::jsonb, 'config', 1000000, 32)$$,
                 '22023', 'config: nested deeper than 32 levels',
                 'JSON depth: 33 empty arrays against a limit of 32: 22023');
SELECT lives_ok($$SELECT agent_state._json_within(
                      (pg_catalog.repeat('[', 32) || pg_catalog.repeat(']', 32))::jsonb, 'config', 1000000, 32)$$,
                'JSON depth: 32 empty arrays against a limit of 32: accepted');
SET ROLE t070_op;
SELECT throws_ok($$SELECT agent_state.create_agent('t070-deep',
                       settings => ('{"custom": ' || pg_catalog.repeat('[', 200) || pg_catalog.repeat(']', 200) || '}')::jsonb)$$,
                 '22023', 'settings: nested deeper than 200 levels',
                 'create_agent: settings of 201 levels (an object around 200 empty arrays): 22023');
SELECT lives_ok($$SELECT agent_state.create_agent('t070-deep-200',
                      settings => ('{"custom": ' || pg_catalog.repeat('[', 199) || pg_catalog.repeat(']', 199) || '}')::jsonb)$$,
                'create_agent: settings of 200 levels are accepted');
RESET ROLE;

-- ---------------------------------------------------------------- fuzz: only documented SQLSTATEs
CREATE TEMP TABLE fuzz (stmt text, state text);
DO $fuzz$
DECLARE
    texts text [] := ARRAY[NULL, '', ' ', E'\t\n', pg_catalog.repeat('z', 100001), E'\u00a0', E'\'";--\\',
                           'ü😀', E'\x01\x7f', pg_catalog.repeat('é', 250)];
    uuids text [] := ARRAY['NULL', '''00000000-0000-0000-0000-000000000000''',
                           quote_literal(pg_temp.id('a')), quote_literal(pg_temp.id('x')),
                           quote_literal(pg_temp.id('g')), quote_literal(pg_temp.id('p'))];
    templates text [] := ARRAY[
        'SELECT agent_state.create_agent(%2$s, %2$s)',
        'SELECT agent_state.resolve_actor(%1$s, %2$s, %2$s, %2$s, %2$s)',
        'SELECT agent_state.resolve_actor(%1$s, ''slack'', %2$s, NULL, ''bot'')',
        'SELECT agent_state.link_identity(%1$s, %1$s, %2$s, %2$s)',
        'SELECT agent_state.open_conversation(%1$s, %2$s, %2$s, %2$s)',
        'SELECT agent_state.record_message(%1$s, %1$s, %1$s, %2$s, ARRAY[%1$s]::uuid[], %2$s)',
        'SELECT agent_state.record_message(%3$s, %1$s, %4$s, %2$s)',
        'SELECT agent_state.revise_persona(%1$s, %2$s, false)',
        'SELECT agent_state.activate_persona(%1$s, pg_catalog.length(%2$s))',
        'SELECT * FROM agent_state.active_persona(%1$s, NULL)',
        'SELECT * FROM agent_state.persona_history(%1$s)',
        'SELECT agent_state.grant_hosting(%1$s, NULL)'];
    t text;
    u text;
    v text;
    stmt text;
BEGIN
    FOREACH stmt IN ARRAY templates LOOP
        FOREACH u IN ARRAY uuids LOOP
            FOR i IN 1 .. pg_catalog.array_length(texts, 1) LOOP
                v := pg_catalog.quote_nullable(texts[i]);
                t := pg_catalog.format(stmt, u || '::uuid', v, quote_literal(pg_temp.id('a')) || '::uuid',
                                       quote_literal(pg_temp.id('x')) || '::uuid');
                BEGIN
                    EXECUTE t;
                    INSERT INTO pg_temp.fuzz VALUES (t, '00000');
                EXCEPTION WHEN OTHERS THEN
                    INSERT INTO pg_temp.fuzz VALUES (t, SQLSTATE);
                END;
            END LOOP;
        END LOOP;
    END LOOP;
END
$fuzz$;
SELECT cmp_ok((SELECT pg_catalog.count(*) FROM pg_temp.fuzz), '>=', 700::bigint, 'the fuzz ran every combination');
SELECT is_empty($$
    SELECT pg_catalog.left(stmt, 200), state FROM pg_temp.fuzz
    WHERE state NOT IN ('00000', '42501', 'P0002', '22023', '22004', '23505', '23503')
$$, 'hostile input only ever raises documented SQLSTATEs (never XX000, 54000, 22001, 0A000 ...)');
SELECT ok((SELECT pg_catalog.count(DISTINCT state) >= 4 FROM pg_temp.fuzz),
          'the fuzz reached several different outcomes');

SELECT * FROM finish();
ROLLBACK;
