-- Graph payloads: a checkpoint or write is deleted only in the transaction that
-- wrote a purge record of its thread (a restored purge row keeps its old
-- transaction id, but was not created in this transaction); a write is updated only when
-- it is a special write (idx < 0: an interrupt or error LangGraph replaces), and
-- then only its value. Nothing else changes.
CREATE FUNCTION agent_state._tg_guard_graph_payload()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF EXISTS (
            SELECT FROM agent_state.graph_purges AS p
            WHERE p.runtime_agent_id = OLD.runtime_agent_id AND p.thread_id = OLD.thread_id
              AND p.purge_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
              AND p.created_at >= pg_catalog.transaction_timestamp()
        ) THEN
            RETURN OLD;
        END IF;
    ELSIF TG_TABLE_NAME = 'graph_writes' AND (pg_catalog.to_jsonb(OLD) ->> 'idx')::integer < 0
        AND agent_state._changes_only(NEW, OLD, ARRAY['value_type', 'value', 'task_path', 'created_at']) THEN
        RETURN NEW;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'refused; checkpoint payloads are removed only by a purge',
                                      'Use the saver''s delete_thread, delete_for_runs or prune.');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
