-- agent_state 0.2.0 -> 0.3.0 (in development: make expands the includes; `make
-- release` freezes the expanded text, see RELEASING.md).
--
-- ALTER EXTENSION UPDATE and agent_state.install() run it in one transaction:
-- if any statement fails, 0.2.0 stays in place untouched.
--
-- What changes:
-- * Every trigger comes from one idempotent pass (sql/triggers.sql): the
--   triggers are dropped and created again from their one definition.
-- * The schema must be one only its owner can add to (sql/schema_trust.sql), and
--   an event trigger keeps it so (sql/guard.sql, where the role may create one).
-- * Rights come only from memberships that lend them (USAGE, not MEMBER); a
--   session whose SET ROLE membership was revoked is refused; EXECUTE granted on
--   a function to any other role is taken back.
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

-- Nothing is replaced in a schema that others may add to.
-- include: sql/schema_trust.sql

-- Schema changes of 0.3.0 (new tables, columns, constraints, indexes), written
-- here by hand, before the code. A function whose signature or result type
-- changed, or that 0.3.0 removes, is dropped here too: CREATE OR REPLACE cannot
-- change those.

-- Replaceable code: every function, from its one source.
-- include: functions/*/*.sql

-- The whole-schema passes: every trigger, row-level security and the generated
-- triggers, config_dump registration, grants, the schema's event trigger.
-- include: sql/triggers.sql
-- include: sql/security.sql
-- include: sql/privileges.sql
-- include: sql/guard.sql
