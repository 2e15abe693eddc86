"""Does a fresh install slow down as it grows? Turns from an empty install,
through long-lived sessions, with nobody running ANALYZE.

    python3 bench/growth.py               # 100,000 turns
    python3 bench/growth.py --quick       # 20,000 turns

A real deployment starts empty, and its sessions plan (and PL/pgSQL caches)
every statement while the tables are small. If those plans are made for empty
tables (sequential scans) and stay cached, every turn gets slower as the
tables fill. This benchmark installs into a new database, sets up the turn
benchmark's agents (``bench/turn.py``, without its ANALYZE), and drives
``record_turn`` from ``--clients`` Python sessions that stay connected for the
whole run; autovacuum runs as it would in production. It reports turns per
second per tenth of the run and the ratio of the last tenth to the first.

Target: the last 10% of the turns at least 0.8x as fast as the first 10%.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import RUNTIME_ROLE, Server, has_functions, log, table, timed, verdict
from psycopg.types.json import Jsonb
from turn import TOOL_OUTPUT, setup

DB = "bench_growth"
TARGET = 0.8
TURN = """
SELECT agent_state.record_turn(agent => c.agent, run => c.run, prompt => c.prompt || %s,
    provider => 'bench', model => 'bench-model', request => c.request, response => c.response,
    usage => c.usage, persona_revision => c.persona_rev, memory => c.memory,
    messages => c.messages, tool_calls => %s, frontier => c.frontier)
FROM bench.turn_ctx AS c WHERE c.n = %s
"""


def client(dsn: str, n: int, runs: int, turns: int, out: Any) -> None:
    """One long-lived session: ``turns`` turns, timing each tenth."""
    tenth = max(1, turns // 10)
    stamps = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.cursor()
        start = time.perf_counter()
        for i in range(turns):
            calls = Jsonb(
                [{"tool": "search", "input": {"q": f"q{i}"}, "output": TOOL_OUTPUT, "status": "ok"}]
            )
            cur.execute(TURN, [str(i), calls, n * runs + i % runs], prepare=True)
            if (i + 1) % tenth == 0:
                stamps.append(time.perf_counter() - start)
    out.put(stamps)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="20,000 turns (about a minute)")
    ap.add_argument("--turns", type=int, help="turns in all (100000; quick 20000)")
    ap.add_argument("--clients", type=int, default=2, help="long-lived sessions (2)")
    ap.add_argument("--runs", type=int, default=200, help="open runs per client's agent (200)")
    args = ap.parse_args()
    if args.turns is None:
        args.turns = 20_000 if args.quick else 100_000
    per_client = args.turns // args.clients
    with Server() as server:
        dsn = server.product_database(DB)
        if not has_functions(dsn, "record_turn")["record_turn"]:
            log("NOT BUILT YET: record_turn")
            return 1
        with server.connect(DB) as conn, timed("setup (no ANALYZE)"):
            setup(conn, args.clients, args.runs, analyze=False)
        runtime = server.dsn(DB, RUNTIME_ROLE)
        queue: Any = mp.get_context("spawn").Queue()
        procs = [
            mp.get_context("spawn").Process(
                target=client, args=(runtime, n, args.runs, per_client, queue)
            )
            for n in range(args.clients)
        ]
        with timed(f"{per_client * args.clients} turns from {args.clients} sessions"):
            for p in procs:
                p.start()
            stamps = [queue.get() for _ in procs]
            for p in procs:
                p.join()
        with server.connect(DB) as conn:
            analyzed = conn.execute(
                "SELECT count(*) FILTER (WHERE last_autoanalyze IS NOT NULL), count(*) "
                "FROM pg_stat_user_tables WHERE schemaname = 'agent_state'"
            ).fetchone()
            # Rows read by sequential scans: what grows with the tables when a
            # plan made for an empty table is kept (counts, not timings).
            scans = conn.execute(
                "SELECT relname, seq_scan, seq_tup_read, coalesce(idx_scan, 0) "
                "FROM pg_stat_user_tables WHERE schemaname = 'agent_state' AND seq_tup_read > 0 "
                "ORDER BY seq_tup_read DESC LIMIT 8"
            ).fetchall()
        describe = server.describe()
        server.drop_database(DB)
    # turns per second in each tenth, over all clients (each client's tenth
    # took its own time; the slowest client's time bounds the tenth)
    tenth = per_client // 10
    rows = []
    rates = []
    for k in range(10):
        took = max(s[k] - (s[k - 1] if k else 0.0) for s in stamps)
        rate = tenth * args.clients / took
        rates.append(rate)
        rows.append([f"{k + 1}", f"{rate:.0f}"])
    ratio = rates[-1] / rates[0]
    print("## Growth from an empty install\n")
    machine = f"{describe.get('cpu')}, {describe.get('cores')} cores; {describe.get('server')}"
    print(f"Machine: {machine}")
    print(
        f"{per_client * args.clients} turns (record_turn) from {args.clients} long-lived sessions, "
        f"{args.runs} runs per agent, no ANALYZE; tables autoanalyzed by the end: "
        f"{analyzed[0] if analyzed else '?'} of {analyzed[1] if analyzed else '?'}\n"
    )
    print(table(["tenth of the run", "turns/s"], rows))
    print("\nSequential scans during the run (pg_stat_user_tables):\n")
    print(
        table(
            ["table", "seq scans", "rows read by them", "index scans"],
            [[r[0], r[1], r[2], r[3]] for r in scans],
        )
    )
    print(
        f"\nLast tenth against the first: {ratio:.2f}x (target >= {TARGET}x: "
        f"**{verdict(ratio >= TARGET)}**)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
