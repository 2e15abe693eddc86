-- Numbers a row per agent (BEFORE INSERT; TG_ARGV[0] names the column): the next
-- number after the agent's highest, whatever the INSERT said. A global sequence
-- would let one perspective count another's activity (its imports, shares,
-- activations) from the gaps in its own numbers. The agent row lock serialises
-- the writers of one agent; these tables are written by operators, rarely.
-- A restore keeps the numbers it loads (the triggers' WHEN clause).
CREATE FUNCTION agent_state._tg_number_per_agent()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    PERFORM FROM agent_state.agents AS a WHERE a.runtime_agent_id = NEW.runtime_agent_id
    FOR NO KEY UPDATE;
    EXECUTE pg_catalog.format(
        'SELECT coalesce(pg_catalog.max(t.%1$I), 0) + 1 FROM %2$s AS t WHERE t.runtime_agent_id = $1',
        TG_ARGV[0], TG_RELID::regclass)
    INTO n USING NEW.runtime_agent_id;
    NEW := pg_catalog.jsonb_populate_record(NEW, pg_catalog.jsonb_build_object(TG_ARGV[0], n));
    RETURN NEW;
END
$$;
