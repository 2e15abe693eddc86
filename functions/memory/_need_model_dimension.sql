-- Every embedding of one model in one agent has the dimension its first one
-- fixed (SPEC section 6): 22023 naming the argument otherwise. A model the agent
-- has no embedding of yet has no dimension, and passes.
CREATE FUNCTION agent_state._need_model_dimension(agent uuid, model text, dimensions integer, arg text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
    fixed integer;
BEGIN
    SELECT m.dimensions INTO fixed
    FROM agent_state.memory_embedding_models AS m
    WHERE m.runtime_agent_id = agent AND m.model = model;
    IF fixed <> dimensions THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023',
            MESSAGE = pg_catalog.format('%s: model %s has %s dimensions in this agent, not %s',
                                        arg, agent_state._quote_prefix(model), fixed, dimensions);
    END IF;
END
$$;
