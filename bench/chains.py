"""What tamper evidence costs (SPEC section 14): the product with its hash chains
against the same code without them, in the same run on the same server.

    python3 bench/chains.py            # 15 s per run, 200,000 revisions for verify
    python3 bench/chains.py --quick    # smoke run

Writes: two databases with the bundle installed, ``bench_chains_on`` as shipped
and ``bench_chains_off`` where the stamp triggers (``zz_chain`` and the others
named so) are disabled and the read checks (``_chain_checked``,
``_chain_served_memory``) return true: the same code without the chains. Reads:
one agent of ``bench_chains_on``, alternately as shipped and with the read checks
replaced for one rolled-back transaction, so both sides read the same pages.

Measured, 1 and 8 clients (Python processes, each its own agent), as a superuser:

* ``remember`` (with its source message), ``amend`` of one entry per client, and a
  turn (``record_turn``: snapshot, model call, checkpoint): operations per second
  and WAL bytes per operation (WAL barely swings between runs);
* ``recall`` p50 and p99 over an agent with ``--entries`` memories, and
  ``AgentStateSaver.get_tuple`` p50 over a thread of 200 checkpoints;
* ``verify(agent)`` over an agent with ``--revisions`` memory revisions, and
  ``verify()`` over the whole database (``--database-entries``), with the
  records hashed per second.

Targets: throughput and WAL per operation within 10% (ratio >= 0.9 and <= 1.1);
recall p50 and get_tuple p50 within 10%.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import Server, adopt_loaded, log, percentile, run_clients, table, verdict

OFF_SQL = """
DO $off$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT g.tgname, g.tgrelid::regclass AS tbl FROM pg_trigger AS g
             WHERE g.tgname LIKE 'zz_chain%' LOOP
        EXECUTE format('ALTER TABLE %s DISABLE TRIGGER %I', t.tbl, t.tgname);
    END LOOP;
END
$off$;
"""

# The read checks replaced by functions that return true (in a transaction that
# is rolled back: read_rows).
READ_CHECKS_OFF = """
CREATE OR REPLACE FUNCTION agent_state._chain_checked(tbl name, r anyelement)
RETURNS boolean LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS 'SELECT true';
CREATE OR REPLACE FUNCTION agent_state._chain_served_memory(
    agent uuid, entry uuid, revision integer, body text, subject uuid)
RETURNS boolean LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS 'SELECT true';
"""

WORDS = ("deploy", "key", "rotates", "launch", "coffee", "kitchen", "vault", "budget", "review",
         "plan", "tea", "green")  # fmt: skip


def body(i: int) -> str:
    return " ".join(WORDS[(i * k) % len(WORDS)] for k in (1, 3, 5, 7)) + f" note {i}"


def context(dsn: str, n: int) -> dict[str, Any]:
    """An agent with a conversation, an actor, a message, an entry and a run."""
    with psycopg.connect(dsn, autocommit=True) as conn:

        def one(q: str, *a: Any) -> Any:
            row = conn.execute(q, list(a)).fetchone()
            assert row is not None
            return row[0]

        agent = one("SELECT agent_state.create_agent(%s)", f"bench-chains-{n}-{time.time_ns()}")
        conv = one("SELECT agent_state.open_conversation(%s, 'bench', %s)", agent, f"c{n}")
        actor = one("SELECT agent_state.resolve_actor(%s, 'bench', 'u', 'User')", agent)
        msg = one(
            "SELECT agent_state.record_message(%s, %s, %s, 'I like tea', ARRAY[%s]::uuid[])",
            agent, conv, actor, actor,
        )  # fmt: skip
        entry = one("SELECT entry FROM agent_state.note(%s, 'the first fact')", agent)
        run = one("SELECT agent_state.start_run(%s, %s)", agent, conv)
    return {"agent": agent, "msg": msg, "actor": actor, "entry": entry, "run": run}


def wal(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
    return int(row[0]) if row else 0


def writer(dsn: str, op: str) -> Any:
    def run(index: int, deadline: float) -> tuple[int, list[float]]:
        ctx = context(dsn, index)
        lats: list[float] = []
        rev = 1
        with psycopg.connect(dsn, autocommit=True) as conn:
            while time.perf_counter() < deadline:
                t0 = time.perf_counter()
                if op == "remember":
                    conn.execute(
                        "SELECT agent_state.remember(%s, %s, %s, %s)",
                        [ctx["agent"], body(len(lats)), ctx["msg"], ctx["actor"]],
                    )
                elif op == "amend":
                    conn.execute(
                        "SELECT agent_state.amend(%s, %s, %s, %s)",
                        [ctx["agent"], ctx["entry"], body(rev), rev],
                    )
                    rev += 1
                else:
                    conn.execute(
                        "SELECT agent_state.record_turn(agent => %s, run => %s, prompt => %s,"
                        " provider => 'bench', model => 'm', request => '{\"q\": 1}',"
                        " response => '{\"a\": 1}', usage => '{\"tokens\": 10}',"
                        " frontier => '{\"step\": 1}')",
                        [ctx["agent"], ctx["run"], body(len(lats))],
                    )
                lats.append(time.perf_counter() - t0)
        return len(lats), lats

    return run


def write_rows(dsns: dict[str, str], seconds: float, rounds: int) -> list[list[object]]:
    rows: list[list[object]] = []
    for op in ("remember", "amend", "turn"):
        for clients in (1, 8):
            best: dict[str, tuple[float, float]] = {}
            for _ in range(rounds):
                for side, dsn in dsns.items():  # alternated, so drift hits both
                    before = wal(dsn)
                    rate, _ = run_clients(writer(dsn, op), clients, seconds)
                    per_op = (wal(dsn) - before) / max(rate * seconds, 1)
                    prev = best.get(side)
                    if prev is None or rate > prev[0]:
                        best[side] = (rate, per_op)
            on, off = best["on"], best["off"]
            rows.append([
                op, clients, f"{off[0]:.0f}", f"{on[0]:.0f}", f"{on[0] / off[0]:.2f}",
                f"{off[1]:.0f}", f"{on[1]:.0f}", f"{on[1] / off[1]:.2f}",
                verdict(on[0] / off[0] >= 0.9 and on[1] / off[1] <= 1.1),
            ])  # fmt: skip
            log(f"{op} x{clients}: {rows[-1]}")
    return rows


def load_memories(dsn: str, n: int, handle: str) -> Any:
    """An agent with n memories, written as a bulk load (restore mode), then stamped."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT agent_state.create_agent(%s)", [handle]).fetchone()
        assert row is not None
        agent = row[0]
        with conn.transaction():
            conn.execute("SET LOCAL row_security = off")
            conn.execute("SELECT pg_catalog.set_config('search_path', '', true)")
            conn.execute(
                """
                WITH s AS (
                    SELECT pg_catalog.gen_random_uuid() AS entry_id, g.i,
                           pg_catalog.now() - g.i * interval '1 minute' AS t
                    FROM pg_catalog.generate_series(1, %(n)s) AS g (i)),
                rev AS (
                    INSERT INTO agent_state.memory_revisions
                        (runtime_agent_id, entry_id, revision, operation, body, visibility,
                         source_type, evidence_conversations, created_at)
                    SELECT %(agent)s, s.entry_id, 1, 'create', 'memo ' || s.i || ' '
                           || (ARRAY['tea', 'deploy key', 'launch', 'coffee'])[1 + s.i %% 4],
                           'perspective', 'operator', '{}', s.t
                    FROM s RETURNING entry_id, body, created_at)
                INSERT INTO agent_state.memory_entries
                    (runtime_agent_id, entry_id, current_revision, live, body, visibility,
                     source_type, evidence_conversations, revised_at, created_at)
                SELECT %(agent)s, r.entry_id, 1, true, r.body, 'perspective', 'operator', '{}',
                       r.created_at, r.created_at
                FROM rev AS r
                """,
                {"n": n, "agent": agent},
            )
        adopt_loaded(conn)
        conn.execute("ANALYZE agent_state.memory_revisions")
        conn.execute("ANALYZE agent_state.memory_entries")
    return agent


def read_rows(dsn: str, entries: int, calls: int, rounds: int) -> list[list[object]]:
    """recall and get_tuple on one agent of one database, with the read checks as
    shipped and, alternately, replaced for one rolled-back transaction by functions
    that return true (READ_CHECKS_OFF): the same data, plans and pages."""
    from langgraph.checkpoint.base import create_checkpoint, empty_checkpoint

    from agent_state import Store
    from agent_state.integrations.langgraph import AgentStateSaver

    agent = load_memories(dsn, entries, "bench-chains-read")
    with Store(dsn) as store:
        saver = AgentStateSaver(store, agent=agent)
        cfg: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
        cp = empty_checkpoint()
        for i in range(200):
            cp = create_checkpoint(cp, {"state": i}, i)  # type: ignore[dict-item]
            cfg = saver.put(cfg, cp, {"source": "loop", "step": i}, {})
    timings: dict[tuple[str, str], list[float]] = {}
    queries = ["tea", "deploy key", "launch", "coffee"]
    for _ in range(rounds):
        for side in ("on", "off"):
            with psycopg.connect(dsn) as conn:
                if side == "off":
                    conn.execute(READ_CHECKS_OFF)
                store = Store(conn)
                saver = AgentStateSaver(store, agent=agent)
                for i in range(calls):
                    t0 = time.perf_counter()
                    store.recall(agent=agent, query=queries[i % 4], max_results=10)
                    timings.setdefault(("recall", side), []).append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})
                    timings.setdefault(("get_tuple", side), []).append(time.perf_counter() - t0)
                conn.rollback()
    rows: list[list[object]] = []
    for what in ("recall", "get_tuple"):
        on, off = timings[(what, "on")], timings[(what, "off")]
        p50 = percentile(on, 50) / percentile(off, 50)
        rows.append([
            what, f"{percentile(off, 50) * 1000:.2f}", f"{percentile(on, 50) * 1000:.2f}",
            f"{p50:.2f}", f"{percentile(off, 99) * 1000:.2f}", f"{percentile(on, 99) * 1000:.2f}",
            verdict(p50 <= 1.1),
        ])  # fmt: skip
    return rows


def verify_rows(dsn: str, revisions: int, database_entries: int) -> list[list[object]]:
    rows: list[list[object]] = []
    agent = load_memories(dsn, revisions, "bench-chains-verify")
    with psycopg.connect(dsn, autocommit=True) as conn:
        t0 = time.perf_counter()
        found = conn.execute("SELECT count(*) FROM agent_state.verify(%s)", [agent]).fetchone()
        took = time.perf_counter() - t0
        rows.append(["verify(agent)", revisions, f"{took:.1f}", f"{revisions / took:,.0f}", found])
    more = database_entries - revisions
    if more > 0:
        load_memories(dsn, more, "bench-chains-verify-rest")
    with psycopg.connect(dsn, autocommit=True) as conn:
        total = conn.execute("SELECT count(*) FROM agent_state.memory_entries").fetchone()
        n = int(total[0]) if total else 0
        t0 = time.perf_counter()
        found = conn.execute("SELECT count(*) FROM agent_state.verify()").fetchone()
        took = time.perf_counter() - t0
        rows.append(["verify()", n, f"{took:.1f}", f"{n / took:,.0f}", found])
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--entries", type=int, default=None, help="memories of the recall agent")
    ap.add_argument("--revisions", type=int, default=None, help="revisions of the verify agent")
    ap.add_argument("--database-entries", type=int, default=None)
    ap.add_argument("--out", default=None, help="write the tables as JSON here")
    args = ap.parse_args(argv)
    q = args.quick
    seconds = args.seconds or (3.0 if q else 15.0)
    rounds = args.rounds or (1 if q else 3)
    entries = args.entries or (5_000 if q else 50_000)
    revisions = args.revisions or (10_000 if q else 200_000)
    database_entries = args.database_entries or (20_000 if q else 1_200_000)
    with Server() as server:
        dsns = {"on": server.product_database("bench_chains_on"),
                "off": server.product_database("bench_chains_off")}  # fmt: skip
        with psycopg.connect(dsns["off"], autocommit=True) as conn:
            conn.execute(OFF_SQL)
            conn.execute(READ_CHECKS_OFF)
        writes = write_rows(dsns, seconds, rounds)
        reads = read_rows(dsns["on"], entries, 100 if q else 300, rounds)
        verifies = verify_rows(dsns["on"], revisions, database_entries)
    w_head = ["operation", "clients", "ops/s off", "ops/s on", "ratio", "WAL B/op off",
              "WAL B/op on", "WAL ratio", "target"]  # fmt: skip
    r_head = ["read", "p50 ms off", "p50 ms on", "p50 ratio", "p99 ms off", "p99 ms on", "target"]
    v_head = ["verify", "rows", "seconds", "rows/s", "findings"]
    print(table(w_head, writes))
    print()
    print(table(r_head, reads))
    print()
    print(table(v_head, verifies))
    if args.out:
        Path(args.out).write_text(json.dumps({"writes": writes, "reads": reads, "verify": verifies},
                                             default=str, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
