-- Is usage, a model call's usage, in the usual form: a JSON object with at most
-- the keys tokens and cost_usd, each a number when present? Then its amounts
-- are read directly; anything else takes the detailed checks of
-- _usage_amounts (which raise the right error or parse an unusual valid form).
-- The hot path of record_model_call and record_turn. A SQL function with no
-- SET clause, inlined into its callers (pinned SECURITY DEFINER functions; only
-- the owner may execute it).
CREATE FUNCTION agent_state._usage_plain(usage jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT usage IS NOT NULL AND pg_catalog.jsonb_typeof(usage) OPERATOR(pg_catalog.=) 'object'
        AND (usage OPERATOR(pg_catalog.-) ARRAY['tokens', 'cost_usd']) OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb
        AND coalesce(pg_catalog.jsonb_typeof(usage OPERATOR(pg_catalog.->) 'tokens'), 'number')
            OPERATOR(pg_catalog.=) 'number'
        AND coalesce(pg_catalog.jsonb_typeof(usage OPERATOR(pg_catalog.->) 'cost_usd'), 'number')
            OPERATOR(pg_catalog.=) 'number'
$$;
