-- verify(agent, expected_head): does the history up to a head chain_head issued
-- earlier still give that head? The token names the moment and the snapshot it
-- covered (chain_head), so the same records are hashed again whatever was
-- written since: a head of this agent is never a false alarm. A finding
-- (chain_head) for a history that is shorter (truncated, or the database rolled
-- back to an earlier copy), rewritten (a record changed, removed, moved or its
-- digest recomputed), or a head this agent never had; 22023 for a token that is
-- not a head at all.
CREATE FUNCTION agent_state._chain_head_findings(agent uuid, expected_head text)
RETURNS TABLE (check_name text, object text, detail text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    part text [] := pg_catalog.regexp_match(expected_head,
        '^ash1/(-?[0-9]{1,19})/([0-9]{1,19})/([0-9]{1,20}:[0-9]{1,20}:[0-9,]*)/([0-9]{1,20})/([0-9a-f]{64})$');
    snap pg_snapshot;
    now_head record;
BEGIN
    BEGIN
        snap := part[3]::pg_snapshot;
    EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
        part := NULL;
    END;
    IF part IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = pg_catalog.format('expected_head: %s is not a head chain_head returned',
                                        agent_state._quote_prefix(expected_head));
    END IF;
    SELECT h.* INTO now_head
    FROM agent_state._chain_head_of(agent, agent_state._chain_moment(part[1]::bigint), snap,
                                    NULLIF(part[4], '0')::xid8) AS h;
    IF pg_catalog.encode(now_head.digest, 'hex') = part[5] AND now_head.records = part[2]::bigint THEN
        RETURN;
    END IF;
    check_name := 'chain_head';
    object := pg_catalog.format('agent %s: head at position %s', agent, part[2]);
    IF now_head.records < part[2]::bigint THEN
        detail := pg_catalog.format('the history up to the head is shorter: %s records then, %s now (truncated, '
                                    'deleted or rolled back)', part[2], now_head.records);
    ELSE
        detail := pg_catalog.format('the history up to the head no longer gives it (%s records then, %s now): '
                                    'records changed, moved or their digests recomputed, or the head is not '
                                    'one chain_head returned for this agent', part[2], now_head.records);
    END IF;
    RETURN NEXT;
END
$$;
