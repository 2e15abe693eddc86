"""fork_agent() of an agent with 100,000 memory entries, against the bare copy.

    python3 bench/fork.py               # 100,000 entries, 2 rounds
    python3 bench/fork.py --quick       # 10,000 entries, 2 rounds
    python3 bench/fork.py --extension   # CREATE EXTENSION agent_state (installed
                                        # files) instead of the built bundle

The issue's target: forking an agent with 100,000 memories takes seconds, not
minutes (read here: under a minute).

The origin agent. Set up through the product functions: the agent, 3 persona
revisions, a second profile revision, 3 tools with 5 grant revisions, 50 actors
with their identities, 20 group conversations. Then, loaded as a restore of a
dump loads them (row_security off, empty search_path: the rows keep the stamps
they are given; keys hold, and agent_state.verify() checks the rest afterwards),
as bench/memory.py and bench/timeline.py load: N memory entries (default
100,000) with their revisions, a fifth of them remembered from a message of
their own (so N/5 messages, plus N/10 more messages of chatter, audiences of one
or two actors), 15% amended once, 7.5% forgotten (the amend and forget
revisions of message-sourced entries carry that message over as an evidence
row, as amend and forget do). Then through the product functions again: 20
sharing grants of 20 such entries' current revisions into another conversation
(5 of them revoked again) and 10 redactions. With ``--embeddings F`` a fraction F
of the current revisions also gets a 384-dimension embedding (default none).

Measured, in the same run, in rounds (the order alternates between rounds; a
CHECKPOINT before each run and VACUUM ANALYZE after it, outside the timed
window, so that autovacuum stays out of it; jit off in the session):

1. ``fork_agent``: ``SELECT agent_state.fork_agent(origin, handle)`` as
   superuser in autocommit (the deferred checks at commit included);
2. ``bare copy``: the same rows, chosen by the same conditions, copied by one
   INSERT ... SELECT statement (data-modifying CTEs) into plain tables of the
   same shape (``CREATE TABLE ... (LIKE agent_state.t INCLUDING DEFAULTS
   INCLUDING GENERATED INCLUDING INDEXES)``: the same columns, primary keys,
   unique and secondary indexes, the full-text GIN index included; no foreign
   keys, no CHECK constraints, no triggers, no row-level security) in schema
   ``bench_bare``.

For each: wall time (client side), rows copied (counted per table afterwards),
WAL bytes (``pg_current_wal_insert_lsn()`` before and after: server-wide, so
other writers on the server count too) and shared buffers touched (hits + reads
in ``pg_stat_database`` for the benchmark's database, its counters flushed with
``pg_stat_force_next_flush()`` before and after; pg_stat_statements is used
instead when it is loaded). The ratios fork / bare are printed per round.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import Server, adopt_loaded, install_bundle, log, timed
from psycopg import sql

ACTORS = 50
CONVERSATIONS = 20
SHARES = 20
UNSHARES = 5
REDACTIONS = 10
DIMENSIONS = 384
VOCAB = 20000
WORDS_PER_BODY = 12
TARGET_SECONDS = 60.0

#: The tables fork_agent writes, in the order the report lists them.
TABLES = [
    "agents",
    "agent_forks",
    "profile_revisions",
    "persona_revisions",
    "persona_activations",
    "tool_grants",
    "actors",
    "actor_identities",
    "conversations",
    "messages",
    "memory_imports",
    "memory_revisions",
    "memory_evidence",
    "memory_redactions",
    "memory_entries",
    "memory_shares",
    "memory_embedding_models",
    "memory_embeddings",
]

# ----------------------------------------------------------------- setup

SETUP = """
CREATE SCHEMA bench;
CREATE TABLE bench.actors (n int PRIMARY KEY, actor uuid NOT NULL);
CREATE TABLE bench.convs (n int PRIMARY KEY, conv uuid NOT NULL);
"""

# Through the product functions, as an operator would (a few dozen calls).
SETUP_AGENT = """
SELECT agent_state.create_agent('bench-fork-origin', 'Origin',
                                '{"subject_boost": 0.5, "recency_half_life": "14 days"}')
"""


def setup_origin(conn: psycopg.Connection[Any]) -> uuid.UUID:
    conn.execute(SETUP)
    row = conn.execute(SETUP_AGENT).fetchone()
    assert row is not None
    agent: uuid.UUID = row[0]
    for n in range(1, 4):
        conn.execute(
            "SELECT agent_state.revise_persona(%s, %s)", [agent, f"You are the origin, take {n}."]
        )
    conn.execute("SELECT agent_state.revise_profile(%s, 'Origin agent')", [agent])
    for name in ("search", "calendar", "mail"):
        conn.execute(
            "SELECT agent_state.register_tool(%s, '1.0', "
            """'{"type": "object", "properties": {"limit": {"type": "integer"}}}')""",
            [name],
        )
        conn.execute(
            "SELECT agent_state.grant_tool(%s, %s, true, '{\"limit\": 10}')", [agent, name]
        )
    conn.execute("SELECT agent_state.grant_tool(%s, 'search', true, '{\"limit\": 20}')", [agent])
    conn.execute("SELECT agent_state.grant_tool(%s, 'mail', false)", [agent])
    conn.execute(
        "INSERT INTO bench.actors SELECT n, agent_state.resolve_actor(%s, 'bench', 'user-' || n, "
        "'User ' || n) FROM generate_series(0, %s) AS n",
        [agent, ACTORS - 1],
    )
    conn.execute(
        "INSERT INTO bench.convs SELECT n, agent_state.open_conversation(%s, 'bench', "
        "'conversation-' || n, 'group') FROM generate_series(0, %s) AS n",
        [agent, CONVERSATIONS - 1],
    )
    return agent


def body_sql(seed_col: str) -> str:
    """A body of WORDS_PER_BODY words drawn log-uniformly from a vocabulary (as
    bench/memory.py draws them); ``seed_col`` makes the subquery correlated."""
    return (
        f"(SELECT string_agg('w' || (floor(exp(random() * ln({VOCAB})))::int), ' ') "
        f"FROM generate_series(1, {WORDS_PER_BODY}) WHERE {seed_col} IS NOT NULL)"
    )


# One row per entry: who said what, where, when, and what happened to it later.
# Entries are created over the first half of [lo, lo + 2 * n * step], their
# amend or forget revisions over the second half; the message of a
# message-sourced entry is recorded half a step before it.
STAGE = f"""
CREATE UNLOGGED TABLE bench.stage AS
SELECT g.i, gen_random_uuid() AS entry_id,
       'memory ' || g.i || ': ' || {body_sql("g.i")} AS body,
       'amended memory ' || g.i || ': ' || {body_sql("g.i")} AS body2,
       a.actor AS author,
       CASE WHEN g.i %% 2 = 0 THEN ARRAY[a.actor, o.actor] ELSE ARRAY[a.actor] END AS audience,
       c.conv,
       CASE WHEN g.i %% 5 = 0 THEN gen_random_uuid() END AS msg,
       CASE WHEN (g.i %% 5 = 0 AND g.i %% 2 = 0) OR (g.i %% 5 <> 0 AND g.i %% 3 = 0)
            THEN a.actor END AS subject,
       CASE WHEN g.i %% 10 = 0 OR g.i %% 20 = 1 THEN 'amend'
            WHEN g.i %% 20 = 5 OR g.i %% 40 = 2 THEN 'forget' END AS second,
       %(lo)s::timestamptz + g.i * %(step)s::interval AS created,
       %(lo)s::timestamptz + (%(n)s + g.i) * %(step)s::interval AS second_at
FROM generate_series(1, %(n)s) AS g (i)
JOIN bench.actors AS a ON a.n = g.i %% {ACTORS}
JOIN bench.actors AS o ON o.n = (g.i + 7) %% {ACTORS}
JOIN bench.convs AS c ON c.n = g.i %% {CONVERSATIONS}
"""

LOAD_MESSAGES = f"""
INSERT INTO agent_state.messages
    (runtime_agent_id, message_id, conversation_id, author_id, body, audience, observed_at,
     created_at)
SELECT *
FROM (
    SELECT %(agent)s::uuid, s.msg, s.conv, s.author, 'said: ' || s.body, s.audience,
           s.created - %(step)s::interval / 2 AS t, s.created - %(step)s::interval / 2
    FROM bench.stage AS s
    WHERE s.msg IS NOT NULL
    UNION ALL
    SELECT %(agent)s::uuid, gen_random_uuid(), c.conv, a.actor, 'chatter ' || g.j, ARRAY[a.actor],
           %(lo)s::timestamptz + (10 * g.j + 3) * %(step)s::interval - %(step)s::interval / 4,
           %(lo)s::timestamptz + (10 * g.j + 3) * %(step)s::interval - %(step)s::interval / 4
    FROM generate_series(1, %(n)s / 10) AS g (j)
    JOIN bench.actors AS a ON a.n = g.j %% {ACTORS}
    JOIN bench.convs AS c ON c.n = (g.j * 7) %% {CONVERSATIONS}
) AS m
ORDER BY t
"""

# What remember/note, then amend/forget, write (sql/memory.sql): the create
# revision, the second revision carrying the first one's evidence, the entry
# equal to its latest revision. In the order they were written.
LOAD_MEMORY = """
INSERT INTO agent_state.memory_revisions
    (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
     source_type, source_actor_id, source_message_id, evidence_observers,
     evidence_conversations, reason, created_at)
SELECT *
FROM (
    SELECT %(agent)s::uuid, s.entry_id, 1, 'create', s.body, s.subject, 'perspective',
           CASE WHEN s.msg IS NULL THEN 'operator' ELSE 'agent' END,
           CASE WHEN s.msg IS NOT NULL THEN s.author END, s.msg,
           CASE WHEN s.msg IS NOT NULL THEN s.audience END,
           CASE WHEN s.msg IS NOT NULL THEN ARRAY[s.conv] ELSE '{}' END,
           NULL::text, s.created AS t
    FROM bench.stage AS s
    UNION ALL
    SELECT %(agent)s::uuid, s.entry_id, 2, s.second,
           CASE s.second WHEN 'amend' THEN s.body2 ELSE s.body END, s.subject, 'perspective',
           'operator', NULL, NULL,
           CASE WHEN s.msg IS NOT NULL THEN s.audience END,
           CASE WHEN s.msg IS NOT NULL THEN ARRAY[s.conv] ELSE '{}' END,
           CASE s.second WHEN 'forget' THEN 'no longer true' END, s.second_at
    FROM bench.stage AS s
    WHERE s.second IS NOT NULL
) AS r
ORDER BY t;

INSERT INTO agent_state.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
SELECT %(agent)s::uuid, s.entry_id, 2, s.msg
FROM bench.stage AS s
WHERE s.second IS NOT NULL AND s.msg IS NOT NULL
ORDER BY s.second_at;

INSERT INTO agent_state.memory_entries
    (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
     source_type, evidence_observers, evidence_conversations, revised_at, created_at)
SELECT %(agent)s::uuid, s.entry_id, CASE WHEN s.second IS NULL THEN 1 ELSE 2 END,
       s.second IS DISTINCT FROM 'forget',
       CASE WHEN s.second = 'amend' THEN s.body2 ELSE s.body END, s.subject, 'perspective',
       CASE WHEN s.second IS NOT NULL OR s.msg IS NULL THEN 'operator' ELSE 'agent' END,
       CASE WHEN s.msg IS NOT NULL THEN s.audience END,
       CASE WHEN s.msg IS NOT NULL THEN ARRAY[s.conv] ELSE '{}' END,
       CASE WHEN s.second IS NULL THEN s.created ELSE s.second_at END, s.created
FROM bench.stage AS s
ORDER BY s.created;
"""

LOAD_EMBEDDINGS = f"""
INSERT INTO agent_state.memory_embedding_models (runtime_agent_id, model, dimensions, created_at)
VALUES (%(agent)s, 'bench-model', {DIMENSIONS}, %(lo)s);
INSERT INTO agent_state.memory_embeddings
    (runtime_agent_id, entry_id, revision, model, dimensions, embedding, created_at)
SELECT %(agent)s::uuid, e.entry_id, e.current_revision, 'bench-model', {DIMENSIONS},
       (SELECT array_agg(random()::real) FROM generate_series(1, {DIMENSIONS})
        WHERE e.entry_id IS NOT NULL),
       e.revised_at
FROM agent_state.memory_entries AS e
WHERE e.runtime_agent_id = %(agent)s AND random() < %(fraction)s
ORDER BY e.revised_at;
"""


def load_origin(conn: psycopg.Connection[Any], agent: uuid.UUID, n: int, embeddings: float) -> None:
    # Every loaded row is stamped inside a two-second window that ends before
    # the load starts, after the rows made by the functions above.
    time.sleep(0.1)
    lo = conn.execute("SELECT clock_timestamp()").fetchone()[0]  # type: ignore[index]
    time.sleep(2.1)
    step = f"{2.0 / (2 * n + 2):.9f} seconds"
    params = {"agent": agent, "lo": lo, "step": step, "n": n, "fraction": embeddings}
    with timed(f"stage {n:,} entries"):
        conn.execute(STAGE, params)
    gins = conn.execute(
        "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
        "WHERE indrelid = 'agent_state.memory_entries'::regclass AND indexrelid IN "
        "(SELECT oid FROM pg_class WHERE relam = (SELECT oid FROM pg_am WHERE amname = 'gin'))"
    ).fetchall()
    with timed("load messages, revisions, evidence, entries"), conn.transaction():
        # The full-text GIN index is rebuilt after the load, from its catalog
        # definition, as a bulk load does (bench/memory.py).
        for name, _ in gins:
            conn.execute(f"DROP INDEX {name}")
        conn.execute("SET LOCAL row_security = off")
        conn.execute("SELECT pg_catalog.set_config('search_path', '', true)")
        conn.execute(LOAD_MESSAGES, params)
        for statement in LOAD_MEMORY.split(";\n\n"):
            conn.execute(statement, params)
        if embeddings > 0:
            for statement in LOAD_EMBEDDINGS.split(";\n"):
                if statement.strip():
                    conn.execute(statement, params)
    with timed("rebuild the GIN index"):
        for _, ddl in gins:
            conn.execute(ddl)
    with timed("stamp the loaded records (hash chains)"):
        adopt_loaded(conn)
    # Through the product functions again: sharing grants (some revoked) and
    # redactions.
    shared = conn.execute(
        "SELECT s.entry_id, e.current_revision, c.conv FROM bench.stage AS s "
        "JOIN agent_state.memory_entries AS e "
        "ON e.runtime_agent_id = %s AND e.entry_id = s.entry_id "
        "JOIN bench.convs AS c ON c.n = (s.i + 1) %% " + str(CONVERSATIONS) + " "
        "WHERE s.msg IS NOT NULL AND e.live ORDER BY s.i LIMIT %s",
        [agent, SHARES],
    ).fetchall()
    for entry, revision, conv in shared:
        conn.execute("SELECT agent_state.share(%s, %s, %s, %s)", [agent, entry, revision, conv])
    for entry, revision, conv in shared[:UNSHARES]:
        conn.execute("SELECT agent_state.unshare(%s, %s, %s, %s)", [agent, entry, revision, conv])
    redacted = conn.execute(
        "SELECT entry_id FROM bench.stage WHERE i %% 997 = 3 ORDER BY i LIMIT %s", [REDACTIONS]
    ).fetchall()
    for (entry,) in redacted:
        conn.execute("SELECT agent_state.redact(%s, %s, 'bench: erasure request')", [agent, entry])
    conn.execute("DROP TABLE bench.stage")
    with timed("agent_state.verify()"):
        problems = conn.execute("SELECT * FROM agent_state.verify() LIMIT 5").fetchall()
        if problems:
            raise RuntimeError(f"agent_state.verify() reports problems, e.g. {problems}")
    with timed("vacuum analyze"):
        conn.execute("VACUUM ANALYZE")


# ----------------------------------------------------------------- the bare copy

BARE_SCHEMA = "CREATE SCHEMA bench_bare;\n" + "\n".join(
    f"CREATE TABLE bench_bare.{t} (LIKE agent_state.{t} INCLUDING DEFAULTS INCLUDING GENERATED "
    f"INCLUDING INDEXES);"
    for t in TABLES
)

# The rows fork_agent copies (functions/history/fork_agent.sql), chosen by the
# same conditions, as one statement: the set-based copy and nothing else.
BARE_COPY = """
WITH
moment AS (SELECT statement_timestamp() AS t),
active AS (
    SELECT a.revision
    FROM agent_state.persona_activations AS a, moment
    WHERE a.runtime_agent_id = %(origin)s AND a.created_at <= moment.t
    ORDER BY a.created_at DESC, a.activation_id DESC
    LIMIT 1
),
agent AS (
    INSERT INTO bench_bare.agents (runtime_agent_id, handle) VALUES (%(fork)s, %(handle)s)
),
fork AS (
    INSERT INTO bench_bare.agent_forks (runtime_agent_id, origin_agent_id, as_of)
    SELECT %(fork)s, %(origin)s, moment.t FROM moment
),
profile AS (
    INSERT INTO bench_bare.profile_revisions
        (runtime_agent_id, revision, display_name, settings, created_at, created_by)
    SELECT %(fork)s, p.revision, p.display_name, p.settings, p.created_at, p.created_by
    FROM agent_state.profile_revisions AS p, moment
    WHERE p.runtime_agent_id = %(origin)s AND p.created_at <= moment.t
),
persona AS (
    INSERT INTO bench_bare.persona_revisions
        (runtime_agent_id, revision, body, is_active, created_at, created_by)
    SELECT %(fork)s, p.revision, p.body, p.revision = (SELECT revision FROM active),
           p.created_at, p.created_by
    FROM agent_state.persona_revisions AS p, moment
    WHERE p.runtime_agent_id = %(origin)s AND p.created_at <= moment.t
),
activations AS (
    INSERT INTO bench_bare.persona_activations
        (runtime_agent_id, activation_id, revision, created_at, created_by)
    SELECT %(fork)s, a.activation_id, a.revision, a.created_at, a.created_by
    FROM agent_state.persona_activations AS a, moment
    WHERE a.runtime_agent_id = %(origin)s AND a.created_at <= moment.t
),
grants AS (
    INSERT INTO bench_bare.tool_grants
        (runtime_agent_id, tool_name, revision, enabled, config, tool_version, tool_revision,
         created_at, created_by)
    SELECT %(fork)s, g.tool_name, g.revision, g.enabled, g.config, g.tool_version,
           g.tool_revision, g.created_at, g.created_by
    FROM agent_state.tool_grants AS g, moment
    WHERE g.runtime_agent_id = %(origin)s AND g.created_at <= moment.t
),
actors AS (
    INSERT INTO bench_bare.actors
        (runtime_agent_id, actor_id, kind, display_name, created_at, created_by)
    SELECT %(fork)s, x.actor_id, x.kind, x.display_name, x.created_at, x.created_by
    FROM agent_state.actors AS x, moment
    WHERE x.runtime_agent_id = %(origin)s AND x.created_at <= moment.t
),
identities AS (
    INSERT INTO bench_bare.actor_identities
        (runtime_agent_id, connector, external_id, actor_id, created_at, created_by)
    SELECT %(fork)s, i.connector, i.external_id, i.actor_id, i.created_at, i.created_by
    FROM agent_state.actor_identities AS i, moment
    WHERE i.runtime_agent_id = %(origin)s AND i.created_at <= moment.t
),
conversations AS (
    INSERT INTO bench_bare.conversations
        (runtime_agent_id, conversation_id, connector, external_ref, kind, created_at, created_by)
    SELECT %(fork)s, c.conversation_id, c.connector, c.external_ref, c.kind, c.created_at,
           c.created_by
    FROM agent_state.conversations AS c, moment
    WHERE c.runtime_agent_id = %(origin)s AND c.created_at <= moment.t
),
messages AS (
    INSERT INTO bench_bare.messages
        (runtime_agent_id, message_id, conversation_id, author_id, body, audience, external_ref,
         observed_at, created_at, created_by)
    SELECT %(fork)s, m.message_id, m.conversation_id, m.author_id, m.body, m.audience,
           m.external_ref, m.observed_at, m.created_at, m.created_by
    FROM agent_state.messages AS m, moment
    WHERE m.runtime_agent_id = %(origin)s AND m.created_at <= moment.t
),
imports AS (
    INSERT INTO bench_bare.memory_imports
        (runtime_agent_id, import_id, document, document_sha256, created_at, created_by)
    SELECT %(fork)s, i.import_id, i.document, i.document_sha256, i.created_at, i.created_by
    FROM agent_state.memory_imports AS i, moment
    WHERE i.runtime_agent_id = %(origin)s AND i.created_at <= moment.t
),
revisions AS (
    SELECT v.*
    FROM agent_state.memory_revisions AS v, moment
    WHERE v.runtime_agent_id = %(origin)s AND v.created_at <= moment.t
),
evidence AS (
    INSERT INTO bench_bare.memory_evidence (runtime_agent_id, entry_id, revision, message_id)
    SELECT %(fork)s, x.entry_id, x.revision, x.message_id
    FROM agent_state.memory_evidence AS x
    JOIN revisions AS v ON v.entry_id = x.entry_id AND v.revision = x.revision
    WHERE x.runtime_agent_id = %(origin)s
),
revisions_copied AS (
    INSERT INTO bench_bare.memory_revisions
        (runtime_agent_id, entry_id, revision, operation, body, subject_id, visibility,
         source_type, source_actor_id, source_message_id, source_import_id, evidence_observers,
         evidence_conversations, reason, created_at, created_by)
    SELECT %(fork)s, v.entry_id, v.revision, v.operation, v.body, v.subject_id, v.visibility,
           v.source_type, v.source_actor_id, v.source_message_id, v.source_import_id,
           v.evidence_observers, v.evidence_conversations, v.reason, v.created_at, v.created_by
    FROM revisions AS v
),
redactions AS (
    INSERT INTO bench_bare.memory_redactions
        (runtime_agent_id, entry_id, reason, removed_sha256, created_at, created_by)
    SELECT %(fork)s, d.entry_id, d.reason, d.removed_sha256, d.created_at, d.created_by
    FROM agent_state.memory_redactions AS d
    WHERE d.runtime_agent_id = %(origin)s
      AND EXISTS (SELECT FROM revisions AS v WHERE v.entry_id = d.entry_id)
),
entries AS (
    INSERT INTO bench_bare.memory_entries
        (runtime_agent_id, entry_id, current_revision, live, body, subject_id, visibility,
         source_type, evidence_observers, evidence_conversations, revised_at, created_at,
         created_by)
    SELECT DISTINCT ON (v.entry_id)
           %(fork)s, v.entry_id, v.revision,
           v.operation <> 'forget' AND NOT EXISTS (
               SELECT FROM agent_state.memory_redactions AS d
               WHERE d.runtime_agent_id = %(origin)s AND d.entry_id = v.entry_id),
           v.body, v.subject_id, v.visibility, v.source_type, v.evidence_observers,
           v.evidence_conversations, v.created_at, e.created_at, e.created_by
    FROM revisions AS v
    JOIN agent_state.memory_entries AS e
      ON e.runtime_agent_id = %(origin)s AND e.entry_id = v.entry_id
    ORDER BY v.entry_id, v.revision DESC
),
shares AS (
    INSERT INTO bench_bare.memory_shares
        (runtime_agent_id, share_id, entry_id, revision, conversation_id, created_at, created_by)
    SELECT %(fork)s, s.share_id, s.entry_id, s.revision, s.conversation_id, s.created_at,
           s.created_by
    FROM agent_state.memory_shares AS s, moment
    WHERE s.runtime_agent_id = %(origin)s AND s.created_at <= moment.t
      AND (s.revoked_at IS NULL OR s.revoked_at > moment.t)
),
embedded AS (
    SELECT x.*
    FROM agent_state.memory_embeddings AS x
    JOIN revisions AS v ON v.entry_id = x.entry_id AND v.revision = x.revision
    WHERE x.runtime_agent_id = %(origin)s
),
models AS (
    INSERT INTO bench_bare.memory_embedding_models
        (runtime_agent_id, model, dimensions, created_at, created_by)
    SELECT %(fork)s, m.model, m.dimensions, m.created_at, m.created_by
    FROM agent_state.memory_embedding_models AS m
    WHERE m.runtime_agent_id = %(origin)s
      AND EXISTS (SELECT FROM embedded AS x WHERE x.model = m.model)
)
INSERT INTO bench_bare.memory_embeddings
    (runtime_agent_id, entry_id, revision, model, dimensions, embedding, created_at, created_by)
SELECT %(fork)s, x.entry_id, x.revision, x.model, x.dimensions, x.embedding, x.created_at,
       x.created_by
FROM embedded AS x
"""

PRODUCT_FORK = "SELECT agent_state.fork_agent(%(origin)s, %(handle)s)"


# ----------------------------------------------------------------- measuring


def flush_stats(conn: psycopg.Connection[Any]) -> None:
    """Make this backend flush its statistics before it next goes idle (which is
    before the call returns to the client)."""
    conn.execute("SELECT pg_stat_force_next_flush()")


def buffers(monitor: psycopg.Connection[Any], db: str, statements: bool) -> int:
    """Shared buffers hit or read so far: by the statements of the database
    (pg_stat_statements) or by every backend of it (pg_stat_database)."""
    monitor.execute("SELECT pg_stat_clear_snapshot()")
    if statements:
        row = monitor.execute(
            "SELECT coalesce(sum(shared_blks_hit + shared_blks_read), 0) FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = %s)",
            [db],
        ).fetchone()
    else:
        row = monitor.execute(
            "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = %s", [db]
        ).fetchone()
    return int(row[0]) if row else 0


def wal_lsn(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
    return int(row[0]) if row else 0


def autovacuum_busy(monitor: psycopg.Connection[Any], db: str) -> int:
    row = monitor.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
        "AND backend_type = 'autovacuum worker'",
        [db],
    ).fetchone()
    return int(row[0]) if row else 0


def rows_copied(conn: psycopg.Connection[Any], schema: str, agent: uuid.UUID) -> dict[str, int]:
    counts = {}
    for t in TABLES:
        row = conn.execute(
            sql.SQL("SELECT count(*) FROM {}.{} WHERE runtime_agent_id = %s").format(
                sql.Identifier(schema), sql.Identifier(t)
            ),
            [agent],
        ).fetchone()
        counts[t] = int(row[0]) if row else 0
    return counts


def measure(
    conn: psycopg.Connection[Any],
    monitor: psycopg.Connection[Any],
    db: str,
    statements: bool,
    query: str,
    params: dict[str, Any],
) -> dict[str, Any]:
    conn.execute("CHECKPOINT")
    flush_stats(conn)
    if statements:
        conn.execute("SELECT pg_stat_statements_reset()")
    b0 = buffers(monitor, db, statements)
    w0 = wal_lsn(conn)
    began = time.perf_counter()
    cur = conn.execute(query, params)
    row = cur.fetchone() if cur.description else None
    seconds = time.perf_counter() - began
    w1 = wal_lsn(conn)
    flush_stats(conn)
    b1 = buffers(monitor, db, statements)
    busy = autovacuum_busy(monitor, db)
    return {
        "seconds": seconds,
        "wal": w1 - w0,
        "buffers": b1 - b0,
        "autovacuum": busy,
        "result": row[0] if row else None,
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="10,000 entries")
    ap.add_argument("--entries", type=int, default=None, help="memory entries (100,000)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument(
        "--embeddings", type=float, default=0.0, help="fraction of entries with an embedding"
    )
    ap.add_argument("--database", default="bench_fork", help="database to (re)create")
    ap.add_argument(
        "--extension",
        action="store_true",
        help="CREATE EXTENSION agent_state (installed files) instead of loading the bundle",
    )
    ap.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = ap.parse_args()
    n = args.entries or (10_000 if args.quick else 100_000)
    db = args.database
    results: list[tuple[int, str, dict[str, Any]]] = []
    with Server() as server:
        dsn = server.fresh_database(db)
        if args.extension:
            with psycopg.connect(dsn, autocommit=True) as c:
                c.execute("CREATE EXTENSION agent_state")
        else:
            install_bundle(dsn)
        with server.connect(db) as conn, server.connect() as monitor:
            # As in the throwaway cluster (bench/common.py): JIT decisions follow
            # cost estimates, which differ between the two statements.
            conn.execute("SET jit = off")
            statements = bool(
                conn.execute(
                    "SELECT current_setting('shared_preload_libraries') ~ 'pg_stat_statements'"
                ).fetchone()[0]  # type: ignore[index]
            )
            if statements:
                conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            with timed("set up the origin through the functions"):
                origin = setup_origin(conn)
            load_origin(conn, origin, n, args.embeddings)
            conn.execute(BARE_SCHEMA)
            facts = server.describe()
            for r in range(args.rounds):
                order = ["fork_agent", "bare copy"]
                if r % 2 == 1:
                    order.reverse()
                for system in order:
                    handle = f"bench-fork-{r}-{system.replace(' ', '-')}"
                    if system == "fork_agent":
                        res = measure(
                            conn,
                            monitor,
                            db,
                            statements,
                            PRODUCT_FORK,
                            {"origin": origin, "handle": handle},
                        )
                        res["rows"] = rows_copied(conn, "agent_state", res["result"])
                        if r == 0:
                            with timed("agent_state.verify() after the fork"):
                                problems = conn.execute(
                                    "SELECT * FROM agent_state.verify() LIMIT 5"
                                ).fetchall()
                            if problems:
                                raise RuntimeError(f"verify() after the fork: {problems}")
                    else:
                        fork = uuid.uuid4()
                        res = measure(
                            conn,
                            monitor,
                            db,
                            statements,
                            BARE_COPY,
                            {"origin": origin, "fork": fork, "handle": handle},
                        )
                        res["rows"] = rows_copied(conn, "bench_bare", fork)
                    log(
                        f"round {r + 1} {system}: {res['seconds']:.2f} s, "
                        f"{sum(res['rows'].values()):,} rows, {res['wal'] / 1e6:.1f} MB WAL, "
                        f"{res['buffers']:,} buffers"
                    )
                    results.append((r, system, res))
                    # Outside the timed window: nothing left for autovacuum.
                    conn.execute("VACUUM ANALYZE")
        if not args.keep:
            server.drop_database(db)

    print(
        f"fork of an agent with {n:,} memory entries; server: {facts['server'].split(' on ')[0]}, "
        f"shared_buffers {facts['shared_buffers']}, fsync {facts['fsync']}; buffers from "
        f"{'pg_stat_statements' if statements else 'pg_stat_database (blks_hit + blks_read)'}"
    )
    print()
    print("| table | fork_agent rows | bare copy rows |")
    print("| --- | ---: | ---: |")
    bare_rows = next(res["rows"] for _, s, res in results if s == "bare copy")
    fork_rows = next(res["rows"] for _, s, res in results if s == "fork_agent")
    for t in TABLES:
        flag = "" if fork_rows[t] == bare_rows[t] else "  (DIFFERENT)"
        print(f"| {t} | {fork_rows[t]:,} | {bare_rows[t]:,}{flag} |")
    print(f"| total | {sum(fork_rows.values()):,} | {sum(bare_rows.values()):,} |")
    print()
    print("| round | system | seconds | rows/s | WAL MB | shared buffers | autovacuum seen |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for r, system, res in results:
        total = sum(res["rows"].values())
        print(
            f"| {r + 1} | {system} | {res['seconds']:.2f} | {total / res['seconds']:,.0f} | "
            f"{res['wal'] / 1e6:.1f} | {res['buffers']:,} | "
            f"{'yes' if res['autovacuum'] else 'no'} |"
        )
    print()
    for r in range(args.rounds):
        f = next(res for rr, s, res in results if rr == r and s == "fork_agent")
        b = next(res for rr, s, res in results if rr == r and s == "bare copy")
        print(
            f"round {r + 1}: fork_agent / bare copy: time x{f['seconds'] / b['seconds']:.2f}, "
            f"WAL x{f['wal'] / max(b['wal'], 1):.2f}, "
            f"buffers x{f['buffers'] / max(b['buffers'], 1):.2f}"
        )
    worst = max(res["seconds"] for _, s, res in results if s == "fork_agent")
    print(
        f"target (fork of {n:,} memories in seconds, not minutes: under {TARGET_SECONDS:.0f} s): "
        f"{'met' if worst < TARGET_SECONDS else 'MISSED'} (slowest fork {worst:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
