-- Operator-only functions: a caller outside agent_state_operator gets 42501,
-- with one message shape everywhere and the GRANT that would fix it. arg names
-- the argument the refusal is about (agent), when there is one.
CREATE FUNCTION agent_state._need_operator(arg text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    caller name := agent_state._caller();
BEGIN
    IF NOT pg_catalog.pg_has_role(caller, 'agent_state_operator', 'USAGE') THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('%srole %I is not an agent_state operator',
                                        arg || ': ', caller),
            HINT = pg_catalog.format('Only members of agent_state_operator may do this (GRANT '
                                     'agent_state_operator TO %I).', caller);
    END IF;
END
$$;
