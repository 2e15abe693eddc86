-- Shares are created active; revocation is stamped, never supplied.
CREATE FUNCTION agent_state._tg_stamp_memory_share()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.revoked_at := NULL;
    NEW.revoked_by := NULL;
    RETURN NEW;
END
$$;
