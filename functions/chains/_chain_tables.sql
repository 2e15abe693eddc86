-- The records the hash chains cover (SPEC section 14), written once: every
-- other chain function, the triggers (sql/triggers.sql) and the columns
-- (sql/chains.sql) read this list. Inlined into its callers (no SET clause:
-- tests/lint/pgspot_check.py); not granted to any role.
--
-- excluded: columns a later, sanctioned update may change (derived state such as
--   persona_revisions.is_active and a run's spending, a redacted snapshot's
--   prompt, whose sha256 stays covered), left out of the record's digest.
-- erasable: the one text column redact may blank; the digest covers its sha256,
--   so a redaction keeps the digest valid (memory_redactions keeps the hashes).
-- closing: a one-time closing update (a share's removal, a run's outcome; the
--   first column is set by it), with
--   a second digest (chain_close_*) of its own.
-- stream, numbered: a stream of records numbered 1, 2, ... by `numbered` within
--   the `stream` columns (and the agent): verify reports a gap (chain_deleted)
--   and numbers out of write order (chain_reordered). Only streams every copy
--   (fork_agent) keeps whole from 1 and every release numbered so (shares are
--   not: a fork leaves out those removed before its moment; activations,
--   imports and purges took numbers from one identity in 0.1.0).
-- rewritable: a predicate over the row for records a sanctioned update replaces
--   (LangGraph's special writes, idx < 0, are upserts; a store item's values are
--   derived from its memory entry, and redact removes them): such an update
--   stamps the record anew, and heads leave these records out, so an older head
--   stays a prefix (docs/security.md). Reads and verify still check them.
CREATE FUNCTION agent_state._chain_tables()
RETURNS TABLE (tbl name, excluded text [], erasable text, closing text [], stream text [], numbered text,
                rewritable text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT t.tbl::name, t.excluded, t.erasable, t.closing, t.stream, t.numbered, t.rewritable
    FROM (VALUES
        ('persona_revisions', '{is_active}'::text [], NULL, NULL::text [], '{}'::text [], 'revision', NULL::text),
        ('persona_activations', '{}', NULL, NULL, NULL, NULL, NULL),
        ('profile_revisions', '{}', NULL, NULL, '{}', 'revision', NULL),
        ('memory_imports', '{}', NULL, NULL, NULL, NULL, NULL),
        ('memory_revisions', '{}', 'body', NULL, '{entry_id}', 'revision', NULL),
        ('memory_evidence', '{}', NULL, NULL, NULL, NULL, NULL),
        ('memory_shares', '{revoked_at,revoked_by}', NULL, '{revoked_at,revoked_by}', NULL, NULL, NULL),
        ('memory_redactions', '{}', NULL, NULL, NULL, NULL, NULL),
        ('tool_grants', '{}', NULL, NULL, '{tool_name}', 'revision', NULL),
        ('messages', '{}', NULL, NULL, NULL, NULL, NULL),
        ('session_items', '{}', NULL, NULL, NULL, NULL, NULL),
        ('session_retractions', '{}', NULL, NULL, NULL, NULL, NULL),
        ('runs', '{status,spent_tokens,spent_cost_usd,spent_tool_calls,detail,finished_at,finished_by}', NULL,
         '{finished_at,status,detail,finished_by}', NULL, NULL, NULL),
        ('prompt_snapshots', '{prompt,redacted_at,redacted_by}', NULL, NULL, NULL, NULL, NULL),
        ('snapshot_memory', '{}', NULL, NULL, NULL, NULL, NULL),
        ('snapshot_messages', '{}', NULL, NULL, NULL, NULL, NULL),
        ('model_calls', '{}', NULL, NULL, NULL, NULL, NULL),
        ('tool_calls', '{}', NULL, NULL, NULL, NULL, NULL),
        ('tool_results', '{}', NULL, NULL, NULL, NULL, NULL),
        ('checkpoints', '{}', NULL, NULL, NULL, NULL, NULL),
        ('graph_runs', '{}', NULL, NULL, NULL, NULL, NULL),
        ('graph_checkpoints', '{}', NULL, NULL, NULL, NULL, NULL),
        ('graph_writes', '{}', NULL, NULL, NULL, NULL, 'idx < 0'),
        ('graph_purges', '{}', NULL, NULL, NULL, NULL, NULL),
        ('graph_item_values', '{}', NULL, NULL, NULL, NULL, 'true')
    ) AS t (tbl, excluded, erasable, closing, stream, numbered, rewritable)
$$;
