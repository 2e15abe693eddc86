-- Insert triggers that run as the owner (SECURITY DEFINER) read other rows before
-- row-level security checks the new row. So that a role granted table privileges
-- learns nothing about an agent it may not act for (not even through which error
-- it gets), a guard trigger fires first on each of those tables (created by the
-- security pass, sql/security.sql): the role running the INSERT must be allowed
-- to act for the row's agent (42501). Deliberately not SECURITY DEFINER: current_user is the role
-- running the INSERT. Inside our SECURITY DEFINER functions (which bind the
-- caller before writing) that is the owner, normally a superuser, and operators
-- may act for every agent: for them the membership test answers at once, without
-- a query, and it is the guard triggers' WHEN clause, so the function is not even
-- called. Everyone else is tested like the agent_scope policy does.
CREATE FUNCTION agent_state._tg_guard_scope()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF pg_catalog.pg_has_role(current_user, 'agent_state_operator', 'USAGE') THEN
        RETURN NEW;
    END IF;
    -- The same test as the agent_scope policy, through the helpers it uses (the
    -- ones granted to the group roles).
    IF NOT (agent_state._caller_is_operator()
            OR NEW.runtime_agent_id = ANY (agent_state._hosted_agents())) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('runtime_agent_id: role %I may not act for agent %s',
                                        agent_state._caller(), NEW.runtime_agent_id);
    END IF;
    RETURN NEW;
END
$$;
