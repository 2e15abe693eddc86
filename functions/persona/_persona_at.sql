-- The persona revision active at a moment (null: now): the newest activation
-- written by then. A moment before the first activation has none. The one rule
-- behind active_persona, restore_agent and fork_agent. LANGUAGE sql without a
-- SET clause so that it inlines into its callers, which pin the search_path;
-- not granted to anyone.
CREATE FUNCTION agent_state._persona_at(agent uuid, as_of timestamptz)
RETURNS TABLE (revision integer, activated_at timestamptz)
LANGUAGE sql STABLE
AS $$
    SELECT a.revision, a.created_at
    FROM agent_state.persona_activations AS a
    WHERE a.runtime_agent_id = agent
      AND (as_of IS NULL OR a.created_at OPERATOR(pg_catalog.<=) as_of)
    ORDER BY a.created_at DESC, a.activation_id DESC
    LIMIT 1
$$;
