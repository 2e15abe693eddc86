-- The profile revision current at a moment (null: now): the newest revision
-- written by then. A moment before the agent's first revision has none.
-- LANGUAGE sql without a SET clause so that it inlines into its callers, which
-- pin the search_path; not granted to anyone.
CREATE FUNCTION agent_state._profile_at(agent uuid, as_of timestamptz)
RETURNS TABLE (revision integer, display_name text, settings jsonb)
LANGUAGE sql STABLE
AS $$
    SELECT p.revision, p.display_name, p.settings
    FROM agent_state.profile_revisions AS p
    WHERE p.runtime_agent_id = agent
      AND (as_of IS NULL OR p.created_at OPERATOR(pg_catalog.<=) as_of)
    ORDER BY p.revision DESC
    LIMIT 1
$$;
