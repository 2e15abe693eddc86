-- Every change of an agent's state (SPEC section 13), from the append-only
-- tables themselves: nothing is logged twice. Each branch is a range scan of
-- one agent's rows in the window (memory revisions through
-- memory_revisions_time_idx; the other tables are small per agent), cut to
-- max_results before the merge.
CREATE FUNCTION agent_state.timeline(
    agent uuid,
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    max_results integer DEFAULT 1000
)
RETURNS TABLE (
    at timestamptz, kind text, object text, operation text, revision integer, changed_by text
)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    lo constant timestamptz := coalesce(since, '-infinity');
    hi constant timestamptz := coalesce(until, 'infinity');
BEGIN
    PERFORM agent_state._bind(agent);
    PERFORM agent_state._need_count(max_results, 'max_results', 1, 100000);
    RETURN QUERY
    SELECT c.at, c.kind, c.object, c.operation, c.revision, c.changed_by
    FROM (
        (SELECT r.created_at AS at, 'persona'::text AS kind, NULL::text AS object,
                'revise'::text AS operation, r.revision, r.created_by::text AS changed_by, 1 AS k
         FROM agent_state.persona_revisions AS r
         WHERE r.runtime_agent_id = agent AND r.created_at BETWEEN lo AND hi
         ORDER BY r.created_at LIMIT max_results)
        UNION ALL
        (SELECT a.created_at, 'persona', NULL, 'activate', a.revision, a.created_by::text, 2
         FROM agent_state.persona_activations AS a
         WHERE a.runtime_agent_id = agent AND a.created_at BETWEEN lo AND hi
         ORDER BY a.created_at LIMIT max_results)
        UNION ALL
        (SELECT p.created_at, 'profile', NULL, 'revise', p.revision, p.created_by::text, 3
         FROM agent_state.profile_revisions AS p
         WHERE p.runtime_agent_id = agent AND p.created_at BETWEEN lo AND hi
         ORDER BY p.created_at LIMIT max_results)
        UNION ALL
        (SELECT m.created_at, 'memory', m.entry_id::text, m.operation, m.revision,
                m.created_by::text, 4
         FROM agent_state.memory_revisions AS m
         WHERE m.runtime_agent_id = agent AND m.created_at BETWEEN lo AND hi
         ORDER BY m.created_at LIMIT max_results)
        UNION ALL
        (SELECT x.created_at, 'memory', x.entry_id::text, 'redact', NULL::integer,
                x.created_by::text, 5
         FROM agent_state.memory_redactions AS x
         WHERE x.runtime_agent_id = agent AND x.created_at BETWEEN lo AND hi
         ORDER BY x.created_at LIMIT max_results)
        UNION ALL
        (SELECT s.created_at, 'share', s.entry_id::text, 'share', s.revision, s.created_by::text, 6
         FROM agent_state.memory_shares AS s
         WHERE s.runtime_agent_id = agent AND s.created_at BETWEEN lo AND hi
         ORDER BY s.created_at LIMIT max_results)
        UNION ALL
        (SELECT s.revoked_at, 'share', s.entry_id::text, 'unshare', s.revision,
                s.revoked_by::text, 7
         FROM agent_state.memory_shares AS s
         WHERE s.runtime_agent_id = agent AND s.revoked_at BETWEEN lo AND hi
         ORDER BY s.revoked_at LIMIT max_results)
        UNION ALL
        (SELECT g.created_at, 'tool', g.tool_name, 'grant', g.revision, g.created_by::text, 8
         FROM agent_state.tool_grants AS g
         WHERE g.runtime_agent_id = agent AND g.created_at BETWEEN lo AND hi
         ORDER BY g.created_at LIMIT max_results)
    ) AS c
    ORDER BY c.at, c.k, c.object COLLATE "C", c.revision
    LIMIT max_results;
END
$$;

COMMENT ON FUNCTION agent_state.timeline(uuid, timestamptz, timestamptz, integer) IS
'timeline(agent, since => null, until => null, max_results => 1000) -> table(at, kind, object, '
'operation, revision, changed_by): every change of the state with since <= at <= until, oldest '
'first. kind persona (revise, activate), profile (revise), memory (create, amend, forget, '
'restore, redact; object: the entry id), share (share, unshare; object: the entry id), tool '
'(grant; object: the tool name). max_results 1-100000 (22023).';
