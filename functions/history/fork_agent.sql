-- A new agent holding a copy of an agent's state, and of what that state rests
-- on, as it was at a moment (SPEC section 13): persona, profile and tool-grant
-- revisions made by then (the ones current then current), actors and identity
-- links, conversations and the messages recorded by then, memory entries created
-- by then with their revisions made by then (each live or forgotten as it was
-- then; a redacted entry stays redacted, with its redaction record), their
-- evidence, the sharing grants in force then, memory imports, and the embeddings
-- of the copied revisions. Ids, revision numbers and stamps are kept, so the fork
-- answers every as_of question before the fork point as the origin does (but for
-- sharing grants: only those in force at the fork point are copied). Not copied:
-- hosting, runs and what they recorded, LangGraph payloads.
--
-- One statement copies every table, so the copy is read from one snapshot and
-- the foreign keys are checked once, at its end (the evidence goes in before its
-- revisions, as the evidence guard requires). The rows keep their stamps and
-- numbers (_copying). A moment later than now is now; a moment before the
-- agent's first profile revision has no state to copy (22023).
CREATE FUNCTION agent_state.fork_agent(
    agent uuid,
    handle text,
    as_of timestamptz DEFAULT NULL,
    display_name text DEFAULT NULL
)
RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET client_min_messages = warning
AS $$
#variable_conflict use_variable
DECLARE
    origin constant uuid := agent;
    fork uuid;
    moment timestamptz;
    active_rev integer;
    prof record;
    flag text := pg_catalog.current_setting('agent_state.copying', true);
BEGIN
    PERFORM agent_state._bind(origin, true);
    -- Held until commit: a redaction of the origin's entries waits for the fork
    -- to commit and then redacts its copies too (redact).
    PERFORM agent_state._lock_agent(origin);
    PERFORM agent_state._need_text(handle, 'handle', 200);
    IF display_name IS NOT NULL THEN
        PERFORM agent_state._need_text(display_name, 'display_name', 1000);
    END IF;
    -- Rows written by this statement are never copied: the moment is at most its start.
    moment := LEAST(coalesce(as_of, 'infinity'::timestamptz), pg_catalog.statement_timestamp());
    SELECT p.revision, p.settings INTO prof FROM agent_state._profile_at(origin, moment) AS p;
    IF prof.revision IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('as_of: agent %s had no state yet at %s', origin, moment);
    END IF;

    fork := agent_state._insert_agent(handle);
    INSERT INTO agent_state.agent_forks (runtime_agent_id, origin_agent_id, as_of)
    VALUES (fork, origin, moment);

    SELECT p.revision INTO active_rev FROM agent_state._persona_at(origin, moment) AS p;

    -- The copies keep their stamps and numbers (_copying). Set here for this
    -- statement only, not by a SET clause: a role without superuser may not
    -- create a function that sets a parameter no module defines. An error undoes
    -- it with the (sub)transaction.
    PERFORM pg_catalog.set_config('agent_state.copying', 'on', true);
    WITH
    profile AS (
        INSERT INTO agent_state.profile_revisions
            (runtime_agent_id, revision, display_name, settings, created_at, created_by)
        SELECT fork, p.revision, p.display_name, p.settings, p.created_at, p.created_by
        FROM agent_state.profile_revisions AS p
        WHERE p.runtime_agent_id = origin AND p.created_at <= moment
        -- Copies are written in number order: their chain stamps (sql/chains.sql)
        -- keep the order of each numbered stream.
        ORDER BY p.revision
    ),
    persona AS (
        INSERT INTO agent_state.persona_revisions
            (runtime_agent_id, revision, body, is_active, created_at, created_by)
        SELECT fork, p.revision, p.body, p.revision = active_rev, p.created_at, p.created_by
        FROM agent_state.persona_revisions AS p
        -- A revision is written a moment before its activation: at a moment
        -- between the two there was no persona yet, so none is copied.
        WHERE p.runtime_agent_id = origin AND p.created_at <= moment AND active_rev IS NOT NULL
        ORDER BY p.revision
    ),
    activations AS (
        INSERT INTO agent_state.persona_activations
            (runtime_agent_id, activation_id, revision, created_at, created_by)
        SELECT fork, a.activation_id, a.revision, a.created_at, a.created_by
        FROM agent_state.persona_activations AS a
        WHERE a.runtime_agent_id = origin AND a.created_at <= moment
        ORDER BY a.activation_id
    ),
    grants AS (
        INSERT INTO agent_state.tool_grants
            (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision,
             created_at, created_by)
        SELECT fork, g.tool_name, g.revision, g.enabled, g.config, g.tool_version, g.tool_revision,
               g.created_at, g.created_by
        FROM agent_state.tool_grants AS g
        WHERE g.runtime_agent_id = origin AND g.created_at <= moment
        ORDER BY g.tool_name, g.revision
    ),
    actors AS (
        INSERT INTO agent_state.actors (runtime_agent_id, actor_id, kind, display_name, created_at, created_by)
        SELECT fork, x.actor_id, x.kind, x.display_name, x.created_at, x.created_by
        FROM agent_state.actors AS x
        WHERE x.runtime_agent_id = origin AND x.created_at <= moment
    ),
    identities AS (
        INSERT INTO agent_state.actor_identities
            (runtime_agent_id, connector, external_id, actor_id, created_at, created_by)
        SELECT fork, i.connector, i.external_id, i.actor_id, i.created_at, i.created_by
        FROM agent_state.actor_identities AS i
        WHERE i.runtime_agent_id = origin AND i.created_at <= moment
    ),
    conversations AS (
        INSERT INTO agent_state.conversations
            (runtime_agent_id, conversation_id, connector, external_ref, kind, created_at, created_by)
        SELECT fork, c.conversation_id, c.connector, c.external_ref, c.kind, c.created_at, c.created_by
        FROM agent_state.conversations AS c
        WHERE c.runtime_agent_id = origin AND c.created_at <= moment
    ),
    messages AS (
        INSERT INTO agent_state.messages
            (runtime_agent_id, message_id, conversation_id, author_id, body, audience, external_ref,
             observed_at, created_at, created_by)
        SELECT fork, m.message_id, m.conversation_id, m.author_id, m.body, m.audience, m.external_ref,
               m.observed_at, m.created_at, m.created_by
        FROM agent_state.messages AS m
        WHERE m.runtime_agent_id = origin AND m.created_at <= moment
    ),
    imports AS (
        INSERT INTO agent_state.memory_imports
            (runtime_agent_id, import_id, document, document_sha256, created_at, created_by)
        SELECT fork, i.import_id, i.document, i.document_sha256, i.created_at, i.created_by
        FROM agent_state.memory_imports AS i
        WHERE i.runtime_agent_id = origin AND i.created_at <= moment
        ORDER BY i.import_id
    ),
    revisions AS (
        SELECT v.*
        FROM agent_state.memory_revisions AS v
        WHERE v.runtime_agent_id = origin AND v.created_at <= moment
    ),
    evidence AS (
        INSERT INTO agent_state.memory_evidence AS w (runtime_agent_id, entry_id, revision, message_id)
        SELECT fork, x.entry_id, x.revision, x.message_id
        FROM agent_state.memory_evidence AS x
        JOIN revisions AS v ON v.entry_id = x.entry_id AND v.revision = x.revision
        WHERE x.runtime_agent_id = origin
        RETURNING w.entry_id
    ),
    revisions_copied AS (
        INSERT INTO agent_state.memory_revisions
            (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility, source_type,
             source_actor_id, source_message_id, source_import_id, evidence_observers,
             evidence_conversations, reason, created_at, created_by)
        SELECT fork, v.entry_id, v.revision, v.operation, v.body, v.subject_id, v.visibility, v.source_type,
               v.source_actor_id, v.source_message_id, v.source_import_id, v.evidence_observers,
               v.evidence_conversations, v.reason, v.created_at, v.created_by
        FROM revisions AS v, (SELECT pg_catalog.count(*) FROM evidence) AS after_evidence
        ORDER BY v.entry_id, v.revision
    ),
    redactions AS (
        INSERT INTO agent_state.memory_redactions
            (runtime_agent_id, entry_id, reason, removed_sha256, redaction_xact, created_at, created_by)
        SELECT fork, d.entry_id, d.reason, d.removed_sha256, d.redaction_xact, d.created_at, d.created_by
        FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = origin
          AND EXISTS (SELECT FROM revisions AS v WHERE v.entry_id = d.entry_id)
    ),
    entries AS (
        INSERT INTO agent_state.memory_entries
            (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
             source_type, evidence_observers, evidence_conversations, revised_at, created_at, created_by)
        SELECT DISTINCT ON (v.entry_id)
               fork, v.entry_id, v.revision,
               v.operation <> 'forget' AND NOT EXISTS (
                   SELECT FROM agent_state.memory_redactions AS d
                   WHERE d.runtime_agent_id = origin AND d.entry_id = v.entry_id),
               v.body, v.subject_id, v.visibility, v.source_type, v.evidence_observers,
               v.evidence_conversations, v.created_at, e.created_at, e.created_by
        FROM revisions AS v
        JOIN agent_state.memory_entries AS e
          ON e.runtime_agent_id = origin AND e.entry_id = v.entry_id
        ORDER BY v.entry_id, v.revision DESC
    ),
    shares AS (
        INSERT INTO agent_state.memory_shares
            (runtime_agent_id, share_id, entry_id, revision, conversation_id, created_at, created_by)
        SELECT fork, s.share_id, s.entry_id, s.revision, s.conversation_id, s.created_at, s.created_by
        FROM agent_state.memory_shares AS s
        WHERE s.runtime_agent_id = origin AND s.created_at <= moment
          AND (s.revoked_at IS NULL OR s.revoked_at > moment)
    ),
    embedded AS (
        SELECT x.*
        FROM agent_state.memory_embeddings AS x
        JOIN revisions AS v ON v.entry_id = x.entry_id AND v.revision = x.revision
        WHERE x.runtime_agent_id = origin
    ),
    models AS (
        INSERT INTO agent_state.memory_embedding_models
            (runtime_agent_id, model, dimensions, created_at, created_by)
        SELECT fork, m.model, m.dimensions, m.created_at, m.created_by
        FROM agent_state.memory_embedding_models AS m
        WHERE m.runtime_agent_id = origin
          AND EXISTS (SELECT FROM embedded AS x WHERE x.model = m.model)
    )
    INSERT INTO agent_state.memory_embeddings
        (runtime_agent_id, entry_id, revision, model, dimensions, embedding, created_at, created_by)
    SELECT fork, x.entry_id, x.revision, x.model, x.dimensions, x.embedding, x.created_at, x.created_by
    FROM embedded AS x;
    PERFORM pg_catalog.set_config('agent_state.copying', coalesce(flag, ''), true);

    -- A new display name is a new profile revision of the fork, stamped now.
    IF display_name IS NOT NULL THEN
        INSERT INTO agent_state.profile_revisions (runtime_agent_id, revision, display_name, settings)
        VALUES (fork, prof.revision + 1, display_name, prof.settings);
    END IF;
    RETURN fork;
END
$$;

COMMENT ON FUNCTION agent_state.fork_agent(uuid, text, timestamptz, text) IS
'fork_agent(agent, handle, as_of => null, display_name => null) -> uuid (operator): a new agent '
'with a copy of the state as it was at as_of (default and at most now): persona, profile and '
'tool-grant revisions, actors and identity links, conversations and messages with their '
'audiences, memory entries with their revisions, evidence, imports, the sharing grants in force '
'then and the embeddings of the copied revisions; ids, revision numbers and stamps kept. Not '
'copied: hosting, runs, LangGraph payloads. display_name: a new profile revision of the fork. '
'handle taken: 23505; an as_of before the agent had any state: 22023. fork_origin tells where '
'a fork came from; redact follows an entry into every copy.';
