-- Removes checkpoints of any threads (graph_prune, graph_delete_for_runs), given
-- as three arrays (thread, namespace, id of each): one purge record per thread
-- (_graph_purge), thread by thread in order. Returns how many checkpoints were
-- removed. Not granted to anyone.
CREATE FUNCTION agent_state._graph_purge_threads(
    agent uuid,
    threads text [],
    nss text [],
    ids text [],
    reason text
)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t record;
    n integer := 0;
BEGIN
    FOR t IN
        SELECT u.thread, pg_catalog.array_agg(u.ns) AS nss, pg_catalog.array_agg(u.id) AS ids
        FROM ROWS FROM (pg_catalog.unnest(threads), pg_catalog.unnest(nss), pg_catalog.unnest(ids))
            AS u (thread, ns, id)
        GROUP BY u.thread
        ORDER BY u.thread
    LOOP
        n := n + agent_state._graph_purge(agent, t.thread, t.nss, t.ids, reason);
    END LOOP;
    RETURN n;
END
$$;
