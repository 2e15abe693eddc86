-- TRUNCATE ignores row-level security: a role granted TRUNCATE on a table could
-- otherwise empty it for every agent (hosting, shares, ...). sql/security.sql
-- puts this BEFORE TRUNCATE trigger on every table; only operators pass it
-- (append-only tables refuse TRUNCATE for everyone with _tg_refuse_change as well).
CREATE FUNCTION agent_state._tg_operator_truncate_only()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT agent_state._caller_is_operator() THEN
        PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP,
                                          'is only for agent_state operators (it ignores row-level security)');
    END IF;
    RETURN NULL;
END
$$;
