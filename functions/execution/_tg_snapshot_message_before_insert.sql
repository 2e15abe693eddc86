CREATE FUNCTION agent_state._tg_snapshot_message_before_insert()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    slots integer;
BEGIN
    SELECT s.message_count INTO slots
    FROM agent_state.prompt_snapshots AS s
    WHERE s.runtime_agent_id = NEW.runtime_agent_id AND s.snapshot_id = NEW.snapshot_id;
    IF NEW.ordinal > slots THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('snapshot_messages: snapshot %s has %s message sources; its sources are fixed',
                                        NEW.snapshot_id, slots);
    END IF;
    RETURN NEW;
END
$$;
