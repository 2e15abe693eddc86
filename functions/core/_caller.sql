-- Who is calling, and for which agents may they act.
--
-- Public functions are SECURITY DEFINER, so inside them current_user is the owner.
-- The caller is the session's effective role: the role chosen with SET ROLE (which
-- PostgreSQL only accepts for roles the session user is a member of, also through
-- set_config('role', ...)), else session_user. No custom setting is ever read.
--
-- SET ROLE is checked once, when it runs: a membership revoked afterwards would
-- leave the session acting as that role. So the session user must still be
-- allowed to become it, on every call (PostgreSQL 16 grants that right per
-- membership, the SET option; before 16 every membership carried it); otherwise
-- the call is refused.
--
-- PL/pgSQL, not SQL: a SQL function with a SET clause is never inlined and is
-- planned again on every call, and these two run several times per write (the
-- created_by stamp, _bind); PL/pgSQL evaluates them as cached simple expressions.
CREATE FUNCTION agent_state._caller()
RETURNS name
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    chosen constant text := pg_catalog.current_setting('role');
BEGIN
    IF chosen OPERATOR(pg_catalog.=) 'none' THEN
        RETURN session_user;
    END IF;
    IF pg_catalog.to_regrole(pg_catalog.quote_ident(chosen)) IS NULL
       OR NOT pg_catalog.pg_has_role(
           session_user, pg_catalog.quote_ident(chosen)::regrole,
           CASE WHEN pg_catalog.current_setting('server_version_num')::integer >= 160000
                THEN 'SET' ELSE 'MEMBER' END) THEN
        RAISE EXCEPTION USING
            ERRCODE = '42501',
            MESSAGE = pg_catalog.format('role: session user %I may no longer act as role %I',
                                        session_user, pg_catalog.left(chosen, 64)),
            HINT = 'Its membership was revoked after SET ROLE; RESET ROLE, or SET ROLE again.';
    END IF;
    RETURN chosen::name;
END
$$;
