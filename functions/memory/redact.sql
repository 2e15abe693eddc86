-- Erasure: the one audited exception to append-only memory history.
CREATE FUNCTION agent_state.redact(agent uuid, entry uuid, reason text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    copy uuid;
    lineage uuid [];
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(entry, 'entry');
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    -- The agents of the lineage first (fork_agent keeps entry ids, so an entry
    -- may have copies there), until no new fork joins it: a fork holds its
    -- origin's row (_lock_agent) until it commits, so none can copy the entry
    -- while it is being redacted, and one that committed meanwhile is seen here.
    -- The rows are updated (to themselves), not only locked, so that a fork in a
    -- REPEATABLE READ transaction whose snapshot predates this redaction fails
    -- with 40001 instead of copying the text from that snapshot.
    LOOP
        lineage := ARRAY(SELECT l FROM agent_state._lineage(agent) AS l ORDER BY l);
        PERFORM FROM agent_state.agents AS a
        WHERE a.runtime_agent_id = ANY (lineage)
        ORDER BY a.runtime_agent_id
        FOR NO KEY UPDATE;
        UPDATE agent_state.agents AS a SET handle = a.handle
        WHERE a.runtime_agent_id = ANY (lineage);
        EXIT WHEN lineage = ARRAY(SELECT l FROM agent_state._lineage(agent) AS l ORDER BY l);
    END LOOP;
    -- Then the entry and every copy of it are locked, in agent order, so that two
    -- redactions of one entry through different agents of a lineage wait for
    -- each other, never deadlock; the checks below then read what the other
    -- committed.
    PERFORM FROM agent_state.memory_entries AS e
    WHERE e.runtime_agent_id = ANY (lineage)
      AND e.entry_id = entry
    ORDER BY e.runtime_agent_id
    FOR NO KEY UPDATE;
    PERFORM agent_state._need_ref(agent, 'memory entry', entry, 'entry');
    IF EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '55000',
            MESSAGE = pg_catalog.format('entry: memory entry %s is already redacted', entry);
    END IF;

    -- Each copy not redacted yet gets its own redaction record.
    FOR copy IN
        SELECT e.runtime_agent_id
        FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = ANY (lineage)
          AND e.entry_id = entry
          AND NOT agent_state._redacted(e.runtime_agent_id, e.entry_id)
        ORDER BY e.runtime_agent_id
    LOOP
        PERFORM agent_state._redact_entry(copy, entry, reason);
    END LOOP;
END
$$;

COMMENT ON FUNCTION agent_state.redact(uuid, uuid, text) IS
'redact(agent, entry, reason) (operator): erasure. Retires the entry and replaces the body of '
'every revision of it, and the prompt of every snapshot that used one of them, with '
'''[redacted]'', and erases their embeddings and LangGraph item values; keeps the operation log, subjects and provenance, and records who, when, why '
'and the sha256 of each text removed (memory_redactions). reason required (22004/22023). '
'Forgotten entries can be redacted; redacting twice: 55000. Unknown entry: P0002 (23503 if '
'another perspective''s). The copies of the entry in every agent of its lineage (fork_agent: '
'the origin, its forks and theirs) are redacted with it, each with its own record.';
