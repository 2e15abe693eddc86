-- A purge record keeps the chain links ([chain_at, chain_xact, digest]) of the
-- checkpoints and writes it lists (removed), read before they are deleted, so
-- that a head taken before the purge stays valid (_chain_links). Derived here,
-- whoever writes the record (_graph_purge, or an operator's direct purge), and
-- never taken from the writer: a given value is replaced. A restore or a copy
-- keeps the stored value (the rows are gone by then). The special writes (idx <
-- 0) are rewritable and carry no link (_chain_tables).
CREATE FUNCTION agent_state._tg_graph_purge_links()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(
               l.chain_at, l.chain_xact::text, pg_catalog.encode(l.chain_digest, 'hex')) ORDER BY l.chain_at),
           '[]')
    INTO NEW.chain_removed
    FROM (
        SELECT w.chain_at, w.chain_xact, w.chain_digest
        FROM agent_state.graph_writes AS w
        JOIN pg_catalog.jsonb_to_recordset(NEW.removed -> 'checkpoints') AS v (checkpoint_ns text, checkpoint_id text)
          ON w.checkpoint_ns = v.checkpoint_ns AND w.checkpoint_id = v.checkpoint_id
        WHERE w.runtime_agent_id = NEW.runtime_agent_id AND w.thread_id = NEW.thread_id AND w.idx >= 0
        UNION ALL
        SELECT c.chain_at, c.chain_xact, c.chain_digest
        FROM agent_state.graph_checkpoints AS c
        JOIN pg_catalog.jsonb_to_recordset(NEW.removed -> 'checkpoints') AS v (checkpoint_ns text, checkpoint_id text)
          ON c.checkpoint_ns = v.checkpoint_ns AND c.checkpoint_id = v.checkpoint_id
        WHERE c.runtime_agent_id = NEW.runtime_agent_id AND c.thread_id = NEW.thread_id
    ) AS l;
    RETURN NEW;
END
$$;
