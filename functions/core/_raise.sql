-- Raise errcode with message: for argument checks written as SQL expressions
-- (CASE WHEN bad THEN agent_state._raise(...) ...), which run in the caller's
-- plan. A PL/pgSQL function copies an array argument on entry (it expands it),
-- so a check of a huge array written in PL/pgSQL costs copies of the array
-- before it can refuse it; a SQL expression reads it where it is. VOLATILE, so
-- that the planner never folds a call with constant arguments (it would raise
-- while planning, whatever the CASE decides). Returns boolean for CASE.
CREATE FUNCTION agent_state._raise(errcode text, message text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = errcode, MESSAGE = message;
END
$$;
