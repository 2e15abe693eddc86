-- The size of a list of LangGraph store labels (a namespace, or a prefix or
-- suffix of one): at most 100 labels, each at most 200 bytes, together at most
-- 900 bytes (UTF-8: bytes, not characters). With a key of at most 1,000 bytes
-- an item then always fits the primary key of graph_items: a btree entry holds
-- at most 2,704 bytes, and the entry takes 8 (its header) + 16 (the agent) + 24
-- (the array's header) + at most 7 per label (its length word and alignment)
-- + the labels + 4 + the key: at most 48 + 700 + 900 + 1,004 = 2,652 bytes,
-- whether or not it compresses. A longer prefix or suffix could match no
-- stored namespace. 22023 naming arg; true otherwise (a null passes).
--
-- The array's size is read from its header first (24 + 100 * 7 + 900 and a
-- null bitmap bound every array within the limits), so that a huge array or
-- label is refused before any label is read. A SQL function with no SET clause
-- that reads the caller's array where it is (see _raise); granted to no one.
CREATE FUNCTION agent_state._need_graph_labels(labels text [], arg text)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE
        WHEN labels IS NULL
            OR (pg_catalog.pg_column_size(labels) OPERATOR(pg_catalog.<=) 1700
                AND pg_catalog.cardinality(labels) OPERATOR(pg_catalog.<=) 100
                AND (SELECT coalesce(pg_catalog.max(pg_catalog.octet_length(l)) OPERATOR(pg_catalog.<=) 200
                                     AND pg_catalog.sum(pg_catalog.octet_length(l)) OPERATOR(pg_catalog.<=) 900,
                                     true)
                     FROM pg_catalog.unnest(labels) AS l))
            THEN true
        ELSE agent_state._raise('22023', arg OPERATOR(pg_catalog.||)
                                ': at most 100 labels, each at most 200 bytes, together at most 900 bytes')
    END
$$;
