-- An actor argument names an actor of this agent: P0002 when unknown, 23503
-- when it is another perspective's (_missing). The caller checks null first
-- where the argument is optional. One check for every verb that takes an actor
-- (author, subject, current_subject, actor).
CREATE FUNCTION agent_state._need_actor(agent uuid, actor uuid, arg text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
BEGIN
    PERFORM agent_state._need(actor, arg);
    IF NOT EXISTS (SELECT FROM agent_state.actors AS a WHERE a.runtime_agent_id = agent AND a.actor_id = actor) THEN
        PERFORM agent_state._missing('actor', arg, actor,
            EXISTS (SELECT FROM agent_state.actors AS a WHERE a.actor_id = actor));
    END IF;
END
$$;
