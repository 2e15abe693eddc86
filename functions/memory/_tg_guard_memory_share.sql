-- Shares: only revoking an active grant, stamped by the database.
CREATE FUNCTION agent_state._tg_guard_memory_share()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND agent_state._changes_only(NEW, OLD, ARRAY['revoked_at', 'revoked_by']) THEN
        IF OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL THEN
            NEW.revoked_at := pg_catalog.clock_timestamp();
            NEW.revoked_by := agent_state._caller();
            RETURN NEW;
        END IF;
        -- An update that changes nothing.
        IF (NEW.revoked_at, NEW.revoked_by) IS NOT DISTINCT FROM (OLD.revoked_at, OLD.revoked_by) THEN
            RETURN NEW;
        END IF;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'refused; a grant is only ever revoked',
                                      'Use agent_state.unshare.');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
