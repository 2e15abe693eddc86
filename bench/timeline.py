"""timeline() on an agent with 200,000 memory revisions: a one-day window.

    python3 bench/timeline.py            # 200,000 revisions over 200 days, 300 calls
    python3 bench/timeline.py --quick    # 20,000 revisions, 100 calls

The issue's target: an agent with 200,000 memory revisions answers a one-day
window in milliseconds. The revisions (about 1,000 a day) are loaded the way a
restore loads them (row_security off, empty search_path: the triggers keep the
given stamps; keys and CHECKs still hold). Three rungs, in the same run, on
random one-day windows:

1. ``bare``: the memory branch of timeline() as one statement (range scan of
   memory_revisions_time_idx, LIMIT 1000);
2. ``timeline``: agent_state.timeline(agent, day, day + 1 day), every branch
   (persona, profile, memory, redactions, shares, tool grants) merged;
3. ``bare without the index``: the bare statement with memory_revisions_time_idx
   dropped (in a transaction rolled back): what the index buys.

Prints p50 and p99 in milliseconds, the ratio of each rung to ``bare``, the rows
per call and the shared buffers the bare statement touches (which do not swing
between runs).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Server, adopt_loaded, log

BARE = """
SELECT m.created_at, m.entry_id, m.operation, m.revision, m.created_by
FROM agent_state.memory_revisions AS m
WHERE m.runtime_agent_id = %(agent)s AND m.created_at BETWEEN %(lo)s AND %(hi)s
ORDER BY m.created_at LIMIT 1000
"""
TIMELINE = "SELECT * FROM agent_state.timeline(%(agent)s, %(lo)s, %(hi)s)"

LOAD = """
WITH e AS (
    INSERT INTO agent_state.memory_entries
        (runtime_agent_id, entry_id, current_revision, body, visibility, source_type,
         revised_at, created_at, created_by)
    SELECT %(agent)s, gen_random_uuid(), 1, 'memory number ' || i, 'perspective', 'operator',
           t, t, 'bench'
    FROM (SELECT i, %(start)s::timestamptz + i * %(step)s::interval AS t
          FROM generate_series(1, %(n)s) AS i) AS g
    RETURNING runtime_agent_id, entry_id, body, created_at
)
INSERT INTO agent_state.memory_revisions
    (runtime_agent_id, entry_id, revision, operation, body, visibility, source_type,
     created_at, created_by)
SELECT runtime_agent_id, entry_id, 1, 'create', body, 'perspective', 'operator', created_at, 'bench'
FROM e
"""


def timed(conn: Any, query: str, windows: list[dict[str, Any]]) -> tuple[list[float], float]:
    times, rows = [], 0
    for params in windows:
        start = time.perf_counter()
        rows += len(conn.execute(query, params).fetchall())
        times.append((time.perf_counter() - start) * 1000)
    return times, rows / len(windows)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n, calls = (20_000, 100) if args.quick else (200_000, 300)
    days = 200
    with Server() as server:
        server.product_database("bench_timeline")
        with server.connect("bench_timeline") as conn:
            agent = conn.execute("SELECT agent_state.create_agent('bench-timeline')").fetchone()
            assert agent is not None
            start = conn.execute("SELECT now() - %s * interval '1 day'", [days]).fetchone()
            assert start is not None
            log(f"loading {n:,} memory revisions over {days} days ...")
            began = time.perf_counter()
            with conn.transaction():
                conn.execute("SET LOCAL row_security = off")
                conn.execute("SELECT pg_catalog.set_config('search_path', '', true)")
                conn.execute(
                    LOAD,
                    {
                        "agent": agent[0],
                        "start": start[0],
                        "step": f"{days * 86400 / n} seconds",
                        "n": n,
                    },
                )
            adopt_loaded(conn)
            log(f"loaded and stamped in {time.perf_counter() - began:.1f} s")
            conn.execute("ANALYZE agent_state.memory_revisions")
            rng = random.Random(7)
            windows = []
            for _ in range(calls):
                lo = start[0] + timedelta(days=rng.randrange(days - 1))
                windows.append({"agent": agent[0], "lo": lo, "hi": lo + timedelta(days=1)})
            results: dict[str, tuple[list[float], float]] = {}
            for _round in range(2):  # interleaved: the second round's numbers are kept
                results["bare"] = timed(conn, BARE, windows)
                results["timeline"] = timed(conn, TIMELINE, windows)
            plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + BARE, windows[0])
            buffers = plan.fetchone()[0][0]["Plan"]  # type: ignore[index]
            bare_buffers = buffers.get("Shared Hit Blocks", 0) + buffers.get(
                "Shared Read Blocks", 0
            )
            # The index dropped in a transaction that is rolled back.
            with conn.transaction(force_rollback=True):
                conn.execute("DROP INDEX agent_state.memory_revisions_time_idx")
                results["bare without the index"] = timed(
                    conn, BARE, windows[: max(10, calls // 10)]
                )
    base = results["bare"][0]
    print(f"{n:,} memory revisions, one-day windows ({calls} calls; about {n / days:,.0f} a day)")
    for name, (times, rows) in results.items():
        print(
            f"{name:24s} p50 {pct(times, 0.5):7.2f} ms  p99 {pct(times, 0.99):7.2f} ms"
            f"  x{statistics.median(times) / statistics.median(base):5.2f} bare (p50)"
            f"  rows/call {rows:6.0f}"
        )
    print(f"bare statement: {bare_buffers} shared buffers for one window")
    return 0


if __name__ == "__main__":
    sys.exit(main())
