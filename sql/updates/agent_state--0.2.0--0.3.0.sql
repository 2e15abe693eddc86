-- agent_state 0.2.0 -> 0.3.0 (in development: make expands the includes; `make
-- release` freezes the expanded text, see RELEASING.md).
--
-- ALTER EXTENSION UPDATE and agent_state.install() run it in one transaction:
-- if any statement fails, 0.2.0 stays in place untouched.
--
-- What changes:
-- * Every trigger comes from one idempotent pass (sql/triggers.sql): the
--   triggers are dropped and created again from their one definition.
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

-- Schema changes of 0.3.0 (new tables, columns, constraints, indexes), written
-- here by hand, before the code. A function whose signature or result type
-- changed, or that 0.3.0 removes, is dropped here too: CREATE OR REPLACE cannot
-- change those.

-- Replaceable code: every function, from its one source.
-- include: functions/*/*.sql

-- The whole-schema passes: every trigger, row-level security and the generated
-- triggers, config_dump registration, grants.
-- include: sql/triggers.sql
-- include: sql/security.sql
-- include: sql/privileges.sql
