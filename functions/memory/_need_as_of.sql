-- The moment a memory read is made as of (recall, memory_entry): NULL for now,
-- else a finite timestamp (22023): ages are measured from it, and an infinite
-- one has no age to decay by.
CREATE FUNCTION agent_state._need_as_of(as_of timestamptz)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT pg_catalog.isfinite(as_of) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'as_of: must be a finite timestamp';
    END IF;
END
$$;
