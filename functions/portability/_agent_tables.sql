-- The tables an agent's whole state is in (export_agent, import_agent), read
-- from the catalog so that a table added later is carried without a change
-- here: every table of the schema with runtime_agent_id, but agents and
-- agent_hosts, which the document carries apart (the agent's own row, hosting by
-- role name). In an order that inserts a row after every row it references
-- (deferrable foreign keys aside: they are checked at commit), with each
-- table's columns (generated ones left out: the database computes them) and
-- primary key. Not granted to anyone.
CREATE FUNCTION agent_state._agent_tables()
RETURNS TABLE (ord integer, tbl regclass, name text, cols text [], pkey text [])
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    placed oid [] := '{}';
    left_over oid [];
    t record;
    n integer := 0;
BEGIN
    SELECT pg_catalog.array_agg(c.oid ORDER BY c.relname) INTO left_over
    FROM pg_catalog.pg_class AS c
    WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p')
      AND c.relname NOT IN ('agents', 'agent_hosts')
      AND EXISTS (
          SELECT FROM pg_catalog.pg_attribute AS a
          WHERE a.attrelid = c.oid AND a.attname = 'runtime_agent_id' AND NOT a.attisdropped);
    WHILE pg_catalog.cardinality(left_over) > 0 LOOP
        SELECT c.oid, c.relname::text AS relname INTO t
        FROM pg_catalog.unnest(left_over) AS u (oid)
        JOIN pg_catalog.pg_class AS c ON c.oid = u.oid
        WHERE NOT EXISTS (
            SELECT FROM pg_catalog.pg_constraint AS k
            WHERE k.conrelid = c.oid AND k.contype = 'f' AND NOT k.condeferrable
              AND k.confrelid <> c.oid AND k.confrelid = ANY (left_over))
        ORDER BY c.relname
        LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'XX000', MESSAGE = 'agent tables: a cycle of foreign keys';
        END IF;
        n := n + 1;
        ord := n;
        tbl := t.oid::regclass;
        name := t.relname;
        SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum) INTO cols
        FROM pg_catalog.pg_attribute AS a
        WHERE a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
        SELECT pg_catalog.array_agg(a.attname::text ORDER BY k.ord) INTO pkey
        FROM pg_catalog.pg_index AS i
        CROSS JOIN LATERAL pg_catalog.unnest(i.indkey) WITH ORDINALITY AS k (attnum, ord)
        JOIN pg_catalog.pg_attribute AS a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE i.indrelid = t.oid AND i.indisprimary;
        RETURN NEXT;
        placed := placed || t.oid;
        left_over := pg_catalog.array_remove(left_over, t.oid);
    END LOOP;
END
$$;
