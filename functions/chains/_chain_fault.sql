-- What is wrong with one stored record of the chains, or NULL if nothing is:
-- 'unstamped' (no digest: never written through the API), 'changed' (its
-- content or metadata no longer gives its digest, or it was moved or copied
-- here), 'closing' (its closing update, chain_close_*, does not match). r is the
-- row as to_jsonb gives it under TimeZone UTC. A redacted memory revision counts
-- by the sha256 of the text it had: one of its redaction's removed_sha256.
--
-- Every read verb calls it per record served, so the common case (a genuine
-- record) takes one lookup and simple expressions only; the redaction's hashes
-- are read only when the text's own hash does not give the digest.
CREATE FUNCTION agent_state._chain_fault(tbl name, r jsonb)
RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    spec record;
    stored bytea := pg_catalog.decode(pg_catalog.substr(r ->> 'chain_digest', 3), 'hex');
BEGIN
    IF stored IS NULL OR r ->> 'chain_at' IS NULL OR r ->> 'chain_xact' IS NULL THEN
        RETURN 'unstamped';
    END IF;
    SELECT t.excluded, t.erasable, t.closing INTO spec
    FROM agent_state._chain_tables() AS t WHERE t.tbl = _chain_fault.tbl;
    IF stored IS DISTINCT FROM agent_state._chain_digest(tbl, r, spec.excluded, spec.erasable) THEN
        IF spec.erasable IS NULL OR NOT EXISTS (
            SELECT FROM agent_state.memory_redactions AS d
            CROSS JOIN LATERAL pg_catalog.unnest(d.removed_sha256) AS h (sha)
            WHERE d.runtime_agent_id = (r ->> 'runtime_agent_id')::uuid
              AND d.entry_id = (r ->> 'entry_id')::uuid
              AND stored = agent_state._chain_digest(tbl, r, spec.excluded, spec.erasable, h.sha))
        THEN
            RETURN 'changed';
        END IF;
    END IF;
    IF spec.closing IS NULL THEN
        RETURN NULL;
    ELSIF r ->> spec.closing[1] IS NULL THEN
        RETURN CASE WHEN r ->> 'chain_close_digest' IS NOT NULL THEN 'closing' END;
    ELSIF r ->> 'chain_close_digest' IS NULL
        OR pg_catalog.decode(pg_catalog.substr(r ->> 'chain_close_digest', 3), 'hex')
           IS DISTINCT FROM agent_state._chain_close_digest(tbl, r, spec.closing) THEN
        RETURN 'closing';
    END IF;
    RETURN NULL;
END
$$;
