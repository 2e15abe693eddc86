-- verify()'s report on the chains of one agent (NULL: every agent), naming the
-- table and the row at fault:
--   chain_inserted   a record with no stamp: never written through the API
--   chain_copied     a record whose digest another record also has:
--                    copied from another agent or another place
--   chain_changed    content or metadata (or a closing update) that no longer
--                    gives the record's digest
--   chain_deleted    a gap in a numbered stream, or a reference to a record
--                    that is gone
--   chain_reordered  a numbered stream whose numbers do not follow the order
--                    its records were written in
-- TimeZone is pinned for to_jsonb (see _chain_digest).
CREATE FUNCTION agent_state._chain_findings(agent uuid)
RETURNS TABLE (check_name text, object text, detail text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
DECLARE
    t record;
    fk record;
BEGIN
    FOR t IN SELECT c.* FROM agent_state._chain_tables() AS c ORDER BY c.tbl LOOP
        RETURN QUERY EXECUTE pg_catalog.format($q$
            SELECT CASE
                       WHEN x.fault = 'unstamped' THEN 'chain_inserted'
                       WHEN x.fault = 'changed' AND coalesce(x.same_digest, d.n) > 1 THEN 'chain_copied'
                       ELSE 'chain_changed'
                   END,
                   pg_catalog.format('agent %%s: %1$s %%s', x.runtime_agent_id,
                                     agent_state._chain_row_name(%1$L, x.j)),
                   CASE
                       WHEN x.fault = 'unstamped' THEN 'the record has no digest: it was never written through the API'
                       WHEN x.fault = 'closing' THEN 'the record''s closing update (%2$s) does not match its digest'
                       WHEN coalesce(x.same_digest, d.n) > 1
                           THEN 'the record repeats the digest of another record: a copy'
                       ELSE 'the record''s content or metadata does not match its digest (changed, or moved here)'
                   END
            FROM (
                SELECT r.runtime_agent_id, pg_catalog.to_jsonb(r) AS j,
                       agent_state._chain_fault(%1$L, pg_catalog.to_jsonb(r)) AS fault,
                       %3$s AS same_digest, r.chain_digest, r.chain_at
                FROM agent_state.%1$I AS r
                WHERE $1 IS NULL OR r.runtime_agent_id = $1
            ) AS x
            -- One agent: only its rows are hashed; whether a changed one repeats
            -- another record's digest (a copy, maybe from another agent) is looked
            -- up for that row alone.
            LEFT JOIN LATERAL (
                SELECT pg_catalog.count(*) AS n FROM agent_state.%1$I AS o
                WHERE x.fault = 'changed' AND x.same_digest IS NULL AND o.chain_digest = x.chain_digest
            ) AS d ON true
            WHERE x.fault IS NOT NULL
            ORDER BY x.runtime_agent_id, x.chain_at
            $q$, t.tbl, pg_catalog.array_to_string(t.closing, ', '),
            CASE WHEN agent IS NULL THEN 'pg_catalog.count(*) OVER (PARTITION BY r.chain_digest)'
                 ELSE 'NULL::bigint' END)
        USING agent;

        CONTINUE WHEN t.numbered IS NULL;
        RETURN QUERY EXECUTE pg_catalog.format($q$
            SELECT 'chain_deleted', pg_catalog.format('agent %%s: %1$s%3$s', x.runtime_agent_id %4$s),
                   pg_catalog.format('%%s records numbered (%2$s) %%s to %%s: a record is missing',
                                     x.n, x.lo, x.hi)
            FROM (SELECT r.runtime_agent_id %5$s, pg_catalog.count(*) AS n, pg_catalog.min(r.%2$I) AS lo,
                         pg_catalog.max(r.%2$I) AS hi
                  FROM agent_state.%1$I AS r
                  WHERE $1 IS NULL OR r.runtime_agent_id = $1
                  GROUP BY r.runtime_agent_id %5$s) AS x
            WHERE x.lo <> 1 OR x.hi <> x.n
            ORDER BY 2
            $q$, t.tbl, t.numbered,
            (SELECT pg_catalog.string_agg(pg_catalog.format(' %s %%s', s), '') FROM pg_catalog.unnest(t.stream) AS s),
            (SELECT pg_catalog.string_agg(pg_catalog.format(', x.%I', s), '') FROM pg_catalog.unnest(t.stream) AS s),
            (SELECT pg_catalog.string_agg(pg_catalog.format(', r.%I', s), '') FROM pg_catalog.unnest(t.stream) AS s))
        USING agent;

        RETURN QUERY EXECUTE pg_catalog.format($q$
            SELECT 'chain_reordered',
                   pg_catalog.format('agent %%s: %1$s %%s', x.runtime_agent_id, agent_state._chain_row_name(%1$L, x.j)),
                   pg_catalog.format('numbered %%s but written before number %%s', x.num, x.prev_num)
            FROM (SELECT r.runtime_agent_id, pg_catalog.to_jsonb(r) AS j, r.%2$I AS num, r.chain_at,
                         pg_catalog.lag(r.%2$I) OVER w AS prev_num, pg_catalog.lag(r.chain_at) OVER w AS prev_at
                  FROM agent_state.%1$I AS r
                  WHERE $1 IS NULL OR r.runtime_agent_id = $1
                  WINDOW w AS (PARTITION BY r.runtime_agent_id %3$s ORDER BY r.%2$I)) AS x
            WHERE x.prev_at > x.chain_at
            ORDER BY x.runtime_agent_id, x.chain_at
            $q$, t.tbl, t.numbered,
            (SELECT pg_catalog.string_agg(pg_catalog.format(', r.%I', s), '') FROM pg_catalog.unnest(t.stream) AS s))
        USING agent;
    END LOOP;

    -- A reference to a record that is gone (the foreign keys' triggers were off).
    FOR fk IN
        SELECT c.conname, c.conrelid::regclass AS src, c.confrelid::regclass AS dst,
               ARRAY(SELECT a.attname FROM pg_catalog.unnest(c.conkey) WITH ORDINALITY AS k (n, o)
                     JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n
                     ORDER BY k.o) AS src_cols,
               ARRAY(SELECT a.attname FROM pg_catalog.unnest(c.confkey) WITH ORDINALITY AS k (n, o)
                     JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.confrelid AND a.attnum = k.n
                     ORDER BY k.o) AS dst_cols
        FROM pg_catalog.pg_constraint AS c
        JOIN pg_catalog.pg_class AS d ON d.oid = c.confrelid
        WHERE c.contype = 'f' AND c.connamespace = 'agent_state'::regnamespace
          AND d.relname IN (SELECT x.tbl FROM agent_state._chain_tables() AS x)
          AND EXISTS (SELECT FROM pg_catalog.pg_attribute AS a
                      WHERE a.attrelid = c.conrelid AND a.attname = 'runtime_agent_id')
        ORDER BY c.conrelid::regclass::text, c.conname
    LOOP
        RETURN QUERY EXECUTE pg_catalog.format($q$
            SELECT 'chain_deleted',
                   pg_catalog.format('agent %%s: %1$s (%2$s)=(%%s)', s.runtime_agent_id, pg_catalog.concat_ws(', ', %3$s)),
                   'refers to a record of %4$s that is gone (%5$s)'
            FROM %1$s AS s
            WHERE ($1 IS NULL OR s.runtime_agent_id = $1) AND %6$s
              AND NOT EXISTS (SELECT FROM %4$s AS d WHERE %7$s)
            $q$, fk.src,
            pg_catalog.array_to_string(fk.src_cols, ', '),
            (SELECT pg_catalog.string_agg(pg_catalog.format('s.%I', c), ', ') FROM pg_catalog.unnest(fk.src_cols) AS c),
            fk.dst, fk.conname,
            (SELECT pg_catalog.string_agg(pg_catalog.format('s.%I IS NOT NULL', c), ' AND ')
             FROM pg_catalog.unnest(fk.src_cols) AS c),
            (SELECT pg_catalog.string_agg(pg_catalog.format('d.%I = s.%I', fk.dst_cols[i], fk.src_cols[i]), ' AND ')
             FROM pg_catalog.generate_subscripts(fk.src_cols, 1) AS i))
        USING agent;
    END LOOP;

    -- Every memory entry's current revision is a stored revision.
    RETURN QUERY
    SELECT 'chain_deleted', pg_catalog.format('agent %s: memory_entries (entry_id)=(%s)', e.runtime_agent_id, e.entry_id),
           pg_catalog.format('its current revision %s is gone from memory_revisions', e.current_revision)
    FROM agent_state.memory_entries AS e
    WHERE (agent IS NULL OR e.runtime_agent_id = agent)
      AND NOT EXISTS (SELECT FROM agent_state.memory_revisions AS r
                      WHERE r.runtime_agent_id = e.runtime_agent_id AND r.entry_id = e.entry_id
                        AND r.revision = e.current_revision)
    ORDER BY 2;
END
$$;
