-- Who is calling, and for which agents may they act.
--
-- Public functions are SECURITY DEFINER, so inside them current_user is the owner.
-- The caller is the session's effective role: the role chosen with SET ROLE (which
-- PostgreSQL only accepts for roles the session user is a member of, also through
-- set_config('role', ...)), else session_user. No custom setting is ever read.
--
-- PL/pgSQL, not SQL: a SQL function with a SET clause is never inlined and is
-- planned again on every call, and these two run several times per write (the
-- created_by stamp, _bind); PL/pgSQL evaluates them as cached simple expressions.
CREATE FUNCTION agent_state._caller()
RETURNS name
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN CASE pg_catalog.current_setting('role')
        WHEN 'none' THEN session_user
        ELSE pg_catalog.current_setting('role')::name
    END;
END
$$;
