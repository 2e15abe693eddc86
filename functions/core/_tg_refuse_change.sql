-- Append-only tables refuse DELETE and TRUNCATE, and any UPDATE except of the
-- columns named in the trigger arguments (an activation flag). SECURITY DEFINER
-- so that the refusal (_refuse_write, not granted) is the same for every writer.
CREATE FUNCTION agent_state._tg_refuse_change()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND agent_state._changes_only(NEW, OLD, TG_ARGV) THEN
        RETURN NEW;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'is append-only; history is never rewritten',
                                      'Write a new revision instead.');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
