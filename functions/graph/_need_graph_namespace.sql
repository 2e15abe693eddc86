-- A LangGraph store namespace: 1 to 100 non-empty labels without dots (LangGraph's
-- own rule), each at most 200 bytes and together at most 900 (_need_graph_labels,
-- first: the sizes are read from headers); 22004 null, 22023 otherwise. A SQL
-- function with no SET clause, so that a huge namespace is not copied before it
-- is refused (see _raise); granted to no one.
CREATE FUNCTION agent_state._need_graph_namespace(namespace text [])
RETURNS void
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE
        WHEN namespace IS NULL THEN agent_state._raise('22004', 'namespace: must not be null')
        WHEN agent_state._need_graph_labels(namespace, 'namespace')
            AND pg_catalog.cardinality(namespace) OPERATOR(pg_catalog.>=) 1
            AND pg_catalog.array_ndims(namespace) OPERATOR(pg_catalog.=) 1
            AND NOT EXISTS (SELECT FROM pg_catalog.unnest(namespace) AS l
                            WHERE l IS NULL OR l OPERATOR(pg_catalog.=) ''
                               OR pg_catalog.strpos(l, '.') OPERATOR(pg_catalog.>) 0)
            THEN true
        ELSE agent_state._raise('22023',
                                'namespace: 1 to 100 labels, each non-empty, without dots, at most 200 bytes')
    END
$$;
