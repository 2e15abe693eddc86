-- The refusal of the guard triggers (append-only history, revoke-only shares,
-- derived data erased only by redact, payloads removed only by a purge, operator-
-- only TRUNCATE): 42501, one message shape, "<table>: <operation> <rule>", with
-- the hint that names the way that is allowed, when there is one. Called with
-- TG_TABLE_NAME and TG_OP by SECURITY DEFINER triggers (it is not granted).
CREATE FUNCTION agent_state._refuse_write(tbl name, op text, rule text, hint text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    msg text := pg_catalog.format('%s: %s %s', tbl, pg_catalog.lower(op), rule);
BEGIN
    -- RAISE refuses a null option: no HINT at all when there is none.
    IF hint IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = msg;
    END IF;
    RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = msg, HINT = hint;
END
$$;
