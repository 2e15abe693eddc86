CREATE FUNCTION agent_state.graph_list_namespaces(
    agent uuid,
    prefix text [] DEFAULT NULL,
    suffix text [] DEFAULT NULL,
    max_depth integer DEFAULT NULL,
    max_results integer DEFAULT 100,
    skip integer DEFAULT 0
)
RETURNS TABLE (namespace text [])
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._bind(agent);
    -- A prefix or suffix beyond the limits of a stored namespace matches none:
    -- refused before it is read (22023).
    PERFORM agent_state._need_graph_labels(prefix, 'prefix');
    PERFORM agent_state._need_graph_labels(suffix, 'suffix');
    IF max_results < 0 OR skip < 0 OR max_depth < 1 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = 'max_results: max_results and skip >= 0, max_depth >= 1';
    END IF;
    -- '*' in a prefix or suffix matches any one label (LangGraph's wildcard).
    RETURN QUERY
    SELECT DISTINCT n.ns
    FROM (
        SELECT CASE WHEN max_depth IS NULL THEN i.namespace ELSE i.namespace[1:max_depth] END AS ns,
               i.namespace AS full_ns
        FROM agent_state.graph_items AS i
        JOIN agent_state.memory_entries AS e
          ON e.runtime_agent_id = i.runtime_agent_id AND e.entry_id = i.entry_id AND e.live
        WHERE i.runtime_agent_id = agent
    ) AS n
    WHERE (prefix IS NULL OR (
              pg_catalog.cardinality(n.full_ns) >= pg_catalog.cardinality(prefix)
              AND NOT EXISTS (
                  SELECT FROM pg_catalog.generate_subscripts(prefix, 1) AS g
                  WHERE prefix[g] <> '*' AND prefix[g] <> n.full_ns[g])))
      AND (suffix IS NULL OR (
              pg_catalog.cardinality(n.full_ns) >= pg_catalog.cardinality(suffix)
              AND NOT EXISTS (
                  SELECT FROM pg_catalog.generate_subscripts(suffix, 1) AS g
                  WHERE suffix[g] <> '*'
                    AND suffix[g] <> n.full_ns[pg_catalog.cardinality(n.full_ns)
                                              - pg_catalog.cardinality(suffix) + g])))
    ORDER BY 1
    LIMIT max_results OFFSET skip;
END
$$;

COMMENT ON FUNCTION agent_state.graph_list_namespaces(uuid, text [], text [], integer, integer, integer) IS
'graph_list_namespaces(agent, prefix => null, suffix => null, max_depth => null, max_results => '
'100, skip => 0) -> namespace (for the LangGraph store): the distinct namespaces of live items '
'(''*'' in prefix or suffix matches any label), cut to max_depth labels, sorted. Reads only.';
