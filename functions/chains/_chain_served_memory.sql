-- Refusal on read for memory (recall, context_for, memory_entry, the LangGraph
-- store): the revision a read serves must be a stored record whose digest
-- matches (_chain_checked), and what is served (the entry's current state, or
-- the revision as of a moment) must be that revision's text and subject. Else
-- XX001, naming the table and row; true otherwise. It runs in UTC, as
-- _chain_checked does: measured, a nested call that need not switch the time zone
-- keeps recall's checks at a fraction of a millisecond (bench/README.md).
CREATE FUNCTION agent_state._chain_served_memory(agent uuid, entry uuid, revision integer, body text, subject uuid)
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
#variable_conflict use_variable
DECLARE
    r agent_state.memory_revisions;
BEGIN
    SELECT x.* INTO r FROM agent_state.memory_revisions AS x
    WHERE x.runtime_agent_id = agent AND x.entry_id = entry AND x.revision = revision;
    IF NOT FOUND OR r.body IS DISTINCT FROM body OR r.subject_id IS DISTINCT FROM subject THEN
        RAISE EXCEPTION USING
            ERRCODE = 'XX001',
            MESSAGE = pg_catalog.format(
                'memory_entries: entry %s (agent %s) does not match its revision %s%s; it is not served',
                entry, agent, revision, CASE WHEN NOT FOUND THEN ', which is gone' ELSE '' END),
            HINT = 'History was altered outside the API. An operator runs agent_state.verify() to see what changed.';
    END IF;
    RETURN agent_state._chain_checked('memory_revisions'::name, r);
END
$$;
