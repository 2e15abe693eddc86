-- Checkpoints: numbered per run under the run row lock (gap-free under
-- concurrency); the run must be unfinished (55000).
CREATE FUNCTION agent_state._tg_checkpoint_before_insert()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- Lock the run; refused when it is unknown or finished.
    PERFORM agent_state._run_writable(NEW.runtime_agent_id, NEW.run_id);
    -- ORDER BY ... LIMIT 1 (not max()): always the backward index scan.
    SELECT k.checkpoint + 1 INTO NEW.checkpoint
    FROM agent_state.checkpoints AS k
    WHERE k.runtime_agent_id = NEW.runtime_agent_id AND k.run_id = NEW.run_id
    ORDER BY k.checkpoint DESC
    LIMIT 1;
    NEW.checkpoint := coalesce(NEW.checkpoint, 1);
    RETURN NEW;
END
$$;
