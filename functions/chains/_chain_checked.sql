-- Refusal on read: true for a record of the chains whose digests match, else
-- XX001 naming the table and the row (its primary key). The read verbs call it
-- on each record they return, so an altered record is never served as genuine.
-- The common case (a genuine record without a closing update) is one lookup and
-- one hash; anything else goes to _chain_fault.
CREATE FUNCTION agent_state._chain_checked(tbl name, r anyelement)
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
SET "TimeZone" = 'UTC'
AS $$
DECLARE
    j jsonb := pg_catalog.to_jsonb(r);
    spec record;
    fault text;
BEGIN
    SELECT t.excluded, t.erasable, t.closing INTO spec
    FROM agent_state._chain_tables() AS t WHERE t.tbl = _chain_checked.tbl;
    IF spec.closing IS NULL
        AND pg_catalog.decode(pg_catalog.substr(j ->> 'chain_digest', 3), 'hex')
            = agent_state._chain_digest(tbl, j, spec.excluded, spec.erasable) THEN
        RETURN true;
    END IF;
    fault := agent_state._chain_fault(tbl, j);
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
