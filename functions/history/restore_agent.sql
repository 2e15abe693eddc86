-- Brings an agent's state back to what it was at a moment (SPEC section 13) by
-- writing new revisions; history is never deleted or updated. What it writes:
-- * persona: the revision active then is activated again (an agent that had no
--   active persona then keeps its current one: one is always active once any
--   exists);
-- * profile: a new revision equal to the one current then, if they differ
--   (nothing before the agent's first revision);
-- * tool grants: a new revision equal to the one current then for each tool
--   whose grant differs; a tool first granted later is disabled (its config kept);
-- * memory: an entry live then whose body or subject changed gets an amend
--   revision with the body and subject of then; an entry forgotten since gets a
--   restore revision (the one way a forgotten entry becomes live again); an
--   entry created since, or forgotten then, is forgotten. Every such revision
--   keeps all evidence the entry has now, takes the narrower of the two
--   visibilities and records the reason. Redacted entries stay as they are.
--   Sharing grants are revision-specific and are not carried over.
-- The agent's entries are locked first, so a concurrent amend runs before the
-- restore or after it (its expected_revision then fails with 40001). Restoring
-- twice to the same moment writes nothing the second time. A moment later than
-- now is now: nothing to write.
CREATE FUNCTION agent_state.restore_agent(agent uuid, as_of timestamptz, reason text)
RETURNS TABLE (kind text, object text, operation text, revision integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    then_rev integer;
    now_rev integer;
    p_then record;
    p_now record;
    g record;
    e record;
    n integer;
    written integer := 0;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(as_of, 'as_of');
    PERFORM agent_state._need_text(reason, 'reason', 10000);
    PERFORM agent_state._lock_agent(agent);
    SET CONSTRAINTS agent_state.persona_revisions_active_check,
        agent_state.persona_activations_active_check DEFERRED;

    -- Persona.
    SELECT p.revision INTO then_rev FROM agent_state._persona_at(agent, as_of) AS p;
    SELECT r.revision INTO now_rev
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = agent AND r.is_active;
    IF then_rev IS NOT NULL AND then_rev IS DISTINCT FROM now_rev THEN
        PERFORM agent_state._activate_persona(agent, then_rev);
        kind := 'persona'; object := NULL; operation := 'activate'; revision := then_rev;
        written := written + 1;
        RETURN NEXT;
    END IF;

    -- Profile.
    SELECT * INTO p_then FROM agent_state._profile_at(agent, as_of);
    SELECT * INTO p_now FROM agent_state._profile_at(agent, NULL);
    IF p_then.revision IS NOT NULL
       AND (p_then.display_name IS DISTINCT FROM p_now.display_name
            OR p_then.settings IS DISTINCT FROM p_now.settings) THEN
        INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, display_name, settings)
        VALUES (agent, p_now.revision + 1, p_then.display_name, p_then.settings);
        kind := 'profile'; object := NULL; operation := 'revise'; revision := p_now.revision + 1;
        written := written + 1;
        RETURN NEXT;
    END IF;

    -- Tool grants (through grant_tool: the config is checked against the tool's
    -- contract now; a config the contract no longer accepts fails the restore).
    FOR g IN
        SELECT c.tool_name, c.enabled AS now_enabled, c.config AS now_config,
               t.enabled AS then_enabled, t.config AS then_config, t.revision AS then_revision
        FROM agent_state._grants_at(agent, NULL) AS c
        LEFT JOIN agent_state._grants_at(agent, as_of) AS t ON t.tool_name = c.tool_name
        ORDER BY c.tool_name COLLATE "C"
    LOOP
        IF g.then_revision IS NULL THEN
            CONTINUE WHEN NOT g.now_enabled;
            n := agent_state.grant_tool(agent, g.tool_name, false, g.now_config);
        ELSIF g.then_enabled IS DISTINCT FROM g.now_enabled OR g.then_config IS DISTINCT FROM g.now_config THEN
            n := agent_state.grant_tool(agent, g.tool_name, g.then_enabled, g.then_config);
        ELSE
            CONTINUE;
        END IF;
        kind := 'tool'; object := g.tool_name; operation := 'grant'; revision := n;
        written := written + 1;
        RETURN NEXT;
    END LOOP;

    -- Memory: every entry locked first (in id order, as a second restore would),
    -- then compared with its revision of then.
    PERFORM FROM agent_state.memory_entries AS m
    WHERE m.runtime_agent_id = agent
    ORDER BY m.entry_id
    FOR NO KEY UPDATE;
    FOR e IN
        SELECT m.entry_id, m.live, m.body, m.subject_id, m.visibility,
               t.revision AS then_revision, t.operation AS then_operation, t.body AS then_body,
               t.subject_id AS then_subject, t.visibility AS then_visibility
        FROM agent_state.memory_entries AS m
        LEFT JOIN LATERAL (
            SELECT v.revision, v.operation, v.body, v.subject_id, v.visibility
            FROM agent_state.memory_revisions AS v
            WHERE v.runtime_agent_id = m.runtime_agent_id AND v.entry_id = m.entry_id
              AND v.created_at <= as_of
            ORDER BY v.revision DESC
            LIMIT 1
        ) AS t ON true
        WHERE m.runtime_agent_id = agent
          AND NOT EXISTS (
              SELECT FROM agent_state.memory_redactions AS x
              WHERE x.runtime_agent_id = m.runtime_agent_id AND x.entry_id = m.entry_id)
        ORDER BY m.entry_id
    LOOP
        IF e.then_revision IS NOT NULL AND e.then_operation <> 'forget' THEN
            IF NOT e.live THEN
                operation := 'restore';
            ELSIF e.body IS DISTINCT FROM e.then_body OR e.subject_id IS DISTINCT FROM e.then_subject THEN
                operation := 'amend';
            ELSE
                CONTINUE;
            END IF;
            revision := agent_state._restore_memory(
                agent, e.entry_id, operation, e.then_body, e.then_subject,
                CASE WHEN 'conversation' IN (e.visibility, e.then_visibility)
                     THEN 'conversation' ELSE 'perspective' END,
                reason);
        ELSIF e.live THEN
            operation := 'forget';
            revision := agent_state._restore_memory(
                agent, e.entry_id, 'forget', e.body, e.subject_id, e.visibility, reason);
        ELSE
            CONTINUE;
        END IF;
        kind := 'memory'; object := e.entry_id::text;
        written := written + 1;
        RETURN NEXT;
    END LOOP;

    IF written > 0 THEN
        INSERT INTO agent_state.agent_restores (runtime_agent_id, restore_id, as_of, reason, changes)
        VALUES (agent,
                coalesce((SELECT pg_catalog.max(x.restore_id) FROM agent_state.agent_restores AS x
                          WHERE x.runtime_agent_id = agent), 0) + 1,
                as_of, reason, written);
    END IF;
END
$$;

COMMENT ON FUNCTION agent_state.restore_agent(uuid, timestamptz, text) IS
'restore_agent(agent, as_of, reason) -> table(kind, object, operation, revision) (operator): '
'brings persona, profile, tool grants and memory back to what they were at as_of by writing new '
'revisions (persona activate, profile revise, tool grant, memory amend/restore/forget) and '
'returns them. Never widens visibility, never drops evidence, never un-redacts; sharing grants '
'are not carried. Restoring twice writes nothing the second time; a future as_of is now. '
'as_of or reason null: 22004.';
