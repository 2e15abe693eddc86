-- An embedding argument: a one-dimensional array of 1 to 16,000 finite numbers,
-- not all zero (cosine distance is undefined for the zero vector), with a
-- Euclidean norm from 1e-15 to 1e15: pgvector sums the squares in float4, which
-- overflows beyond a norm of about 1.8e19 and vanishes below about 1e-19, and
-- the cosine distance then is NaN, which would order neighbours wrongly (the
-- bounds keep a margin from both). 22004 null,
-- 22023 otherwise. The length first, before anything reads the elements.
CREATE FUNCTION agent_state._need_embedding(val real [], arg text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM agent_state._need(val, arg);
    IF pg_catalog.cardinality(val) > 16000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': more than 16000 dimensions';
    END IF;
    IF pg_catalog.cardinality(val) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be empty';
    END IF;
    IF pg_catalog.array_ndims(val) <> 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must be a one-dimensional array';
    END IF;
    IF pg_catalog.array_position(val, NULL) IS NOT NULL
        OR 'NaN'::real = ANY (val) OR 'Infinity'::real = ANY (val) OR '-Infinity'::real = ANY (val) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': every component must be a finite number';
    END IF;
    IF 0::real = ALL (val) THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = arg || ': must not be all zeros';
    END IF;
    IF (SELECT pg_catalog.sum(x::double precision * x::double precision)
        FROM pg_catalog.unnest(val) AS u (x)) NOT BETWEEN 1e-30 AND 1e30 THEN
        RAISE EXCEPTION USING
            ERRCODE = '22023', MESSAGE = arg || ': its Euclidean norm must be from 1e-15 to 1e15';
    END IF;
END
$$;
