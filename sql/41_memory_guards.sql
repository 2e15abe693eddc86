-- Memory guards: the invariants of sql/40_memory.sql held by the database, whatever
-- path writes (functions, or direct DML by a role granted table privileges).
--
-- * memory_entries: never deleted; at commit each written entry equals its latest
--   revision (body, subject, visibility, source type, evidence fields, revised_at),
--   and live = (that revision is not a forget and the entry is not redacted).
-- * memory_revisions: append-only. At commit each new revision's evidence fields
--   equal what its memory_evidence rows and their messages' audiences give, it
--   keeps all evidence of the revision before it, never widens visibility, never
--   follows a forget or a redaction, and the source actor is the source message's
--   author. The one UPDATE allowed is the redaction rewrite: body := '[redacted]',
--   nothing else, in the transaction that wrote the entry's memory_redactions row.
-- * memory_evidence: append-only, and written before its revision row, in the same
--   statement (its foreign key is checked at the end of that statement): once a
--   revision row exists its evidence set never changes, so the check of what the
--   revision claims, run at commit (or at the end of the statement with SET
--   CONSTRAINTS ALL IMMEDIATE), has seen all of it.
-- * memory_shares: never deleted; the only change is revoking an active grant,
--   stamped by the database.
-- * memory_redactions, memory_imports: append-only (a redaction may add the
--   snapshot hashes to its own row in the transaction that wrote it).

-- Does the entry's current state equal its latest revision? Raises 23503 when
-- the current revision is missing and 23514 on any difference: the current
-- revision must be the latest one, and body, subject, visibility, source type,
-- evidence fields and revised_at must be copied from it; live must be
-- (not a forget, not redacted).
CREATE FUNCTION agent_state._check_entry_state(agent uuid, entry uuid)
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    ok boolean;
    has_revision boolean;
    cur integer;
BEGIN
    SELECT e.current_revision, r.revision IS NOT NULL,
           e.current_revision = (
               SELECT x.revision FROM agent_state.memory_revisions AS x
               WHERE x.runtime_agent_id = e.runtime_agent_id AND x.entry_id = e.entry_id
               ORDER BY x.revision DESC LIMIT 1)
           AND e.body = r.body
           AND e.subject_id IS NOT DISTINCT FROM r.subject_id
           AND e.visibility = r.visibility
           AND e.source_type = r.source_type
           AND e.evidence_observers IS NOT DISTINCT FROM r.evidence_observers
           AND e.evidence_conversations = r.evidence_conversations
           AND e.revised_at = r.created_at
           AND e.live = (r.operation <> 'forget' AND NOT EXISTS (
               SELECT FROM agent_state.memory_redactions AS d
               WHERE d.runtime_agent_id = e.runtime_agent_id AND d.entry_id = e.entry_id))
    INTO cur, has_revision, ok
    FROM agent_state.memory_entries AS e
    LEFT JOIN agent_state.memory_revisions AS r
      ON r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id
     AND r.revision = e.current_revision
    WHERE e.runtime_agent_id = agent AND e.entry_id = entry;
    IF NOT FOUND THEN
        -- The revision's own foreign key reports a missing entry.
        RETURN;
    END IF;
    IF NOT has_revision THEN
        RAISE EXCEPTION USING
            ERRCODE = '23503',
            MESSAGE = pg_catalog.format('memory_entries: entry %s has no revision %s', entry, cur),
            HINT = 'An entry and its revision commit in one transaction.';
    END IF;
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_entries: entry %s does not match its latest revision', entry),
            HINT = 'The current state of an entry is always its latest revision.';
    END IF;
END
$$;

-- Did the current transaction write the redaction row of this entry? The only
-- authority for rewriting the text of its revisions and prompt snapshots.
CREATE FUNCTION agent_state._redaction_allowed(agent uuid, entry uuid)
RETURNS boolean
LANGUAGE sql
STABLE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (
        SELECT FROM agent_state.memory_redactions AS d
        WHERE d.runtime_agent_id = agent AND d.entry_id = entry
          AND d.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
    )
$$;

-- Entry updates that do not advance the current revision (a new revision runs
-- the full check below): deferred check at commit.
CREATE FUNCTION agent_state._check_memory_entry()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._check_entry_state(NEW.runtime_agent_id, NEW.entry_id);
    RETURN NULL;
END
$$;

-- Revision: deferred check at commit of what a new revision claims, and of the
-- entry state written with it. One query gathers what the evidence gives, the
-- entry state and what the revision before it allows; the checks below then
-- raise in a fixed order.
CREATE FUNCTION agent_state._check_memory_revision()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n_messages bigint;
    n_private bigint;
    convs uuid [];
    source_author uuid [];
    observers uuid [];
    bad text;
    entry_found boolean;
    cur integer;
    has_revision boolean;
    state_ok boolean;
    prev_found boolean;
BEGIN
    SELECT ev.n_messages, ev.n_private, ev.convs, ev.source_author, ev.observers,
           st.current_revision IS NOT NULL, st.current_revision, st.has_revision, st.ok,
           prev.revision IS NOT NULL, prev.bad
    INTO n_messages, n_private, convs, source_author, observers,
         entry_found, cur, has_revision, state_ok, prev_found, bad
    FROM (
        -- What the evidence gives (one message: its audience is the observer set).
        SELECT pg_catalog.count(*) AS n_messages,
               pg_catalog.count(*) FILTER (WHERE m.audience IS NOT NULL) AS n_private,
               coalesce(pg_catalog.array_agg(DISTINCT m.conversation_id), '{}') AS convs,
               pg_catalog.array_agg(m.author_id) FILTER (WHERE m.message_id = NEW.source_message_id)
                   AS source_author,
               pg_catalog.min(m.audience) AS observers
        FROM agent_state.memory_evidence AS v
        JOIN agent_state.messages AS m
          ON m.runtime_agent_id = v.runtime_agent_id AND m.message_id = v.message_id
        WHERE v.runtime_agent_id = NEW.runtime_agent_id AND v.entry_id = NEW.entry_id
          AND v.revision = NEW.revision
    ) AS ev
    LEFT JOIN LATERAL (
        -- The entry's current state against its current revision (what
        -- _check_entry_state checks, inlined).
        SELECT e.current_revision, r.revision IS NOT NULL AS has_revision,
               e.current_revision = (
                   SELECT x.revision FROM agent_state.memory_revisions AS x
                   WHERE x.runtime_agent_id = e.runtime_agent_id AND x.entry_id = e.entry_id
                   ORDER BY x.revision DESC LIMIT 1)
               AND e.body = r.body
               AND e.subject_id IS NOT DISTINCT FROM r.subject_id
               AND e.visibility = r.visibility
               AND e.source_type = r.source_type
               AND e.evidence_observers IS NOT DISTINCT FROM r.evidence_observers
               AND e.evidence_conversations = r.evidence_conversations
               AND e.revised_at = r.created_at
               AND e.live = (r.operation <> 'forget' AND NOT EXISTS (
                   SELECT FROM agent_state.memory_redactions AS d
                   WHERE d.runtime_agent_id = e.runtime_agent_id AND d.entry_id = e.entry_id))
               AS ok
        FROM agent_state.memory_entries AS e
        LEFT JOIN agent_state.memory_revisions AS r
          ON r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id
         AND r.revision = e.current_revision
        WHERE e.runtime_agent_id = NEW.runtime_agent_id AND e.entry_id = NEW.entry_id
    ) AS st ON true
    LEFT JOIN LATERAL (
        -- What the revision before it allows (none for a create: revisions start
        -- at 1). The subqueries only run when that revision exists.
        SELECT p.revision,
               CASE
                   WHEN p.operation = 'forget' THEN 'follows a forget'
                   WHEN p.visibility = 'conversation' AND NEW.visibility <> 'conversation'
                       THEN 'widens visibility'
                   WHEN EXISTS (
                       SELECT FROM agent_state.memory_redactions AS d
                       WHERE d.runtime_agent_id = NEW.runtime_agent_id AND d.entry_id = NEW.entry_id
                         AND d.created_at <= NEW.created_at)
                       THEN 'follows a redaction'
                   WHEN EXISTS (
                       SELECT FROM agent_state.memory_evidence AS v
                       WHERE v.runtime_agent_id = NEW.runtime_agent_id AND v.entry_id = NEW.entry_id
                         AND v.revision = NEW.revision - 1
                         AND NOT EXISTS (
                             SELECT FROM agent_state.memory_evidence AS w
                             WHERE w.runtime_agent_id = v.runtime_agent_id AND w.entry_id = v.entry_id
                               AND w.revision = NEW.revision AND w.message_id = v.message_id))
                       THEN 'drops evidence of the revision before it'
               END AS bad
        FROM agent_state.memory_revisions AS p
        WHERE p.runtime_agent_id = NEW.runtime_agent_id AND p.entry_id = NEW.entry_id
          AND p.revision = NEW.revision - 1
    ) AS prev ON true;

    IF n_private = 0 THEN
        observers := NULL;
    ELSIF n_messages > 1 THEN
        -- Who could observe every non-public evidence message.
        SELECT coalesce(pg_catalog.array_agg(x.a), '{}') INTO observers
        FROM (
            SELECT a.a
            FROM agent_state.memory_evidence AS v
            JOIN agent_state.messages AS m
              ON m.runtime_agent_id = v.runtime_agent_id AND m.message_id = v.message_id
            CROSS JOIN LATERAL pg_catalog.unnest(m.audience) AS a (a)
            WHERE v.runtime_agent_id = NEW.runtime_agent_id AND v.entry_id = NEW.entry_id
              AND v.revision = NEW.revision
            GROUP BY a.a
            HAVING pg_catalog.count(DISTINCT v.message_id) = n_private
        ) AS x;
    END IF;

    -- NULL (unrestricted) equals only NULL; otherwise set equality.
    IF (NEW.evidence_observers IS NULL) <> (observers IS NULL)
        OR NOT coalesce(NEW.evidence_observers <@ observers AND observers <@ NEW.evidence_observers, true)
        OR NOT (NEW.evidence_conversations <@ convs AND convs <@ NEW.evidence_conversations) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_revisions: revision %s of entry %s claims evidence observers or '
                'conversations its evidence messages do not give', NEW.revision, NEW.entry_id);
    END IF;
    IF NEW.source_message_id IS NOT NULL
        AND (source_author IS NULL OR source_author[1] IS DISTINCT FROM NEW.source_actor_id) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_revisions: revision %s of entry %s: the source message must be part of '
                'its evidence and the source actor its author', NEW.revision, NEW.entry_id);
    END IF;
    IF NEW.revision > 1 THEN
        IF NOT prev_found THEN
            bad := 'follows no revision';
        END IF;
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = CASE WHEN bad IN ('follows a forget', 'follows a redaction') THEN '55000'
                               ELSE '23514' END,
                MESSAGE = pg_catalog.format('memory_revisions: revision %s of entry %s %s',
                                            NEW.revision, NEW.entry_id, bad);
        END IF;
    END IF;

    -- The revision is written together with the entry state it produced (a
    -- missing entry is reported by the revision's own foreign key).
    IF entry_found THEN
        IF NOT has_revision THEN
            RAISE EXCEPTION USING
                ERRCODE = '23503',
                MESSAGE = pg_catalog.format('memory_entries: entry %s has no revision %s',
                                            NEW.entry_id, cur),
                HINT = 'An entry and its revision commit in one transaction.';
        END IF;
        IF state_ok IS NOT TRUE THEN
            RAISE EXCEPTION USING
                ERRCODE = '23514',
                MESSAGE = pg_catalog.format(
                    'memory_entries: entry %s does not match its latest revision', NEW.entry_id),
                HINT = 'The current state of an entry is always its latest revision.';
        END IF;
    END IF;
    RETURN NULL;
END
$$;

-- Revisions: the one permitted UPDATE is the redaction rewrite of the body.
CREATE FUNCTION agent_state._guard_memory_revision()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF pg_catalog.to_jsonb(NEW) = pg_catalog.to_jsonb(OLD) THEN
            RETURN NEW;
        END IF;
        IF NEW.body = '[redacted]'
            AND (pg_catalog.to_jsonb(NEW) - 'body') = (pg_catalog.to_jsonb(OLD) - 'body')
            AND agent_state._redaction_allowed(OLD.runtime_agent_id, OLD.entry_id) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s is append-only; history is never rewritten',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP)),
        HINT = 'Write a new revision instead; erasure goes through agent_state.redact.';
END
$$;

-- Evidence is written before its revision row (in the same statement).
CREATE FUNCTION agent_state._guard_memory_evidence()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.entry_id = NEW.entry_id
          AND r.revision = NEW.revision
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format(
                'memory_evidence: revision %s of entry %s is already written; its evidence is fixed',
                NEW.revision, NEW.entry_id);
    END IF;
    RETURN NEW;
END
$$;

-- Shares: only revoking an active grant, stamped by the database.
CREATE FUNCTION agent_state._guard_memory_share()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF pg_catalog.to_jsonb(NEW) = pg_catalog.to_jsonb(OLD) THEN
            RETURN NEW;
        END IF;
        IF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
            AND (pg_catalog.to_jsonb(NEW) - ARRAY['revoked_at', 'revoked_by'])
                = (pg_catalog.to_jsonb(OLD) - ARRAY['revoked_at', 'revoked_by']) THEN
            NEW.revoked_at := pg_catalog.clock_timestamp();
            NEW.revoked_by := agent_state._caller();
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s refused; a grant is only ever revoked',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP)),
        HINT = 'Use agent_state.unshare.';
END
$$;

-- Shares are created active; revocation is stamped, never supplied.
CREATE FUNCTION agent_state._stamp_memory_share()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.revoked_at := NULL;
    NEW.revoked_by := NULL;
    RETURN NEW;
END
$$;

-- Redactions: stamped with the writing transaction; append-only, except that the
-- transaction that wrote a row may append hashes to removed_sha256.
CREATE FUNCTION agent_state._guard_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.redaction_xact := pg_catalog.pg_current_xact_id();
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE'
        AND OLD.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
        AND (pg_catalog.to_jsonb(NEW) - 'removed_sha256') = (pg_catalog.to_jsonb(OLD) - 'removed_sha256')
        AND NEW.removed_sha256[1:pg_catalog.cardinality(OLD.removed_sha256)] = OLD.removed_sha256 THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s refused; the redaction record is append-only',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP));
END
$$;

-- At commit of a redaction: every revision of the entry carries the marker, and
-- the entry is retired with the marker as its body.
CREATE FUNCTION agent_state._check_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (
        SELECT FROM agent_state.memory_revisions AS r
        WHERE r.runtime_agent_id = NEW.runtime_agent_id AND r.entry_id = NEW.entry_id
          AND r.body <> '[redacted]'
    ) OR EXISTS (
        SELECT FROM agent_state.memory_entries AS e
        WHERE e.runtime_agent_id = NEW.runtime_agent_id AND e.entry_id = NEW.entry_id
          AND (e.live OR e.body <> '[redacted]')
    ) THEN
        RAISE EXCEPTION USING
            ERRCODE = '23514',
            MESSAGE = pg_catalog.format(
                'memory_redactions: entry %s still holds text that its redaction removed', NEW.entry_id);
    END IF;
    RETURN NULL;
END
$$;

-- Triggers.

-- Inserting an entry, or advancing its current revision, always comes with a new
-- revision (the composite foreign key), whose check covers the entry. Any other
-- update is checked here.
CREATE CONSTRAINT TRIGGER memory_entries_revision_check
AFTER UPDATE ON agent_state.memory_entries
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW WHEN (new.current_revision <= old.current_revision)
EXECUTE FUNCTION agent_state._check_memory_entry();

CREATE TRIGGER memory_entries_no_delete
BEFORE DELETE ON agent_state.memory_entries
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE CONSTRAINT TRIGGER memory_revisions_evidence_check
AFTER INSERT ON agent_state.memory_revisions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION agent_state._check_memory_revision();

CREATE TRIGGER memory_revisions_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_revisions
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_memory_revision();

CREATE TRIGGER memory_evidence_before_revision
BEFORE INSERT ON agent_state.memory_evidence
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_memory_evidence();

CREATE TRIGGER memory_evidence_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_evidence
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();

CREATE TRIGGER memory_shares_created_active
BEFORE INSERT ON agent_state.memory_shares
FOR EACH ROW EXECUTE FUNCTION agent_state._stamp_memory_share();

CREATE TRIGGER memory_shares_revoke_only
BEFORE UPDATE OR DELETE ON agent_state.memory_shares
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_memory_share();

CREATE TRIGGER memory_redactions_stamp_xact
BEFORE INSERT OR UPDATE OR DELETE ON agent_state.memory_redactions
FOR EACH ROW EXECUTE FUNCTION agent_state._guard_memory_redaction();

CREATE CONSTRAINT TRIGGER memory_redactions_complete_check
AFTER INSERT ON agent_state.memory_redactions
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION agent_state._check_memory_redaction();

CREATE TRIGGER memory_imports_append_only
BEFORE UPDATE OR DELETE ON agent_state.memory_imports
FOR EACH ROW EXECUTE FUNCTION agent_state._refuse_change();
