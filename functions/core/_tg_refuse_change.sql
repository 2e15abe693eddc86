-- Append-only tables refuse DELETE and TRUNCATE, and any UPDATE except of the
-- columns named in the trigger arguments (an activation flag).
CREATE FUNCTION agent_state._tg_refuse_change()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE'
        AND (pg_catalog.to_jsonb(NEW) - TG_ARGV) = (pg_catalog.to_jsonb(OLD) - TG_ARGV) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = '42501',
        MESSAGE = pg_catalog.format('%s: %s is append-only; history is never rewritten',
                                    TG_TABLE_NAME, pg_catalog.lower(TG_OP)),
        HINT = 'Write a new revision instead.';
END
$$;
