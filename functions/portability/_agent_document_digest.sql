-- The digest of an agent document (export_agent, import_agent): the sha256 of
-- the document's canonical text (jsonb's, keys in its fixed order) without its
-- digest key. A document changed after export (a row changed, added or
-- removed) no longer matches. It tells an accident or a truncated file from a
-- faithful export; it is not a signature (anyone can compute it).
CREATE FUNCTION agent_state._agent_document_digest(document jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.encode(
        pg_catalog.sha256(pg_catalog.convert_to((document OPERATOR(pg_catalog.-) 'digest')::text, 'UTF8')), 'hex')
$$;
