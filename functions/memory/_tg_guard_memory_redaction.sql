-- Redactions: stamped with the writing transaction; append-only, except that the
-- transaction that wrote a row may append hashes to removed_sha256.
CREATE FUNCTION agent_state._tg_guard_memory_redaction()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.redaction_xact := pg_catalog.pg_current_xact_id();
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE'
        AND OLD.redaction_xact OPERATOR(pg_catalog.=) pg_catalog.pg_current_xact_id()
        AND OLD.created_at >= pg_catalog.transaction_timestamp()
        AND agent_state._changes_only(NEW, OLD, ARRAY['removed_sha256'])
        AND NEW.removed_sha256[1:pg_catalog.cardinality(OLD.removed_sha256)] = OLD.removed_sha256 THEN
        RETURN NEW;
    END IF;
    PERFORM agent_state._refuse_write(TG_TABLE_NAME, TG_OP, 'refused; the redaction record is append-only');
    RETURN NULL; -- not reached: _refuse_write raises
END
$$;
