-- A LangGraph store namespace: 1 to 100 non-empty labels without dots (LangGraph's
-- own rule), each at most 200 characters; 22004 null, 22023 otherwise.
CREATE FUNCTION agent_state._need_graph_namespace(namespace text [])
RETURNS void
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF namespace IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'namespace: must not be null';
    END IF;
    IF NOT pg_catalog.cardinality(namespace) BETWEEN 1 AND 100 OR pg_catalog.array_ndims(namespace) <> 1
        OR EXISTS (SELECT FROM pg_catalog.unnest(namespace) AS l
                   WHERE l IS NULL OR l = '' OR pg_catalog.strpos(l, '.') > 0
                      OR pg_catalog.length(l) > 200) THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = 'namespace: 1 to 100 labels, each non-empty, without dots, at most 200 characters';
    END IF;
END
$$;
