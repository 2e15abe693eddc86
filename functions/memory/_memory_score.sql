-- Retrieval: recall (a search) and context_for (automatic prompt context). Both
-- read memory only through the eligibility functions of
-- functions/memory/ (all of them apply _memory_admits)
-- and rank with one formula, in _rank_memory:
--
--   score = text_rank * (1 + subject_boost when subject = current_subject)
--           * 0.5 ^ (age / recency_half_life)
--
-- text_rank: ts_rank of the query against the revision's text, or for match
-- 'any' the weight of the query's words it holds (1 for every eligible revision
-- when there is no query; _text_rank); age: now() (or as_of) minus the time
-- the revision was written, never negative. subject_boost (default 1.0, a number
-- from 0 to 1,000,000) and recency_half_life (default '30 days', a positive
-- interval) come from the agent's settings; a bad setting raises 22023. The decay
-- exponent is capped at 830 half-lives so that scores stay representable; beyond
-- that, older revisions tie on decay and order by newest. Order: score desc, then
-- newest revision, then entry id. At most 1,000 rows per call (larger max_results
-- are capped).

-- The score of one eligible revision, float8 throughout. An inlinable SQL
-- expression (no SET clause, not SECURITY DEFINER, not granted): the planner
-- expands it into the ranking queries, so there is no call per row.
CREATE FUNCTION agent_state._memory_score(
    text_rank double precision,
    subject_id uuid,
    revised_at timestamptz,
    current_subject uuid,
    boost double precision,
    ref_time timestamptz,
    half_life_s double precision
)
RETURNS double precision
LANGUAGE sql IMMUTABLE
AS $$
    SELECT text_rank
           * CASE WHEN subject_id = current_subject THEN 1 + boost ELSE 1 END
           * pg_catalog.power(0.5::double precision,
                              LEAST(GREATEST(pg_catalog.date_part('epoch', ref_time - revised_at),
                                             0::double precision) / half_life_s,
                                    830::double precision))
$$;
