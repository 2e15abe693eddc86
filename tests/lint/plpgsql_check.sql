-- plpgsql_check over every PL/pgSQL function in schema agent_state.
--
-- Needs the plpgsql_check extension in the current database (on the search
-- path). Returns one row per finding; the test driver fails the lint stage on
-- any row with level = 'error' and prints the others. Security warnings
-- (SQL injection through EXECUTE and similar) are on.
--
-- Trigger functions can only be checked against a table, so each one is
-- checked once for every table that has a trigger using it; a trigger
-- function that no trigger uses is reported as a warning and not checked.
--
-- Run by hand: psql -X -f tests/lint/plpgsql_check.sql
WITH fn AS (
    SELECT
        p.oid,
        p.prorettype = 'pg_catalog.trigger'::pg_catalog.regtype AS is_trigger
    FROM pg_catalog.pg_proc AS p
    INNER JOIN pg_catalog.pg_language AS l ON l.oid = p.prolang
    INNER JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
    WHERE
        n.nspname = 'agent_state'
        AND l.lanname = 'plpgsql'
),

target AS (
    SELECT
        fn.oid,
        0::pg_catalog.oid AS relid
    FROM fn
    WHERE NOT fn.is_trigger
    UNION
    SELECT
        fn.oid,
        t.tgrelid AS relid
    FROM fn
    INNER JOIN pg_catalog.pg_trigger AS t ON t.tgfoid = fn.oid
    WHERE fn.is_trigger
)

SELECT
    target.oid::pg_catalog.regprocedure::pg_catalog.text AS function,
    nullif(target.relid, 0)::pg_catalog.regclass::pg_catalog.text AS trigger_table,
    c.level,
    c.sqlstate,
    c.lineno,
    c.statement,
    c.message,
    c.detail,
    c.hint,
    c.query
FROM target
CROSS JOIN LATERAL plpgsql_check_function_tb(
    target.oid::pg_catalog.regprocedure,
    target.relid::pg_catalog.regclass,
    fatal_errors => false,
    other_warnings => true,
    extra_warnings => true,
    performance_warnings => false,
    security_warnings => true
) AS c
UNION ALL
SELECT
    fn.oid::pg_catalog.regprocedure::pg_catalog.text,
    NULL,
    'warning',
    NULL,
    NULL,
    NULL,
    'trigger function is not used by any trigger, so plpgsql_check could not check it',
    NULL,
    NULL,
    NULL
FROM fn
WHERE
    fn.is_trigger
    AND NOT EXISTS (SELECT FROM pg_catalog.pg_trigger AS t WHERE t.tgfoid = fn.oid)
ORDER BY 1, 2, 5;
