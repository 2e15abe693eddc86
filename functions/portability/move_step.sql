-- One step of moving an agent between shards (SPEC section 15), called by a
-- router's move_agent on the source and the target shard, each step its own
-- transaction (PL/Proxy commits every remote call):
--   'begin'    (source; peer = the target shard's name): the agent is frozen
--              here: every call for it fails with 55006 from now on.
--   'export'   (source, frozen): waits until every transaction that was
--              running when it started has ended (a write that passed _bind
--              before the freeze is then committed or gone), then returns the
--              agent's document (export_agent's) as of after that.
--   'import'   (target; peer = the source's name, document): import_agent,
--              and the copy stays frozen ('in') until 'activate'.
--   'digest'   (either): the digest of the agent's document here, to compare.
--   'activate' (target): the copy moved in becomes live.
--   'retire'   (source): the copy here becomes a retired copy ('gone'): calls
--              for the agent answer as for an unknown agent; its rows stay.
--   'abort'    (source: live again; target: its copy retired).
--   'state'    (either): {"state": live | out | in | gone | absent, "peer"}.
-- Operator only; a step in the wrong state fails with 55000, nothing written.
CREATE FUNCTION agent_state.move_step(
    agent uuid,
    step text,
    peer text DEFAULT NULL,
    document jsonb DEFAULT NULL
)
RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    st text;
    st_peer text;
    running text [];
    deadline timestamptz;
    doc jsonb;
BEGIN
    PERFORM agent_state._need_operator();
    PERFORM agent_state._need(agent, 'agent');
    IF step IS DISTINCT FROM 'import' AND step IS DISTINCT FROM 'state'
       AND NOT EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
    END IF;
    PERFORM agent_state._need_text(step, 'step', 20);
    IF step NOT IN ('begin', 'export', 'import', 'digest', 'activate', 'retire', 'abort', 'state') THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('step: unknown step %s', agent_state._quote_prefix(step));
    END IF;
    IF step IN ('begin', 'import') THEN
        PERFORM agent_state._need_text(peer, 'peer', 200);
    END IF;
    IF step = 'import' THEN
        PERFORM agent_state._need(document, 'document');
        IF (document -> 'agent' ->> 'id') IS DISTINCT FROM agent::text THEN
            RAISE EXCEPTION USING
                ERRCODE = '22023', MESSAGE = 'document: not the document of agent ' || agent;
        END IF;
        agent := agent_state.import_agent(document);
        INSERT INTO agent_state.agent_moves (agent, state, peer) VALUES (agent, 'in', peer);
        RETURN pg_catalog.jsonb_build_object('state', 'in', 'peer', peer);
    END IF;

    -- The agent's move row, locked by the steps that change it ('state' only
    -- reads: it works in a READ ONLY transaction and on a standby).
    IF step = 'state' THEN
        SELECT m.state, m.peer INTO st, st_peer FROM agent_state.agent_moves AS m WHERE m.agent = agent;
    ELSE
        SELECT m.state, m.peer INTO st, st_peer FROM agent_state.agent_moves AS m WHERE m.agent = agent
        FOR UPDATE;
    END IF;
    IF st IS NULL THEN
        st := CASE WHEN EXISTS (SELECT FROM agent_state.agents AS a WHERE a.runtime_agent_id = agent)
                   THEN 'live' ELSE 'absent' END;
    END IF;
    IF step = 'state' THEN
        RETURN pg_catalog.jsonb_build_object('state', st, 'peer', st_peer);
    END IF;
    IF step = 'begin' THEN
        PERFORM agent_state._bind(agent, true);    -- P0002 unknown, 55006 moving
        INSERT INTO agent_state.agent_moves (agent, state, peer) VALUES (agent, 'out', peer);
        RETURN pg_catalog.jsonb_build_object('state', 'out', 'peer', peer);
    END IF;
    IF step = 'digest' THEN
        IF st NOT IN ('live', 'out', 'in') THEN
            RAISE EXCEPTION USING
                ERRCODE = 'P0002', MESSAGE = pg_catalog.format('agent: unknown agent %s', agent);
        END IF;
        RETURN pg_catalog.jsonb_build_object('digest', agent_state._agent_document(agent) ->> 'digest');
    END IF;
    IF (step = 'export' AND st <> 'out') OR (step = 'activate' AND st <> 'in')
       OR (step = 'retire' AND st <> 'out') OR (step = 'abort' AND st NOT IN ('out', 'in')) THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('step: agent %s is %s here, %s does not apply', agent, st, step);
    END IF;
    IF step = 'export' THEN
        -- The document must be read after the wait below: a snapshot of the whole
        -- transaction (REPEATABLE READ, SERIALIZABLE) is taken before it and would
        -- miss writes committed meanwhile, which retire would then drop.
        IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
            RAISE EXCEPTION USING
                ERRCODE = '55000',
                MESSAGE = 'step: export runs at READ COMMITTED only (a snapshot taken before its wait '
                          'would miss writes committed during it)';
        END IF;
        -- Every transaction of this database running now (other than this one)
        -- may have bound a call to the agent before 'begin' committed: wait for
        -- them to end (as CREATE INDEX CONCURRENTLY waits for older ones).
        SELECT pg_catalog.array_agg(l.virtualxid) INTO running
        FROM pg_catalog.pg_locks AS l
        JOIN pg_catalog.pg_stat_activity AS s ON s.pid = l.pid
        WHERE l.locktype = 'virtualxid' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()
          AND s.datname = pg_catalog.current_database() AND s.backend_type = 'client backend';
        deadline := pg_catalog.clock_timestamp() + interval '30 seconds';
        WHILE running IS NOT NULL AND EXISTS (
            SELECT FROM pg_catalog.pg_locks AS l
            WHERE l.locktype = 'virtualxid' AND l.granted AND l.virtualxid = ANY (running)
        ) LOOP
            IF pg_catalog.clock_timestamp() > deadline THEN
                RAISE EXCEPTION USING
                    ERRCODE = '55006',
                    MESSAGE = pg_catalog.format('agent: transactions older than the move of agent %s '
                                                'still run after 30 seconds', agent);
            END IF;
            PERFORM pg_catalog.pg_sleep(0.002);
        END LOOP;
        doc := agent_state._agent_document(agent);    -- a snapshot taken after the wait
        RETURN doc;
    END IF;
    IF step = 'activate' OR (step = 'abort' AND st = 'out') THEN
        DELETE FROM agent_state.agent_moves AS m WHERE m.agent = agent;
        RETURN pg_catalog.jsonb_build_object('state', 'live');
    END IF;
    -- retire (source) or abort of a copy moved in: retired, rows kept.
    UPDATE agent_state.agent_moves AS m SET state = 'gone' WHERE m.agent = agent;
    RETURN pg_catalog.jsonb_build_object('state', 'gone', 'peer', st_peer);
END
$$;

COMMENT ON FUNCTION agent_state.move_step(uuid, text, text, jsonb) IS
'move_step(agent, step, peer => null, document => null) -> jsonb (operator): one step of '
'moving an agent between shards, for a router''s move_agent: begin (freeze: calls fail with '
'55006), export (after older transactions end), import (a frozen copy), digest, activate, '
'retire (the copy here then answers as an unknown agent), abort, state. Wrong state: 55000.';
