"""Execution-state benchmark: one agent turn against bare inserts, and checkpoint
against langgraph-checkpoint-postgres.

    python3 bench/turn.py            # full: 20 s per run
    python3 bench/turn.py --quick    # smoke run, under two minutes

One turn is what a runtime writes around one model call: ``snapshot_prompt`` +
``record_model_call`` + ``record_tool_call`` + ``record_tool_result`` +
``checkpoint``, in one transaction. The baseline is the bare SQL such a turn
needs at least: five inserts and the run budget update, in one transaction,
into bare tables (schema ``bench_bare``, primary keys only). Both are driven by
pgbench (1 and 8 clients, each client its own agent and run, as a runtime role
hosting the agents), in two shapes: one statement (chained CTEs, one round
trip) and a client-side transaction (one statement per write).

The peer: ``PostgresSaver.put`` of langgraph-checkpoint-postgres (its own
database, ``saver.setup()``) writing a checkpoint whose channel values are the
same JSON as our ``frontier``, against ``agent_state.checkpoint``; both from
Python client processes (psycopg, 1 and 8 clients), with p50/p99 latency.

A third system in the one-statement shape: the same turn through the one call
``record_turn``. Beside turns per second, each run reports the WAL bytes it
wrote per turn (these barely swing between runs).

Targets: a turn through the five calls >= 0.4x the bare-insert throughput,
through ``record_turn`` >= 0.6x, WAL per turn <= 1.5x the bare turn's;
checkpoint >= 2x the peer's checkpoint write; beside them, the bare numbered insert
of the same checkpoint (the least any checkpoint call can cost).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import (
    RUNTIME_ROLE,
    Server,
    has_functions,
    log,
    measured_run,
    ms,
    percentile,
    pgbench,
    record_means,
    run_clients,
    table,
    timed,
    verdict,
)
from psycopg.types.json import Jsonb

DB = "bench_turn"
PEER_DB = "bench_langgraph"
TURN_TARGET = 0.4
RECORD_TURN_TARGET = 0.6
CHECKPOINT_TARGET = 2.0  # against PostgresSaver.put
WAL_TARGET = 1.5
TURN_FUNCTIONS = (
    "start_run",
    "snapshot_prompt",
    "record_model_call",
    "record_tool_call",
    "record_tool_result",
    "checkpoint",
    "register_tool",
    "grant_tool",
)

# ----------------------------------------------------------------- payloads
# Sizes of a modest real turn: a 4 KB prompt, a 1.5 KB request, a response with a
# tool call, a small tool input, a 1 KB tool output, a 2 KB frontier.

PROMPT = (
    "You are Ada, the support agent of a small software company. Be brief, exact "
    "and kind. Never promise what the tools cannot confirm. "
) * 30

REQUEST = {
    "model": "bench-model",
    "temperature": 0.2,
    "messages": [
        {"role": "system", "content": PROMPT[:800]},
        {"role": "user", "content": "My last invoice shows the wrong VAT number, can you fix it?"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the billing knowledge base",
                "parameters": {
                    "type": "object",
                    "properties": {"q": {"type": "string"}, "max_results": {"type": "integer"}},
                },
            },
        }
    ],
}
RESPONSE = {
    "id": "resp-0001",
    "finish_reason": "tool_calls",
    "message": {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call-1",
                "type": "function",
                "function": {
                    "name": "search",
                    "arguments": '{"q": "change VAT number on invoice"}',
                },
            }
        ],
    },
}
USAGE = {"tokens": 1234, "cost_usd": 0.0123}
TOOL_INPUT = {"q": "change VAT number on invoice", "max_results": 5}
TOOL_OUTPUT = {
    "results": [
        {
            "title": f"Billing article {i}",
            "snippet": "To change the VAT number shown on invoices, open Billing, "
            "then Company details, and save; past invoices keep theirs.",
        }
        for i in range(6)
    ]
}


def frontier(step: int) -> dict[str, Any]:
    """About 2 KB of graph state: pending node, step, recent messages."""
    return {
        "step": step,
        "next": ["tools"],
        "messages": [
            {
                "role": "user",
                "content": "My last invoice shows the wrong VAT number, can you fix it?",
            },
            {
                "role": "assistant",
                "tool_calls": [{"id": "call-1", "name": "search", "args": TOOL_INPUT}],
            },
            {"role": "tool", "tool_call_id": "call-1", "content": json.dumps(TOOL_OUTPUT)[:1200]},
        ],
        "scratch": {"attempts": 1, "customer": "ACME GmbH", "locale": "de-DE"},
    }


# ----------------------------------------------------------------- setup

BARE_DDL = """
CREATE SCHEMA bench;
CREATE SCHEMA bench_bare;
CREATE TABLE bench.turn_ctx (
    n int PRIMARY KEY, agent uuid NOT NULL, run uuid NOT NULL, persona_rev int,
    memory jsonb NOT NULL, messages uuid[] NOT NULL, prompt text NOT NULL,
    request jsonb NOT NULL, response jsonb NOT NULL, usage jsonb NOT NULL,
    input jsonb NOT NULL, output jsonb NOT NULL, frontier jsonb NOT NULL);
CREATE TABLE bench_bare.runs (
    runtime_agent_id uuid NOT NULL, run_id uuid NOT NULL, status text NOT NULL DEFAULT 'open',
    limit_tokens numeric, limit_cost_usd numeric, limit_tool_calls bigint,
    spent_tokens numeric NOT NULL DEFAULT 0, spent_cost_usd numeric NOT NULL DEFAULT 0,
    spent_tool_calls bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (runtime_agent_id, run_id));
CREATE TABLE bench_bare.snapshots (
    runtime_agent_id uuid NOT NULL, snapshot_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL, prompt text NOT NULL, prompt_sha256 text NOT NULL,
    persona_revision int, memory jsonb NOT NULL, messages uuid[] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (runtime_agent_id, snapshot_id));
CREATE TABLE bench_bare.model_calls (
    runtime_agent_id uuid NOT NULL, model_call_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL, snapshot_id uuid NOT NULL, provider text NOT NULL, model text NOT NULL,
    request jsonb NOT NULL, response jsonb, usage jsonb NOT NULL, status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (runtime_agent_id, model_call_id));
CREATE TABLE bench_bare.tool_calls (
    runtime_agent_id uuid NOT NULL, tool_call_id uuid NOT NULL DEFAULT gen_random_uuid(),
    run_id uuid NOT NULL, model_call_id uuid, tool text NOT NULL, input jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (runtime_agent_id, tool_call_id));
CREATE TABLE bench_bare.tool_results (
    runtime_agent_id uuid NOT NULL, tool_call_id uuid NOT NULL,
    result_id bigint GENERATED ALWAYS AS IDENTITY, output jsonb NOT NULL, status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (runtime_agent_id, tool_call_id, result_id));
CREATE TABLE bench_bare.checkpoints (
    runtime_agent_id uuid NOT NULL, run_id uuid NOT NULL, checkpoint int NOT NULL,
    frontier jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (runtime_agent_id, run_id, checkpoint));
"""


def setup(conn: psycopg.Connection[Any], agents: int, runs: int, analyze: bool = True) -> None:
    """One agent per client, set up through the product functions as an operator:
    hosting, persona, conversation with two messages, three memories, a granted
    tool and ``runs`` open runs with a budget (each turn picks one of its agent's
    runs at random, so a run sees a realistic handful of turns and the tables
    have realistic sizes)."""
    conn.execute(BARE_DDL)
    conn.execute(
        "SELECT agent_state.register_tool('search', '1', %s)",
        [
            Jsonb(
                {
                    "type": "object",
                    "properties": {"max_results": {"type": "integer", "minimum": 1, "maximum": 50}},
                }
            ),
        ],
    )
    budget = {"tokens": 10**12, "cost_usd": 10**9, "tool_calls": 10**9}
    for n in range(agents):
        agent = conn.execute("SELECT agent_state.create_agent(%s)", [f"bench-turn-{n}"]).fetchone()[
            0
        ]  # type: ignore[index]
        conn.execute("SELECT agent_state.grant_hosting(%s, %s::regrole)", [agent, RUNTIME_ROLE])
        rev = conn.execute(
            "SELECT agent_state.revise_persona(%s, %s)", [agent, PROMPT[:600]]
        ).fetchone()[0]  # type: ignore[index]
        actor = conn.execute(
            "SELECT agent_state.resolve_actor(%s, 'bench', %s, 'Customer')", [agent, f"user-{n}"]
        ).fetchone()[0]  # type: ignore[index]
        conv = conn.execute(
            "SELECT agent_state.open_conversation(%s, 'bench', %s, 'direct')", [agent, f"conv-{n}"]
        ).fetchone()[0]  # type: ignore[index]
        msgs = [
            conn.execute(
                "SELECT agent_state.record_message(%s, %s, %s, %s, ARRAY[%s]::uuid[])",
                [agent, conv, actor, body, actor],
            ).fetchone()[0]  # type: ignore[index]
            for body in (
                "Hi, my invoice has the wrong VAT number.",
                "It should be DE123456789, can you fix it?",
            )
        ]
        memory = []
        for body in (
            "The customer's company is ACME GmbH.",
            "The customer prefers German.",
            "The customer was billed twice in March; refunded.",
        ):
            entry, revision = conn.execute(
                "SELECT * FROM agent_state.remember(agent => %s, body => %s, source_message => %s)",
                [agent, body, msgs[0]],
            ).fetchone()  # type: ignore[misc]
            memory.append({"entry": str(entry), "revision": revision})
        conn.execute(
            "SELECT agent_state.grant_tool(%s, 'search', true, %s)",
            [agent, Jsonb({"max_results": 10})],
        )
        run_ids = [
            r[0]
            for r in conn.execute(
                "SELECT agent_state.start_run(agent => %s, conversation => %s, "
                "trigger_message => %s, "
                "budget => %s) FROM generate_series(1, %s)",
                [agent, conv, msgs[1], Jsonb(budget), runs],
            ).fetchall()
        ]
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO bench_bare.runs (runtime_agent_id, run_id, limit_tokens, "
                "limit_cost_usd, "
                "limit_tool_calls) VALUES (%s, %s, %s, %s, %s)",
                [
                    (agent, run, budget["tokens"], budget["cost_usd"], budget["tool_calls"])
                    for run in run_ids
                ],
            )
            cur.executemany(
                "INSERT INTO bench.turn_ctx VALUES "
                "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (
                        n * runs + j,
                        agent,
                        run,
                        rev,
                        Jsonb(memory),
                        msgs,
                        PROMPT,
                        Jsonb(REQUEST),
                        Jsonb(RESPONSE),
                        Jsonb(USAGE),
                        Jsonb(TOOL_INPUT),
                        Jsonb(TOOL_OUTPUT),
                        Jsonb(frontier(1)),
                    )
                    for j, run in enumerate(run_ids)
                ],
            )
    conn.execute("GRANT USAGE ON SCHEMA bench, bench_bare TO agent_state_runtime")
    conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA bench TO agent_state_runtime")
    conn.execute("GRANT ALL ON ALL TABLES IN SCHEMA bench_bare TO agent_state_runtime")
    if analyze:
        conn.execute("VACUUM ANALYZE")


# ----------------------------------------------------------------- pgbench scripts

CTX = "bench.turn_ctx AS c WHERE c.n = :n"

PRODUCT_ONE = """\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
WITH c AS (SELECT * FROM bench.turn_ctx WHERE n = :n),
s AS (SELECT c.*, agent_state.snapshot_prompt(agent => c.agent, run => c.run,
          prompt => c.prompt || :r, persona_revision => c.persona_rev,
          memory => c.memory, messages => c.messages) AS snap FROM c),
m AS (SELECT s.*, agent_state.record_model_call(agent => s.agent, run => s.run,
          snapshot => s.snap, provider => 'bench', model => 'bench-model',
          request => s.request, response => s.response, usage => s.usage) AS mc FROM s),
t AS (SELECT m.*, agent_state.record_tool_call(agent => m.agent, run => m.run,
          tool => 'search', input => m.input, model_call => m.mc) AS tc FROM m),
x AS (SELECT t.*, agent_state.record_tool_result(agent => t.agent, tool_call => t.tc,
          output => t.output, status => 'ok') AS done FROM t)
SELECT agent_state.checkpoint(agent => x.agent, run => x.run, frontier => x.frontier) FROM x;
"""

BARE_ONE = """\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
WITH c AS (SELECT * FROM bench.turn_ctx WHERE n = :n),
u AS (UPDATE bench_bare.runs AS r
      SET spent_tokens = r.spent_tokens + (c.usage ->> 'tokens')::numeric,
          spent_cost_usd = r.spent_cost_usd + (c.usage ->> 'cost_usd')::numeric,
          spent_tool_calls = r.spent_tool_calls + 1
      FROM c WHERE r.runtime_agent_id = c.agent AND r.run_id = c.run AND r.status = 'open'
      RETURNING r.runtime_agent_id, r.run_id),
s AS (INSERT INTO bench_bare.snapshots (runtime_agent_id, run_id, prompt, prompt_sha256,
          persona_revision, memory, messages)
      SELECT c.agent, c.run, c.prompt || :r,
             encode(sha256(convert_to(c.prompt || :r, 'UTF8')), 'hex'),
             c.persona_rev, c.memory, c.messages FROM c
      RETURNING runtime_agent_id, run_id, snapshot_id),
m AS (INSERT INTO bench_bare.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model,
          request, response, usage, status)
      SELECT s.runtime_agent_id, s.run_id, s.snapshot_id, 'bench', 'bench-model',
             c.request, c.response, c.usage, 'ok' FROM s, c
      RETURNING runtime_agent_id, run_id, model_call_id),
t AS (INSERT INTO bench_bare.tool_calls (runtime_agent_id, run_id, model_call_id, tool, input)
      SELECT m.runtime_agent_id, m.run_id, m.model_call_id, 'search', c.input FROM m, c
      RETURNING runtime_agent_id, tool_call_id),
x AS (INSERT INTO bench_bare.tool_results (runtime_agent_id, tool_call_id, output, status)
      SELECT t.runtime_agent_id, t.tool_call_id, c.output, 'ok' FROM t, c
      RETURNING 1),
k AS (INSERT INTO bench_bare.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
      SELECT u.runtime_agent_id, u.run_id,
             (SELECT coalesce(max(p.checkpoint), 0) + 1 FROM bench_bare.checkpoints AS p
              WHERE p.runtime_agent_id = u.runtime_agent_id AND p.run_id = u.run_id),
             c.frontier FROM u, c
      RETURNING checkpoint)
SELECT k.checkpoint FROM k;
"""

PRODUCT_RECORD_TURN = """\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
SELECT agent_state.record_turn(agent => c.agent, run => c.run, prompt => c.prompt || :r,
    provider => 'bench', model => 'bench-model', request => c.request, response => c.response,
    usage => c.usage, persona_revision => c.persona_rev, memory => c.memory,
    messages => c.messages,
    tool_calls => jsonb_build_array(jsonb_build_object('tool', 'search', 'input', c.input,
                                                       'output', c.output, 'status', 'ok')),
    frontier => c.frontier)
FROM bench.turn_ctx AS c WHERE c.n = :n;
"""

PRODUCT_TX = f"""\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
BEGIN;
SELECT agent_state.snapshot_prompt(agent => c.agent, run => c.run, prompt => c.prompt || :r,
    persona_revision => c.persona_rev, memory => c.memory, messages => c.messages) AS snap
FROM {CTX} \\gset
SELECT agent_state.record_model_call(agent => c.agent, run => c.run, snapshot => :snap::uuid,
    provider => 'bench', model => 'bench-model', request => c.request, response => c.response,
    usage => c.usage) AS mc
FROM {CTX} \\gset
SELECT agent_state.record_tool_call(agent => c.agent, run => c.run, tool => 'search',
    input => c.input, model_call => :mc::uuid) AS tc
FROM {CTX} \\gset
SELECT agent_state.record_tool_result(agent => c.agent, tool_call => :tc::uuid, output => c.output,
    status => 'ok')
FROM {CTX};
SELECT agent_state.checkpoint(agent => c.agent, run => c.run, frontier => c.frontier) FROM {CTX};
COMMIT;
"""

BARE_TX = f"""\\set r random(1, 1000000000)
\\set n :client_id * :runs + random(0, :runs - 1)
BEGIN;
UPDATE bench_bare.runs AS r
SET spent_tokens = r.spent_tokens + (c.usage ->> 'tokens')::numeric,
    spent_cost_usd = r.spent_cost_usd + (c.usage ->> 'cost_usd')::numeric,
    spent_tool_calls = r.spent_tool_calls + 1
FROM bench.turn_ctx AS c
WHERE c.n = :n AND r.runtime_agent_id = c.agent AND r.run_id = c.run AND r.status = 'open';
INSERT INTO bench_bare.snapshots (runtime_agent_id, run_id, prompt, prompt_sha256,
    persona_revision, memory, messages)
SELECT c.agent, c.run, c.prompt || :r, encode(sha256(convert_to(c.prompt || :r, 'UTF8')), 'hex'),
       c.persona_rev, c.memory, c.messages FROM {CTX}
RETURNING snapshot_id AS snap \\gset
INSERT INTO bench_bare.model_calls (runtime_agent_id, run_id, snapshot_id, provider, model,
    request, response, usage, status)
SELECT c.agent, c.run, :snap::uuid, 'bench', 'bench-model', c.request, c.response, c.usage, 'ok'
FROM {CTX}
RETURNING model_call_id AS mc \\gset
INSERT INTO bench_bare.tool_calls (runtime_agent_id, run_id, model_call_id, tool, input)
SELECT c.agent, c.run, :mc::uuid, 'search', c.input FROM {CTX}
RETURNING tool_call_id AS tc \\gset
INSERT INTO bench_bare.tool_results (runtime_agent_id, tool_call_id, output, status)
SELECT c.agent, :tc::uuid, c.output, 'ok' FROM {CTX};
INSERT INTO bench_bare.checkpoints (runtime_agent_id, run_id, checkpoint, frontier)
SELECT c.agent, c.run,
       (SELECT coalesce(max(p.checkpoint), 0) + 1 FROM bench_bare.checkpoints AS p
        WHERE p.runtime_agent_id = c.agent AND p.run_id = c.run),
       c.frontier FROM {CTX};
COMMIT;
"""


def count_rows(conn: psycopg.Connection[Any], kind: str) -> int:
    table_ = "agent_state.checkpoints" if kind == "product" else "bench_bare.checkpoints"
    try:
        row = conn.execute(f"SELECT count(*) FROM {table_}").fetchone()
    except psycopg.Error:
        conn.rollback() if not conn.autocommit else None
        return -1
    return int(row[0]) if row else 0


def turn_benchmarks(
    server: Server,
    conn: psycopg.Connection[Any],
    clients_list: list[int],
    seconds: float,
    have: bool,
    runs: int,
    rounds: int,
    have_record_turn: bool = False,
) -> list[dict[str, Any]]:
    runtime = server.dsn(DB, RUNTIME_ROLE)
    out = []
    shapes: list[tuple[str, list[tuple[str, str]]]] = [
        ("one statement", [("bare", BARE_ONE)]),
        ("client transaction", [("bare", BARE_TX)]),
    ]
    if have:
        shapes[0][1].append(("agent_state", PRODUCT_ONE))
        shapes[1][1].append(("agent_state", PRODUCT_TX))
    if have_record_turn:
        shapes[0][1].append(("record_turn", PRODUCT_RECORD_TURN))
    # Warm-up: give every table some history, then ANALYZE, so that the plans the
    # measured sessions cache are made for tables that have rows (plans cached for
    # freshly analyzed empty tables are sequential scans, and stay so for the
    # whole session).
    for label, script in [("bare", BARE_ONE)] + ([("agent_state", PRODUCT_ONE)] if have else []):
        pgbench(
            runtime,
            script,
            clients=max(clients_list),
            seconds=max(2.0, seconds / 4),
            label=f"warm-up {label}",
            defines={"runs": runs},
        )
    conn.execute("VACUUM ANALYZE")
    for shape, systems in shapes:
        for clients in clients_list:
            row: dict[str, Any] = {"shape": shape, "clients": clients}
            tps: dict[str, list[float]] = {label: [] for label, _ in systems}
            wal: dict[str, list[float]] = {label: [] for label, _ in systems}
            buffers: dict[str, list[float]] = {label: [] for label, _ in systems}
            for _round in range(rounds):
                for label, script in systems:
                    res, row[label + " waits"] = measured_run(
                        conn,
                        runtime,
                        script,
                        clients=clients,
                        seconds=seconds,
                        label=f"turn {shape} {label} {clients}c",
                        defines={"runs": runs},
                    )
                    tps[label].append(res.tps)
                    wal[label].append(res.wal_per_tx)
                    buffers[label].append(res.buffers_per_tx)
                    log(
                        f"  turn {shape:18} {clients}c {label:12} {res.tps:9.1f} tps "
                        f"(avg {res.latency_ms:.3f} ms, {res.wal_per_tx:.0f} WAL bytes/turn)"
                    )
            record_means(row, tps, wal, buffers)
            out.append(row)
    return out


# ----------------------------------------------------------------- checkpoint vs peer


CHECKPOINT_CALL = "SELECT agent_state.checkpoint(agent => %s, run => %s, frontier => %s)"
# The least a checkpoint can cost: the bare numbered insert into a bare table
# (primary key only), the same JSON, one statement from the same client loop.
CHECKPOINT_BARE = (
    "INSERT INTO bench_bare.checkpoints (runtime_agent_id, run_id, checkpoint, frontier) "
    "SELECT a, r, coalesce((SELECT max(p.checkpoint) FROM bench_bare.checkpoints AS p "
    "WHERE p.runtime_agent_id = a AND p.run_id = r), 0) + 1, f "
    "FROM (SELECT %s::uuid AS a, %s::uuid AS r, %s::jsonb AS f) AS x RETURNING checkpoint"
)


def ours_worker(dsn: str, runs: int, q: str = CHECKPOINT_CALL) -> Any:
    def work(index: int, deadline: float) -> tuple[int, list[float]]:
        rng = random.Random(index)
        with psycopg.connect(dsn, autocommit=True) as conn:
            mine = conn.execute(
                "SELECT agent, run FROM bench.turn_ctx WHERE n / %s = %s ORDER BY n", [runs, index]
            ).fetchall()
            lats: list[float] = []
            step = 0
            while True:
                step += 1
                agent, run = rng.choice(mine)
                state = Jsonb(frontier(step))
                t = time.perf_counter()
                if t >= deadline:
                    break
                conn.execute(q, [agent, run, state], prepare=True).fetchone()
                lats.append(time.perf_counter() - t)
            return len(lats), lats

    return work


def peer_worker(dsn: str, runs: int) -> Any:
    def work(index: int, deadline: float) -> tuple[int, list[float]]:
        from langgraph.checkpoint.base import empty_checkpoint
        from langgraph.checkpoint.postgres import PostgresSaver

        rng = random.Random(index)
        with PostgresSaver.from_conn_string(dsn) as saver:
            # one thread per run, as many as our side has runs
            configs: list[Any] = [
                {
                    "configurable": {
                        "thread_id": f"thread-{index}-{j}-{time.time_ns()}",
                        "checkpoint_ns": "",
                    }
                }
                for j in range(runs)
            ]
            lats: list[float] = []
            step = 0
            while True:
                step += 1
                j = rng.randrange(runs)
                state = frontier(step)
                cp = empty_checkpoint()
                cp["channel_values"] = dict(state)
                cp["channel_versions"] = dict.fromkeys(state, step)
                cp["versions_seen"] = {"agent": dict.fromkeys(state, step - 1)}
                t = time.perf_counter()
                if t >= deadline:
                    break
                configs[j] = saver.put(
                    configs[j],
                    cp,
                    {"source": "loop", "step": step, "parents": {}},
                    dict.fromkeys(state, step),
                )
                lats.append(time.perf_counter() - t)
            return len(lats), lats

    return work


def checkpoint_vs_peer(
    server: Server, clients_list: list[int], seconds: float, runs: int, have: bool
) -> list[dict[str, Any]]:
    try:
        import langgraph.checkpoint.postgres  # noqa: F401
    except ImportError:
        log(
            "langgraph-checkpoint-postgres is not installed: peer not measured "
            "(pip install langgraph-checkpoint-postgres)"
        )
        return []
    from langgraph.checkpoint.postgres import PostgresSaver

    peer_dsn = server.fresh_database(PEER_DB)
    with PostgresSaver.from_conn_string(peer_dsn) as saver:
        saver.setup()
    out = []
    for clients in clients_list:
        row: dict[str, Any] = {"clients": clients}
        systems = [("langgraph PostgresSaver.put", peer_worker(peer_dsn, runs))]
        if have:
            systems.append(
                ("agent_state.checkpoint", ours_worker(server.dsn(DB, RUNTIME_ROLE), runs))
            )
        systems.append(
            (
                "bare checkpoint insert",
                ours_worker(server.dsn(DB, RUNTIME_ROLE), runs, CHECKPOINT_BARE),
            )
        )
        for label, fn in systems:
            with server.connect() as c:
                c.execute("CHECKPOINT")
            rate, lats = run_clients(fn, clients, seconds)
            row[label] = {"ops": rate, "p50": percentile(lats, 50), "p99": percentile(lats, 99)}
            log(
                f"  checkpoint {clients}c {label:28} {rate:9.1f}/s "
                f"p50 {ms(percentile(lats, 50))} ms "
                f"p99 {ms(percentile(lats, 99))} ms"
            )
        out.append(row)
    with psycopg.connect(peer_dsn) as c:
        sizes = c.execute(
            "SELECT (SELECT avg(pg_column_size(checkpoint)) FROM checkpoints), "
            "(SELECT avg(pg_column_size(blob)) FROM checkpoint_blobs)"
        ).fetchone()
    assert sizes is not None  # two scalar subqueries: always one row
    out.append(
        {
            "peer_sizes": {
                "checkpoint_jsonb_bytes": float(sizes[0] or 0),
                "blob_bytes": float(sizes[1] or 0),
            }
        }
    )
    server.drop_database(PEER_DB)
    return out


# ----------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="short runs (< 2 min)")
    ap.add_argument("--seconds", type=float, help="length of each run (20; quick 3)")
    ap.add_argument("--clients", default="1,8")
    ap.add_argument(
        "--rounds", type=int, help="repetitions of each turn run, interleaved (2; quick 1)"
    )
    ap.add_argument(
        "--runs", type=int, help="open runs per agent, a turn picks one (500; quick 50)"
    )
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--out", help="write the results as JSON to this file")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 3 if args.quick else 15
    if args.rounds is None:
        args.rounds = 1 if args.quick else 2
    if args.runs is None:
        args.runs = 50 if args.quick else 500
    clients_list = [int(c) for c in args.clients.split(",")]
    agents = max(clients_list)
    results: dict[str, Any] = {"config": {k: v for k, v in vars(args).items() if k != "out"}}
    with Server() as server:
        dsn = server.product_database(DB)
        have = has_functions(dsn, *TURN_FUNCTIONS)
        results["functions"] = have
        results["machine"] = server.describe()
        all_there = all(have.values())
        if not all_there:
            log(
                f"NOT BUILT YET: {', '.join(n for n, ok in have.items() if not ok)}; "
                "measuring the baselines only"
            )
        with server.connect(DB) as conn:
            if all_there:
                with timed("setup"):
                    setup(conn, agents, args.runs)
            else:
                conn.execute(BARE_DDL)
            with timed("turn throughput"):
                results["turn"] = turn_benchmarks(
                    server,
                    conn,
                    clients_list,
                    args.seconds,
                    all_there,
                    args.runs,
                    args.rounds,
                    all_there and has_functions(dsn, "record_turn")["record_turn"],
                )
            if all_there:
                n = count_rows(conn, "product")
                results["product_checkpoints_written"] = n
            if not args.no_peer:
                with timed("checkpoint against the peer"):
                    results["checkpoint"] = checkpoint_vs_peer(
                        server,
                        clients_list,
                        args.seconds,
                        args.runs,
                        have.get("checkpoint", False) and all_there,
                    )
        server.drop_database(DB)
    report(results)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, default=str))
    return 0


def report(results: dict[str, Any]) -> None:
    out: list[str] = []
    m = results["machine"]
    out.append("## Execution-state benchmark\n")
    out.append(
        f"Machine: {m.get('cpu')}, {m.get('cores')} cores, {m.get('memory')}; {m.get('server')}"
    )
    out.append(
        f"Settings: fsync={m.get('fsync')}, synchronous_commit={m.get('synchronous_commit')}, "
        f"shared_buffers={m.get('shared_buffers')}, jit={m.get('jit')} ({m.get('database')})"
    )
    out.append(f"Config: {results['config']}")
    missing = [n for n, ok in results["functions"].items() if not ok]
    if missing:
        out.append(f"\n**Not built yet, so not measured: {', '.join(missing)}.**")
    out.append("\n### one turn (pgbench, turns per second)\n")
    rows = []
    for r in results.get("turn", []):
        for label, target in (("agent_state", TURN_TARGET), ("record_turn", RECORD_TURN_TARGET)):
            prod = r.get(label)
            if prod is None and label == "record_turn":
                continue
            ratio = None if prod is None else prod / r["bare"]
            wal = None if prod is None else r[label + " wal"] / r["bare wal"]
            rows.append(
                [
                    r["shape"],
                    r["clients"],
                    f"{r['bare']:.0f}",
                    label if label == "record_turn" else "five calls",
                    "n/a" if prod is None else f"{prod:.0f}",
                    "n/a" if ratio is None else f"{ratio:.2f}x",
                    "n/a" if ratio is None else verdict(ratio >= target),
                    f"{r['bare wal']:.0f}",
                    "n/a" if prod is None else f"{r[label + ' wal']:.0f}",
                    "n/a" if wal is None else f"{wal:.2f}x {verdict(wal <= WAL_TARGET)}",
                ]
            )
    out.append(
        table(
            [
                "shape",
                "clients",
                "bare turns/s",
                "agent_state as",
                "turns/s",
                "ratio",
                f"target (five calls >= {TURN_TARGET}x, record_turn >= {RECORD_TURN_TARGET}x)",
                "bare WAL B/turn",
                "WAL B/turn",
                f"WAL ratio (target <= {WAL_TARGET}x)",
            ],
            rows,
        )
    )
    out.append(
        "\nWAL bytes and shared buffers (hits + reads, pg_stat_database) per turn,"
        " which hardly swing between runs:\n"
    )
    out.append(
        table(
            ["shape", "clients", "system", "WAL B/turn", "buffers/turn"],
            [
                [
                    r["shape"],
                    r["clients"],
                    label,
                    f"{r[label + ' wal']:.0f}",
                    f"{r[label + ' buffers']:.1f}",
                ]
                for r in results.get("turn", [])
                for label in ("bare", "agent_state", "record_turn")
                if label + " buffers" in r
            ],
        )
    )
    out.append("\nWhat the client backends waited on (pg_stat_activity samples, last round):\n")
    out.append(
        table(
            ["shape", "clients", "system", "wait samples"],
            [
                [r["shape"], r["clients"], label, r[label + " waits"]]
                for r in results.get("turn", [])
                for label in ("bare", "agent_state", "record_turn")
                if label + " waits" in r
            ],
        )
    )
    cps = [r for r in results.get("checkpoint", []) if "clients" in r]
    if cps:
        out.append("\n### checkpoint against langgraph-checkpoint-postgres (Python clients)\n")
        rows = []
        for r in cps:
            peer = r.get("langgraph PostgresSaver.put")
            ours = r.get("agent_state.checkpoint")
            bare = r.get("bare checkpoint insert")
            row = [r["clients"], f"{peer['ops']:.0f}", ms(peer["p50"]), ms(peer["p99"])]
            if bare:
                row += [f"{bare['ops']:.0f}", f"{bare['ops'] / peer['ops']:.2f}x"]
            else:
                row += ["n/a"] * 2
            if ours:
                ratio = ours["ops"] / peer["ops"]
                row += [
                    f"{ours['ops']:.0f}",
                    ms(ours["p50"]),
                    ms(ours["p99"]),
                    f"{ratio:.2f}x",
                    verdict(ratio >= CHECKPOINT_TARGET),
                ]
            else:
                row += ["n/a"] * 5
            rows.append(row)
        out.append(
            table(
                [
                    "clients",
                    "peer put/s",
                    "peer p50 ms",
                    "peer p99 ms",
                    "bare insert/s",
                    "bare / peer",
                    "checkpoint/s",
                    "p50 ms",
                    "p99 ms",
                    "ratio",
                    f"target >= {CHECKPOINT_TARGET}x",
                ],
                rows,
            )
        )
        sizes = [r["peer_sizes"] for r in results["checkpoint"] if "peer_sizes" in r]
        if sizes:
            out.append(
                "\nPeer storage per put: checkpoint jsonb "
                f"{sizes[0]['checkpoint_jsonb_bytes']:.0f} B, "
                f"blob {sizes[0]['blob_bytes']:.0f} B; our frontier is the same JSON "
                f"({len(json.dumps(frontier(1)))} B as text)."
            )
    print("\n".join(out))


if __name__ == "__main__":
    raise SystemExit(main())
