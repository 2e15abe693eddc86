"""Where the time of a product call goes: per-function self time and table scans.

    python3 bench/profile.py [--calls N]

Loads a small memory data set and the turn fixtures, then calls remember, amend,
recall (as a runtime role hosting the agents) and one full turn N times each in
one session with ``track_functions = all``, and prints for each:

- wall time per call (one client, fsync on, so writes include one WAL flush);
- pg_stat_user_functions: calls per operation and self time per call (helpers,
  triggers, deferred constraint triggers at commit);
- tables read by sequential scan (rows read per operation);
- recall once more with ``plan_cache_mode = force_generic_plan``, which tells how
  much of its time is planning (PL/pgSQL re-plans statements whose generic plan
  looks costlier than the custom ones).

Timings with track_functions on are inflated by the instrumentation; compare
the rows with each other, not with the benchmarks.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import memory
import psycopg
import turn
from common import RUNTIME_ROLE, Server, ms, percentile


def stats(server: Server, db: str) -> tuple[dict[str, tuple[int, float]], dict[str, int]]:
    time.sleep(1.2)  # function statistics are flushed when the backend goes idle
    with server.connect(db) as c:
        funcs = {
            r[0]: (int(r[1]), float(r[2]))
            for r in c.execute(
                "SELECT funcname, calls, self_time FROM pg_stat_user_functions "
                "WHERE schemaname = 'agent_state'"
            )
        }
        scans = {
            r[0]: int(r[1])
            for r in c.execute(
                "SELECT relname, coalesce(seq_tup_read, 0) FROM pg_stat_user_tables "
                "WHERE schemaname = 'agent_state'"
            )
        }
    return funcs, scans


def reset(server: Server, db: str) -> None:
    with server.connect(db) as c:
        c.execute("SELECT pg_stat_reset()")


def show(title: str, n: int, wall: list[float], server: Server, db: str) -> None:
    funcs, scans = stats(server, db)
    print(
        f"\n### {title}: {n} calls, wall p50 {ms(percentile(wall, 50))} ms, "
        f"mean {ms(sum(wall) / len(wall))} ms\n"
    )
    print("| function | calls per op | self ms per op |\n| --- | --- | --- |")
    for name, (calls, self_ms) in sorted(funcs.items(), key=lambda kv: -kv[1][1])[:15]:
        print(f"| {name} | {calls / n:.1f} | {self_ms / n:.3f} |")
    seq = [(t, rows) for t, rows in scans.items() if rows]
    if seq:
        print(
            "\nrows read by sequential scans per op: "
            + ", ".join(f"{t} {rows / n:.0f}" for t, rows in sorted(seq, key=lambda x: -x[1]))
        )


def timed_calls(conn: psycopg.Connection[Any], calls: list[tuple[str, Any]]) -> list[float]:
    wall = []
    for query, params in calls:
        t = time.perf_counter()
        conn.execute(query, params, prepare=True).fetchall()
        wall.append(time.perf_counter() - t)
    return wall


def session(server: Server, db: str) -> psycopg.Connection[Any]:
    conn = server.connect(db)
    conn.execute("SET track_functions = 'all'")
    conn.execute(f"SET ROLE {RUNTIME_ROLE}")
    return conn


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--calls", type=int, default=500)
    args = ap.parse_args()
    n = args.calls
    warm = 20  # calls per operation run before the measured ones
    rng = random.Random(3)
    with Server() as server:
        # ---- memory
        server.product_database(memory.DB)
        with server.connect(memory.DB) as c:
            shapes = memory.bare_shapes(memory.setup(c, 50, 0.3))
            memory.load(c, first=1, last=50, per_agent=200, big=0, shapes=shapes, span_days=730)
            ctx = c.execute("SELECT agent, msg, conv FROM bench.ctx WHERE n > 0").fetchall()
            targets = c.execute(
                "SELECT e.runtime_agent_id, e.entry_id, e.current_revision, c.msg "
                "FROM agent_state.memory_entries AS e "
                "JOIN bench.ctx AS c ON c.agent = e.runtime_agent_id "
                "ORDER BY md5(e.entry_id::text) LIMIT %s",
                [n + warm],
            ).fetchall()
        remember = [
            (
                "SELECT * FROM agent_state.remember(agent => %s, body => %s, source_message => %s)",
                [a, f"remembered fact {i} about item {i * 7} that the user mentioned", m],
            )
            for i, (a, m, _) in enumerate(rng.choice(ctx) for _ in range(n + warm))
        ]
        amend = [
            (
                "SELECT agent_state.amend(agent => %s, entry => %s, body => %s, "
                "expected_revision => %s, source_message => %s)",
                [a, e, f"amended fact about {e}", r, m],
            )
            for a, e, r, m in targets
        ]
        queries = [
            (memory.PRODUCT_RECALL, q)
            for q in memory.random_queries([(a, cv) for a, _, cv in ctx], n + warm, rng)
        ]
        for title, calls in (("remember", remember), ("amend", amend), ("recall", queries)):
            # warm up in a session of its own: its statistics are flushed when it
            # ends, before the reset, so the counts below are the measured calls only
            with session(server, memory.DB) as conn:
                timed_calls(conn, calls[:warm])
            time.sleep(1.2)
            reset(server, memory.DB)
            with session(server, memory.DB) as conn:
                wall = timed_calls(conn, calls[warm:])
            show(title, len(calls) - warm, wall, server, memory.DB)
        with server.connect(memory.DB, RUNTIME_ROLE) as conn:
            for mode in ("auto", "force_generic_plan"):
                conn.execute(f"SET plan_cache_mode = {mode}")
                timed_calls(conn, queries[:warm])
                wall = timed_calls(conn, queries[warm:])
                print(
                    f"\nrecall with plan_cache_mode = {mode}: p50 {ms(percentile(wall, 50))} ms, "
                    f"p99 {ms(percentile(wall, 99))} ms"
                )
        server.drop_database(memory.DB)

        # ---- one turn
        server.product_database(turn.DB)
        runs = 100
        with server.connect(turn.DB) as c:
            turn.setup(c, 1, runs)
        body = turn.PRODUCT_ONE.split("\n", 2)[2]
        turn_calls = [
            (body.replace(":n", str(rng.randrange(runs))).replace(":r", "'x'"), None)
            for _ in range(n + 200)
        ]
        with session(server, turn.DB) as conn:
            timed_calls(conn, turn_calls[:200])
        with server.connect(turn.DB) as c:
            c.execute("VACUUM ANALYZE")
        time.sleep(1.2)
        reset(server, turn.DB)
        with session(server, turn.DB) as conn:
            wall = timed_calls(conn, turn_calls[200:])
        show("one turn (one statement)", n, wall, server, turn.DB)
        server.drop_database(turn.DB)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
