CREATE FUNCTION agent_state.export_markdown(agent uuid, as_of timestamptz DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    title text;
    handle text;
    persona text;
    memories text;
    grants text;
BEGIN
    PERFORM agent_state._bind(agent);

    SELECT agent_state._md_line(coalesce(p.display_name, a.handle)), agent_state._md_line(a.handle)
    INTO title, handle
    FROM agent_state.agents AS a
    LEFT JOIN LATERAL agent_state._profile_at(agent, as_of) AS p ON true
    WHERE a.runtime_agent_id = agent;

    -- The persona is quoted, so its text can never read as a section of the export.
    SELECT '## Persona (revision ' || r.revision || E')\n\n'
        || pg_catalog.regexp_replace(
            '> ' || pg_catalog.replace(agent_state._md_body(r.body), E'\n', E'\n> '), '> $', '>', 'gn')
    INTO persona
    FROM agent_state.active_persona(agent, as_of) AS r;

    -- Entries live at the moment (each as its revision current then), grouped by
    -- subject (by display name, then actor id; unattributed last), each group
    -- oldest entry first. A redacted entry is left out whatever the moment. Each item's first line is its
    -- provenance (entry, current revision, visibility, source), written by the
    -- database, so no body text can pass for it; the body follows, indented.
    WITH e AS (
        SELECT m.entry_id, r.revision AS current_revision, r.body, r.subject_id, r.visibility,
               m.created_at, r.source_type, r.source_actor_id, r.source_import_id,
               subj.display_name AS subject_name,
               src.display_name AS source_name,
               (SELECT pg_catalog.count(*)
                FROM agent_state._revision_evidence(m.runtime_agent_id, m.entry_id,
                                                    r.revision)) AS evidence_count
        FROM agent_state.memory_entries AS m
        CROSS JOIN LATERAL (
            SELECT v.*
            FROM agent_state.memory_revisions AS v
            WHERE v.runtime_agent_id = m.runtime_agent_id AND v.entry_id = m.entry_id
              AND (as_of IS NULL OR v.created_at <= as_of)
            ORDER BY v.revision DESC
            LIMIT 1
        ) AS r
        LEFT JOIN agent_state.actors AS subj
          ON subj.runtime_agent_id = m.runtime_agent_id AND subj.actor_id = r.subject_id
        LEFT JOIN agent_state.actors AS src
          ON src.runtime_agent_id = r.runtime_agent_id AND src.actor_id = r.source_actor_id
        WHERE m.runtime_agent_id = agent AND r.operation <> 'forget'
          AND NOT EXISTS (
              SELECT FROM agent_state.memory_redactions AS x
              WHERE x.runtime_agent_id = m.runtime_agent_id AND x.entry_id = m.entry_id
          )
    ),
    groups AS (
        SELECT e.subject_id, e.subject_name,
               CASE WHEN e.subject_id IS NULL THEN '### Unattributed'
                   ELSE '### ' || agent_state._md_line(coalesce(e.subject_name, 'Unnamed actor'))
                       || ' (' || e.subject_id || ')'
               END || E'\n\n' || pg_catalog.string_agg(
                   '- (entry ' || e.entry_id || ', revision ' || e.current_revision
                   || ', ' || e.visibility || ', source ' || e.source_type
                   || CASE WHEN e.source_actor_id IS NOT NULL
                       THEN ', actor ' || agent_state._md_line(coalesce(e.source_name, 'Unnamed actor'))
                           || ' (' || e.source_actor_id || ')'
                       ELSE '' END
                   || CASE WHEN e.source_import_id IS NOT NULL
                       THEN ', import ' || e.source_import_id ELSE '' END
                   || CASE WHEN e.evidence_count = 1 THEN ', 1 evidence message'
                       WHEN e.evidence_count > 1 THEN ', ' || e.evidence_count || ' evidence messages'
                       ELSE '' END
                   || E')\n  ' || pg_catalog.regexp_replace(
                       agent_state._md_body(e.body), E'\n(?=[^\n])', E'\n  ', 'g'),
                   E'\n' ORDER BY e.created_at, e.entry_id) AS txt
        FROM e
        GROUP BY e.subject_id, e.subject_name
    )
    SELECT pg_catalog.string_agg(g.txt, E'\n\n'
        ORDER BY g.subject_id IS NULL, g.subject_name COLLATE "C" NULLS LAST, g.subject_id)
    INTO memories
    FROM groups AS g;

    SELECT pg_catalog.string_agg(
        '- ' || agent_state._md_line(g.tool_name) || ': revision ' || g.revision
        || CASE WHEN g.enabled THEN ', enabled' ELSE ', disabled' END
        || ', config ' || agent_state._json_canonical(g.config)
        || ', tool version ' || agent_state._md_line(g.tool_version),
        E'\n' ORDER BY g.tool_name COLLATE "C")
    INTO grants
    FROM (
        SELECT * FROM agent_state._grants_at(agent, as_of)
    ) AS g;

    RETURN pg_catalog.array_to_string(ARRAY[
        '# ' || title,
        'Agent `' || handle || '` (' || agent || '), exported from agent_state. '
        || 'This file is a view; the database is canonical.',
        coalesce(persona, E'## Persona (none)\n\nNo persona revision is active.'),
        '## Memories',
        coalesce(memories, 'No live memories.'),
        '## Tool grants',
        coalesce(grants, 'No tool grants.')
    ], E'\n\n') || E'\n';
END
$$;

COMMENT ON FUNCTION agent_state.export_markdown(uuid, timestamptz) IS
'export_markdown(agent, as_of => null) -> text: deterministic markdown view of the agent now, '
'or as it was at the moment as_of: profile, active persona with its revision, live memories '
'grouped by subject with revision, visibility and provenance, and the grant of each tool '
'current then. Redacted entries are never shown. Reads only; the same state gives the same text.';
