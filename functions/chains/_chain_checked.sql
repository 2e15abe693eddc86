-- Refusal on read: true for a record of the chains whose digests match, else
-- XX001 naming the table and the row (its primary key). The read verbs call it
-- on each record they return, so an altered record is never served as genuine.
CREATE FUNCTION agent_state._chain_checked(tbl name, r anyelement)
RETURNS boolean
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
DECLARE
    j jsonb := pg_catalog.to_jsonb(r);
    fault text := agent_state._chain_fault(tbl, j);
BEGIN
    IF fault IS NULL THEN
        RETURN true;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'XX001',
        MESSAGE = pg_catalog.format('%s: stored record %s does not match its digest (%s); it is not served',
                                    tbl, agent_state._chain_row_name(tbl, j), fault),
        HINT = 'History was altered outside the API. An operator runs agent_state.verify() to see what changed.';
END
$$;
