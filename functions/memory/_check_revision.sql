-- What a revision claims, and the entry state written with it: the check run at
-- commit for every new revision (_tg_check_memory_revision) and by verify() for
-- every stored one. One query gathers what the evidence gives and what the
-- revision before it allows; the checks below then raise in a fixed order, the
-- entry's state last (_check_entry_state, the one place that rule is written).
CREATE FUNCTION agent_state._check_revision(
    agent uuid,
    entry uuid,
    rev integer,
    source_message uuid,
    source_actor uuid,
    claimed_observers uuid [],
    claimed_conversations uuid [],
    vis text,
    written_at timestamptz
)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n_messages bigint;
    n_private bigint;
    convs uuid [];
    source_author uuid [];
    observers uuid [];
    bad text;
    prev_found boolean;
BEGIN
    SELECT ev.n_messages, ev.n_private, ev.convs, ev.source_author, ev.observers,
           prev.revision IS NOT NULL, prev.bad
    INTO n_messages, n_private, convs, source_author, observers,
         prev_found, bad
    FROM (
        -- What the evidence gives (one message: its audience is the observer set).
        -- The revision's row is there (this runs after its insert, or on stored
        -- rows), so _revision_evidence reads its source message with its rows.
        SELECT pg_catalog.count(*) AS n_messages,
               pg_catalog.count(*) FILTER (WHERE m.audience IS NOT NULL) AS n_private,
               coalesce(pg_catalog.array_agg(DISTINCT m.conversation_id), '{}') AS convs,
               pg_catalog.array_agg(m.author_id) FILTER (WHERE m.message_id = source_message)
                   AS source_author,
               pg_catalog.min(m.audience) AS observers
        FROM agent_state._revision_evidence(agent, entry, rev) AS v (message_id)
        JOIN agent_state.messages AS m
          ON m.runtime_agent_id = agent AND m.message_id = v.message_id
    ) AS ev
    LEFT JOIN LATERAL (
        -- What the revision before it allows (none for a create: revisions start
        -- at 1). The subqueries only run when that revision exists.
        SELECT p.revision,
               CASE
                   -- Only a restore (restore_agent) follows a forget, and only a
                   -- forget is followed by a restore.
                   WHEN p.operation = 'forget' AND c.operation IS DISTINCT FROM 'restore'
                       THEN 'follows a forget'
                   WHEN p.operation <> 'forget' AND c.operation = 'restore'
                       THEN 'restores an entry that is not forgotten'
                   WHEN p.visibility = 'conversation' AND vis <> 'conversation'
                       THEN 'widens visibility'
                   WHEN EXISTS (
                       SELECT FROM agent_state.memory_redactions AS d
                       WHERE d.runtime_agent_id = agent AND d.entry_id = entry
                         AND d.created_at <= written_at)
                       THEN 'follows a redaction'
                   WHEN EXISTS (
                       SELECT pv.message_id FROM agent_state._revision_evidence(agent, entry, rev - 1) AS pv (message_id)
                       EXCEPT
                       SELECT v.message_id FROM agent_state._revision_evidence(agent, entry, rev) AS v (message_id))
                       THEN 'drops evidence of the revision before it'
               END AS bad
        FROM agent_state.memory_revisions AS p
        LEFT JOIN agent_state.memory_revisions AS c
          ON c.runtime_agent_id = agent AND c.entry_id = entry AND c.revision = rev
        WHERE p.runtime_agent_id = agent AND p.entry_id = entry
          AND p.revision = rev - 1
    ) AS prev ON true;

    IF n_private = 0 THEN
        observers := NULL;
    ELSIF n_messages > 1 THEN
        -- Who could observe every non-public evidence message.
        SELECT coalesce(pg_catalog.array_agg(x.a), '{}') INTO observers
        FROM (
            SELECT a.a
            FROM agent_state._revision_evidence(agent, entry, rev) AS v (message_id)
            JOIN agent_state.messages AS m
              ON m.runtime_agent_id = agent AND m.message_id = v.message_id
            CROSS JOIN LATERAL pg_catalog.unnest(m.audience) AS a (a)
            GROUP BY a.a
            HAVING pg_catalog.count(DISTINCT v.message_id) = n_private
        ) AS x;
    END IF;

    -- The first problem, in this order, overrides what the revision before
    -- allows (bad); a first revision has none before it. NULL (unrestricted)
    -- observers equal only NULL; otherwise set equality.
    IF (claimed_observers IS NULL) <> (observers IS NULL)
        OR NOT coalesce(claimed_observers <@ observers AND observers <@ claimed_observers, true)
        OR NOT (claimed_conversations <@ convs AND convs <@ claimed_conversations) THEN
        bad := 'claims evidence observers or conversations its evidence messages do not give';
    ELSIF source_message IS NOT NULL
        AND (source_author IS NULL OR source_author[1] IS DISTINCT FROM source_actor) THEN
        bad := 'has a source message outside its evidence or a source actor other than its author';
    ELSIF rev > 1 AND NOT prev_found THEN
        bad := 'follows no revision';
    END IF;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN bad IN ('follows a forget', 'follows a redaction') THEN '55000' ELSE '23514' END,
            MESSAGE = pg_catalog.format('memory_revisions: revision %s of entry %s %s', rev, entry, bad);
    END IF;

    -- The revision is written together with the entry state it produced (a
    -- missing entry is reported by the revision's own foreign key).
    PERFORM agent_state._check_entry_state(agent, entry);
    RETURN;
END
$$;
