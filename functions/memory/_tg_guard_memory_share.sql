-- Shares: only revoking an active grant, stamped by the database.
CREATE FUNCTION agent_state._tg_guard_memory_share()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF pg_catalog.to_jsonb(NEW) = pg_catalog.to_jsonb(OLD) THEN
            RETURN NEW;
        END IF;
        IF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL
            AND (pg_catalog.to_jsonb(NEW) - ARRAY['revoked_at', 'revoked_by'])
                = (pg_catalog.to_jsonb(OLD) - ARRAY['revoked_at', 'revoked_by']) THEN
            NEW.revoked_at := pg_catalog.clock_timestamp();
            NEW.revoked_by := agent_state._caller();
            RETURN NEW;
        END IF;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'refused; a grant is only ever revoked',
                                      'Use agent_state.unshare.');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
