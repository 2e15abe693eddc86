-- Is the row being written by the extension's own code? Inside the product's
-- SECURITY DEFINER functions current_user is their owner: the owner of this
-- function, as of every function of the extension (at install, the owner of the
-- agent_state schema too). Not the schema's owner: an ALTER SCHEMA ... OWNER
-- later leaves the functions running as their old owner, and their writes would
-- then go through the insert triggers as well, charging a run twice.
-- SPEC section 1 lets a commit-time check skip the rows the functions write, as
-- long as a test proves each function keeps the invariant (tests/pgtap/
-- 520_own_writes.sql: verify() finds nothing after every kind of write) and every
-- other role's direct DML stays checked: a trigger's WHEN clause is evaluated as
-- the row is written, so a direct write by any other role, a superuser included,
-- still queues the check.
--
-- SECURITY INVOKER on purpose (it reads the writer's current_user), so it is
-- granted to the group roles like the other WHEN helpers (sql/privileges.sql).
-- PL/pgSQL rather than SQL: a SQL function with a SET clause is not inlined and is
-- planned again on every call (about 40 us in a WHEN clause, three times per
-- remember); PL/pgSQL keeps its plan for the session.
CREATE FUNCTION agent_state._own_write()
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN coalesce((
        SELECT pg_catalog.pg_get_userbyid(p.proowner) OPERATOR(pg_catalog.=) CURRENT_USER
        FROM pg_catalog.pg_proc AS p
        WHERE p.oid OPERATOR(pg_catalog.=) 'agent_state._own_write()'::pg_catalog.regprocedure
    ), false);
END
$$;
