-- The fixture every pgTAP file shares, included with \ir _setup.sql, as a rule
-- after plan() (so that pgTAP's own temp tables exist and get the grant below).
-- Not a test file: tests/run_suite.py leaves out names starting with "_" (by
-- hand: pg_prove ... tests/pgtap/[0-9]*.sql).
--
-- ids: the fixture's uuids by name (agents, actors, conversations, runs, ...),
-- read with pg_temp.id('a').
CREATE TEMP TABLE ids (k text PRIMARY KEY, v uuid NOT NULL);
CREATE FUNCTION pg_temp.id(key text) RETURNS uuid LANGUAGE sql STABLE
AS $$ SELECT i.v FROM pg_temp.ids AS i WHERE i.k = key $$;
-- moments: named points in time, taken with pg_temp.mark('t0') and read with
-- pg_temp.t('t0').
CREATE TEMP TABLE moments (k text PRIMARY KEY, t timestamptz NOT NULL);
CREATE FUNCTION pg_temp.t(key text) RETURNS timestamptz LANGUAGE sql STABLE
AS $$ SELECT m.t FROM pg_temp.moments AS m WHERE m.k = key $$;
CREATE FUNCTION pg_temp.mark(key text) RETURNS void LANGUAGE sql
AS $$ INSERT INTO pg_temp.moments VALUES (key, pg_catalog.clock_timestamp()) $$;
-- pgTAP keeps its state in temp tables; the test roles must be able to write
-- them and the fixture's. A file that creates more temp tables grants them itself.
GRANT ALL ON ALL TABLES IN SCHEMA pg_temp TO PUBLIC;
GRANT ALL ON ALL SEQUENCES IN SCHEMA pg_temp TO PUBLIC;
