-- Appends a checkpoint numbered after the run's latest (gap-free: the caller
-- holds the run's row lock, which queues concurrent checkpoints of the run; the
-- checkpoint insert trigger, which would lock and number, skips the extension's
-- own writes). Shared by checkpoint and record_turn.
CREATE FUNCTION agent_state._append_checkpoint(agent uuid, run uuid, frontier jsonb)
RETURNS integer
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    n integer;
BEGIN
    -- ORDER BY ... LIMIT 1 (not max()): always the backward index scan.
    INSERT INTO agent_state.checkpoints AS k (runtime_agent_id, run_id, checkpoint, frontier)
    SELECT agent, run, coalesce((
        SELECT p.checkpoint + 1 FROM agent_state.checkpoints AS p
        WHERE p.runtime_agent_id = agent AND p.run_id = run
        ORDER BY p.checkpoint DESC
        LIMIT 1), 1), frontier
    RETURNING k.checkpoint INTO n;
    RETURN n;
END
$$;
