-- Persona: operators write revisions and choose the active one; runtimes read.

CREATE FUNCTION agent_state._activate_persona(agent uuid, revision integer)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    UPDATE agent_state.persona_revisions AS r SET is_active = false
    WHERE r.runtime_agent_id = agent AND r.is_active AND r.revision <> revision;
    UPDATE agent_state.persona_revisions AS r SET is_active = true
    WHERE r.runtime_agent_id = agent AND r.revision = revision;
    INSERT INTO agent_state.persona_activations (runtime_agent_id, revision)
    VALUES (agent, revision);
END
$$;

CREATE FUNCTION agent_state.revise_persona(agent uuid, body text, activate boolean DEFAULT true)
RETURNS integer
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    next_rev integer;
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need_text(body, 'body');
    PERFORM agent_state._need(activate, 'activate');
    PERFORM agent_state._lock_agent(agent);
    -- The flag and the activation log change in several statements; the invariant
    -- holds after the last one. A caller's SET CONSTRAINTS ALL IMMEDIATE must not
    -- check it in between (it is still checked at commit).
    SET CONSTRAINTS agent_state.persona_revisions_active_check,
        agent_state.persona_activations_active_check DEFERRED;

    SELECT coalesce(pg_catalog.max(r.revision), 0) + 1 INTO next_rev
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = agent;

    -- The agent lock serialises writers, but under REPEATABLE READ the maximum
    -- above comes from an older snapshot: ON CONFLICT then raises 40001 (retry)
    -- instead of a duplicate-key error. The IF covers direct-DML inserters.
    INSERT INTO agent_state.persona_revisions AS r (runtime_agent_id, revision, body)
    VALUES (agent, next_rev, body)
    ON CONFLICT ON CONSTRAINT persona_revisions_pkey DO NOTHING;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = '40001',
            MESSAGE = pg_catalog.format('revision: persona revision %s was written concurrently', next_rev),
            HINT = 'Retry the transaction.';
    END IF;
    -- The first revision is always activated: an agent never has persona text
    -- without an active revision.
    IF activate OR next_rev = 1 THEN
        PERFORM agent_state._activate_persona(agent, next_rev);
    END IF;
    RETURN next_rev;
END
$$;

COMMENT ON FUNCTION agent_state.revise_persona(uuid, text, boolean) IS
'revise_persona(agent, body, activate => true) -> int (operator): appends revision n+1. '
'The first revision is always activated.';

CREATE FUNCTION agent_state.activate_persona(agent uuid, revision integer)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._bind(agent, true);
    PERFORM agent_state._need(revision, 'revision');
    PERFORM agent_state._lock_agent(agent);
    IF NOT EXISTS (
        SELECT FROM agent_state.persona_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.revision = revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'P0002',
            MESSAGE = pg_catalog.format('revision: agent %s has no persona revision %s', agent, revision);
    END IF;
    -- Activating the active revision changes nothing and logs nothing.
    IF EXISTS (
        SELECT FROM agent_state.persona_revisions AS r
        WHERE r.runtime_agent_id = agent AND r.revision = revision AND r.is_active
    ) THEN
        RETURN;
    END IF;
    -- As in revise_persona: checked after the last statement, at commit.
    SET CONSTRAINTS agent_state.persona_revisions_active_check,
        agent_state.persona_activations_active_check DEFERRED;
    PERFORM agent_state._activate_persona(agent, revision);
END
$$;

COMMENT ON FUNCTION agent_state.activate_persona(uuid, integer) IS
'activate_persona(agent, revision) (operator): makes an existing revision the active one '
'(reverting = activating an earlier revision; nothing is copied). Logged with who and when.';

CREATE FUNCTION agent_state.active_persona(agent uuid, as_of timestamptz DEFAULT NULL)
RETURNS TABLE (revision integer, body text, activated_at timestamptz)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(active_persona.agent);
    RETURN QUERY
    SELECT a.revision, r.body, a.created_at
    FROM agent_state.persona_activations AS a
    JOIN agent_state.persona_revisions AS r
      ON r.runtime_agent_id = a.runtime_agent_id AND r.revision = a.revision
    WHERE a.runtime_agent_id = active_persona.agent
      AND (active_persona.as_of IS NULL OR a.created_at <= active_persona.as_of)
    ORDER BY a.created_at DESC, a.activation_id DESC
    LIMIT 1;
END
$$;

COMMENT ON FUNCTION agent_state.active_persona(uuid, timestamptz) IS
'active_persona(agent, as_of => null) -> (revision, body, activated_at): the active '
'revision now, or at the moment as_of. No row when none was active then.';

CREATE FUNCTION agent_state.persona_history(agent uuid)
RETURNS TABLE (
    revision integer, body text, created_at timestamptz, created_by text, is_active boolean
)
LANGUAGE plpgsql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM agent_state._bind(persona_history.agent);
    RETURN QUERY
    SELECT r.revision, r.body, r.created_at, r.created_by::text, r.is_active
    FROM agent_state.persona_revisions AS r
    WHERE r.runtime_agent_id = persona_history.agent
    ORDER BY r.revision;
END
$$;

COMMENT ON FUNCTION agent_state.persona_history(uuid) IS
'persona_history(agent) -> (revision, body, created_at, created_by, is_active), oldest first.';
