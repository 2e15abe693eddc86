-- Trigger functions shared by every table that records history.

-- Audit columns come from the database, never from the writer: direct DML cannot
-- backdate a row or claim another role wrote it. clock_timestamp() keeps events of
-- one transaction in order, so "as of" questions have exact answers.
CREATE FUNCTION agent_state._stamp_created()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.created_at := pg_catalog.clock_timestamp();
    NEW.created_by := agent_state._caller();
    RETURN NEW;
END
$$;

-- Append-only tables refuse DELETE and TRUNCATE, and any UPDATE except of the
-- columns named in the trigger arguments (an activation flag).
CREATE FUNCTION agent_state._refuse_change()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
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

-- TRUNCATE ignores row-level security: a role granted TRUNCATE on a table could
-- otherwise empty it for every agent (hosting, shares, ...). sql/90_security.sql
-- puts this BEFORE TRUNCATE trigger on every table; only operators pass it
-- (append-only tables refuse TRUNCATE for everyone with _refuse_change as well).
CREATE FUNCTION agent_state._operator_truncate_only()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT agent_state._caller_is_operator() THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format(
                '%s: truncate is only for agent_state operators (it ignores row-level security)',
                TG_TABLE_NAME);
    END IF;
    RETURN NULL;
END
$$;
