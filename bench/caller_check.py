"""What the 0.3.0 caller checks cost per call.

    python3 bench/caller_check.py            # 20,000 calls per round, 5 rounds
    python3 bench/caller_check.py --quick    # 2,000 calls, 3 rounds

0.3.0 binds a call with two more checks than 0.2.0: a role chosen with SET ROLE
counts only while the session user may still become it (one more pg_has_role per
_caller() call), and memberships are tested for USAGE instead of MEMBER. The
schema guard is an event trigger on DDL, so it adds nothing to a call.

Both _caller() bodies are measured on the same database, in interleaved rounds:
``0.2.0`` (swapped in for the round) against ``0.3.0`` as shipped, for a cheap
bound read (``active_persona``) and a write (``resolve_actor`` of a new
identity), called by a login that says ``SET ROLE`` to its hosting role (the
pooled-connection pattern docs/security.md recommends; without SET ROLE the new
check is skipped). Prints the median round's microseconds per call and the
ratio 0.3.0 / 0.2.0, and how often each statement runs _caller() (from
pg_stat_user_functions, which does not swing between runs).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import RUNTIME_ROLE, Server, log

CALLER_0_2_0 = """
CREATE OR REPLACE FUNCTION agent_state._caller()
RETURNS name LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN CASE pg_catalog.current_setting('role')
        WHEN 'none' THEN session_user
        ELSE pg_catalog.current_setting('role')::name
    END;
END
$$
"""


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    calls, rounds = (2_000, 3) if args.quick else (20_000, 5)
    with Server() as server:
        server.product_database("bench_caller")
        with server.connect("bench_caller") as admin:
            shipped = admin.execute(
                "SELECT pg_get_functiondef('agent_state._caller()'::regprocedure)"
            ).fetchone()
            assert shipped is not None
            admin.execute(
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bench_host')"
                " THEN CREATE ROLE bench_host NOLOGIN IN ROLE agent_state_runtime; END IF; END $$"
            )
            admin.execute(f"GRANT bench_host TO {RUNTIME_ROLE}")
            agent = admin.execute(
                "SELECT agent_state.create_agent('bench-caller-' || gen_random_uuid())"
            ).fetchone()
            assert agent is not None
            admin.execute("SELECT agent_state.grant_hosting(%s, 'bench_host')", [agent[0]])
            admin.execute("SELECT agent_state.revise_persona(%s, 'persona')", [agent[0]])
        bodies = {"0.2.0": CALLER_0_2_0, "0.3.0": str(shipped[0])}
        statements = {
            "active_persona": ("SELECT * FROM agent_state.active_persona(%s)", False),
            "resolve_actor": ("SELECT agent_state.resolve_actor(%s, 'bench', %s)", True),
        }
        times: dict[tuple[str, str], list[float]] = {}
        with (
            server.connect("bench_caller") as admin,
            server.connect("bench_caller", user=RUNTIME_ROLE) as conn,
        ):
            conn.execute("SET ROLE bench_host")
            n = 0
            for _ in range(rounds):
                for version, body in bodies.items():
                    admin.execute(body)
                    conn.execute("DISCARD PLANS")
                    for name, (query, fresh) in statements.items():
                        start = time.perf_counter()
                        for _ in range(calls):
                            n += 1
                            conn.execute(query, [agent[0], f"u{n}"] if fresh else [agent[0]])
                        times.setdefault((name, version), []).append(
                            (time.perf_counter() - start) / calls * 1e6
                        )
            admin.execute(bodies["0.3.0"])
            # How many _caller() calls a statement makes (track_functions, set for
            # new sessions only, so the timed rounds above ran without it).
            admin.execute("ALTER DATABASE bench_caller SET track_functions = 'all'")
        per_call = {}
        with (
            server.connect("bench_caller") as admin,
            server.connect("bench_caller", user=RUNTIME_ROLE) as conn,
        ):
            conn.execute("SET ROLE bench_host")
            for name, (query, fresh) in statements.items():
                admin.execute("SELECT pg_stat_reset()")
                for _ in range(10):
                    n += 1
                    conn.execute(query, [agent[0], f"c{n}"] if fresh else [agent[0]])
                conn.execute("SELECT pg_stat_force_next_flush()")
                conn.execute("SELECT 1")
                time.sleep(0.5)
                row = admin.execute(
                    "SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions"
                    " WHERE schemaname = 'agent_state' AND funcname = '_caller'"
                ).fetchone()
                per_call[name] = (int(row[0]) if row else 0) / 10
        log(f"{server.origin}; {calls} calls per round, {rounds} rounds, SET ROLE in effect")
        for name in statements:
            old = statistics.median(times[(name, "0.2.0")])
            new = statistics.median(times[(name, "0.3.0")])
            print(
                f"{name:15s} 0.2.0 {old:7.1f} us/call   0.3.0 {new:7.1f} us/call"
                f"   ratio 0.3.0/0.2.0 {new / old:5.2f}x   (+{new - old:5.1f} us)"
                f"   _caller() per call {per_call[name]:.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
