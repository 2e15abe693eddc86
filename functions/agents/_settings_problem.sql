-- The rule for an agent's documented settings, written once: null when settings
-- are valid, else what is wrong (the message _check_settings raises). The table
-- profile_revisions holds only settings it accepts (a CHECK), so ranking reads
-- them without checking again. Unknown keys are kept for runtimes.
--
-- Recall multiplies by 1 + subject_boost in double precision: the value must
-- convert (1e400 and 1e-400 do not) and stay in the documented range; the
-- half-life must be a positive interval with a positive number of seconds.
-- IMMUTABLE for the CHECK: interval input here is the plain '30 days' form,
-- which no setting changes the meaning of.
CREATE FUNCTION agent_state._settings_problem(settings jsonb)
RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    boost double precision;
    half_life interval;
BEGIN
    IF settings IS NULL OR pg_catalog.jsonb_typeof(settings) <> 'object' THEN
        RETURN 'settings: must be a JSON object';
    END IF;
    IF settings ? 'subject_boost' THEN
        IF pg_catalog.jsonb_typeof(settings -> 'subject_boost') = 'number' THEN
            BEGIN
                boost := (settings ->> 'subject_boost')::double precision;
            EXCEPTION WHEN numeric_value_out_of_range THEN
                boost := NULL;
            END;
        END IF;
        IF boost IS NULL OR NOT boost BETWEEN 0 AND 1000000 THEN
            RETURN 'settings.subject_boost: must be a number from 0 to 1000000';
        END IF;
    END IF;
    IF settings ? 'recency_half_life' THEN
        IF pg_catalog.jsonb_typeof(settings -> 'recency_half_life') = 'string' THEN
            BEGIN
                half_life := (settings ->> 'recency_half_life')::interval;
            EXCEPTION WHEN data_exception THEN
                half_life := NULL;
            END;
        END IF;
        IF half_life IS NULL OR half_life <= interval '0'
            OR NOT pg_catalog.date_part('epoch', half_life) > 0 THEN
            RETURN 'settings.recency_half_life: must be a positive interval such as ''30 days''';
        END IF;
    END IF;
    RETURN NULL;
END
$$;
