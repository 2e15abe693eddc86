-- Refusal on read for memory (recall, context_for, memory_entry, the LangGraph
-- store): the revision a read serves must be a stored record whose digest
-- matches, and what is served (the entry's current state, or the revision as
-- of a moment) must be that revision's text and subject. Else XX001, naming the
-- table and row; true otherwise. One query and one hash per entry served; a
-- redacted revision (its text's hash is its redaction's) goes to _chain_fault.
CREATE FUNCTION agent_state._chain_served_memory(agent uuid, entry uuid, revision integer, body text, subject uuid)
RETURNS boolean
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
#variable_conflict use_variable
DECLARE
    found_row record;
    fault text;
BEGIN
    SELECT pg_catalog.to_jsonb(x) AS j, t.excluded, t.erasable INTO found_row
    FROM agent_state.memory_revisions AS x, agent_state._chain_tables() AS t
    WHERE x.runtime_agent_id = agent AND x.entry_id = entry AND x.revision = revision
      AND t.tbl = 'memory_revisions';
    IF NOT FOUND OR found_row.j ->> 'body' IS DISTINCT FROM body
        OR (found_row.j ->> 'subject_id')::uuid IS DISTINCT FROM subject THEN
        RAISE EXCEPTION USING
            ERRCODE = 'XX001',
            MESSAGE = pg_catalog.format(
                'memory_entries: entry %s (agent %s) does not match its revision %s%s; it is not served',
                entry, agent, revision, CASE WHEN NOT FOUND THEN ', which is gone' ELSE '' END),
            HINT = 'History was altered outside the API. An operator runs agent_state.verify() to see what changed.';
    END IF;
    IF pg_catalog.decode(pg_catalog.substr(found_row.j ->> 'chain_digest', 3), 'hex')
        = agent_state._chain_digest('memory_revisions', found_row.j, found_row.excluded, found_row.erasable) THEN
        RETURN true;
    END IF;
    fault := agent_state._chain_fault('memory_revisions', found_row.j);
    IF fault IS NULL THEN
        RETURN true;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'XX001',
        MESSAGE = pg_catalog.format('memory_revisions: stored record %s does not match its digest (%s); it is not served',
                                    agent_state._chain_row_name('memory_revisions', found_row.j), fault),
        HINT = 'History was altered outside the API. An operator runs agent_state.verify() to see what changed.';
END
$$;
