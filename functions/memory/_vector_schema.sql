-- The schema of the pgvector extension (vector), for the semantic axis; 0A000
-- naming pgvector when it is not installed in this database. Looked up at each
-- call, so pgvector may be created before or after agent_state, with no extra
-- step; nothing else depends on it.
CREATE FUNCTION agent_state._vector_schema(arg text)
RETURNS name
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found name;
BEGIN
    SELECT n.nspname INTO found
    FROM pg_catalog.pg_extension AS e
    JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace
    WHERE e.extname = 'vector';
    IF found IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = '0A000',
            MESSAGE = pg_catalog.format(
                '%s: the semantic axis needs the pgvector extension (vector), which is not '
                'installed in this database', arg),
            HINT = 'CREATE EXTENSION vector; (before or after agent_state)';
    END IF;
    RETURN found;
END
$$;
