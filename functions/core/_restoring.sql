-- Is this statement part of a restore by pg_restore or psql of a pg_dump? Every
-- script pg_dump writes starts with SET row_security = off and an empty
-- search_path, and loads rows with COPY. The triggers that stamp audit columns,
-- derive values or check what a write claims skip such rows (WHEN NOT
-- _restoring()): the rows were written, stamped and checked when they were first
-- written, and load order across tables is pg_dump's, not the functions'. Only a
-- role that bypasses row-level security (a superuser or a BYPASSRLS role) can
-- write with row_security off: every table FORCEs row-level security, so for any
-- other role, the table owner included, such a statement fails before a trigger
-- runs. The extension's own functions pin a non-empty search_path, so a call made
-- in such a session is never taken for a restore. agent_state.verify() checks a
-- restored database. The append-only refusals never look at this.
--
-- PL/pgSQL without a SET clause: it reads the writer's own search_path, so it
-- cannot pin one; every name and operator in it is schema-qualified, so that
-- search_path cannot change what it means. It runs in trigger WHEN clauses, as
-- the writing role, so it is granted to the group roles (sql/privileges.sql).
-- Not LANGUAGE sql: a WHEN clause is prepared again for every statement, and
-- inlining a SQL function into it parses and analyses the function's body each
-- time (about a third of a one-row insert into a table with several triggers);
-- a PL/pgSQL function is compiled once per session.
CREATE FUNCTION agent_state._restoring()
RETURNS boolean
LANGUAGE plpgsql STABLE
AS $$
BEGIN
    RETURN pg_catalog.current_setting('row_security') OPERATOR(pg_catalog.=) 'off'
        AND pg_catalog.current_setting('search_path') OPERATOR(pg_catalog.=) '';
END
$$;
