"""AgentStateSession against the OpenAI Agents SDK's own sessions, same run:
``SQLiteSession`` (a file, the SDK's default backend) and ``SQLAlchemySession`` on
the same PostgreSQL server (psycopg's async driver).

    python3 bench/session.py              # 2,000 calls per operation
    python3 bench/session.py --quick      # 300

One asyncio client per backend, calls interleaved in rounds (the order of the
backends rotates between rounds) so that all see the same machine. Ours runs as a
runtime login role hosting the agent, on one ``AsyncStore`` connection in
autocommit; the SQLAlchemy peer as the database owner (it has no roles), in a
database of its own, through its engine's pool (one connection in use), with its
tables created by ``create_tables=True`` during the setup. Operations, each on
sessions filled during the setup:

- ``add_items`` of one turn (4 items, about 1 kB of JSON: the user's message, a
  function call, its output, the answer) to one of 20 sessions in turn;
- ``add_items`` of one item (a user message);
- ``get_items()`` of a session of 100 items (all of them);
- ``get_items(10)`` of a session of 1,000 items (the newest 10).

What the three do per call. SQLiteSession: one sqlite3 transaction in a worker
thread (WAL journal, the sqlite3 module's default synchronous mode: FULL), on
the client's disk, no server round trip. SQLAlchemySession: a transaction with
``SELECT ... FOR UPDATE`` of the session row (or an insert of it), the insert of
the items and an update of the session's ``updated_at`` (about 5 round trips). Ours:
one stored-function call (``session_add_items``: perspective check, session lock,
numbering, insert; ``session_get_items``: the items without a retraction).

Reported: calls/s and p50 latency per backend and operation, ratios of ours to
each peer (above 1: ours is faster), and, after the run, rows and bytes per item
each backend stores (tables with their indexes and TOAST; SQLite's file). No
target: nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import RUNTIME_ROLE, Server, log, ms, percentile, table, timed

DATABASE = "bench_session"
TURN_SESSIONS = 20
SHORT, LONG = 100, 1000
LABELS = ("SQLiteSession", "SQLAlchemySession", "AgentStateSession")

Op = Callable[[int], Awaitable[Any]]


def turn(i: int) -> list[dict[str, Any]]:
    """One turn's items, about 1 kB of JSON."""
    call = f"call_{i}_{uuid4().hex[:8]}"
    return [
        {"role": "user", "content": f"Turn {i}: what is the weather in Zürich, and should I "
         "take an umbrella to the lake this afternoon? " * 2},
        {"type": "function_call", "id": f"fc_{i}", "call_id": call, "name": "get_weather",
         "arguments": json.dumps({"city": "Zürich", "day": "today", "units": "metric"}),
         "status": "completed"},
        {"type": "function_call_output", "call_id": call,
         "output": json.dumps({"forecast": [{"hour": h, "sky": "sunny", "temp_c": 20 + h % 5,
                                             "rain_mm": 0.0} for h in range(12, 18)]})},
        {"id": f"msg_{i}", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "annotations": [],
                      "text": "Sunny all afternoon, 20 to 24 °C: no umbrella needed."}]},
    ]  # fmt: skip


def message(i: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"message {i}: thanks, and what about tomorrow?"}]


async def fill(session: Any, items: int) -> None:
    for i in range(items // 4):
        await session.add_items(turn(i))


async def operations(make: Callable[[str], Any]) -> dict[str, Op]:
    """The timed operations on one backend's sessions (made by ``make(session_id)``),
    filled first."""
    run = uuid4().hex[:8]
    turns = [make(f"turns-{run}-{k}") for k in range(TURN_SESSIONS)]
    single = make(f"single-{run}")
    short, long = make(f"short-{run}"), make(f"long-{run}")
    await fill(short, SHORT)
    await fill(long, LONG)
    assert len(await short.get_items()) == SHORT and len(await long.get_items()) == LONG

    async def add_turn(i: int) -> None:
        await turns[i % TURN_SESSIONS].add_items(turn(i))

    async def add_one(i: int) -> None:
        await single.add_items(message(i))

    async def get_all(i: int) -> None:
        assert len(await short.get_items()) == SHORT

    async def get_newest(i: int) -> None:
        assert len(await long.get_items(10)) == 10

    return {
        "add_items (1 turn, 4 items)": add_turn,
        "add_items (1 item)": add_one,
        f"get_items() of {SHORT}": get_all,
        f"get_items(10) of {LONG}": get_newest,
    }


async def measure(ops: dict[str, Op], lo: int, hi: int, out: dict[str, list[float]]) -> None:
    for name, op in ops.items():
        lat = out.setdefault(name, [])
        for i in range(lo, hi):
            t = time.perf_counter()
            await op(i)
            lat.append(time.perf_counter() - t)


def prepare_ours(server: Server) -> tuple[str, str]:
    """The product database, an agent the runtime login role hosts; its DSN and id."""
    server.product_database(DATABASE)
    with psycopg.connect(server.dsn(DATABASE), autocommit=True) as conn:
        row = conn.execute("SELECT agent_state.create_agent('bench-session')").fetchone()
        assert row is not None
        conn.execute("SELECT agent_state.grant_hosting(%s, %s::regrole)", [row[0], RUNTIME_ROLE])
    return server.dsn(DATABASE, RUNTIME_ROLE), str(row[0])


def storage(server: Server, sqlite_file: Path) -> dict[str, tuple[int, int]]:
    """Rows and bytes (tables, indexes, TOAST) each backend holds after the run."""
    out: dict[str, tuple[int, int]] = {}
    size = (
        "SELECT (SELECT count(*) FROM {t}), "
        "(SELECT sum(pg_total_relation_size(c)) FROM unnest(%s::regclass[]) AS c)::bigint"
    )
    with psycopg.connect(server.dsn(DATABASE), autocommit=True) as conn:
        ours = ["agent_state.session_items", "agent_state.session_retractions"]
        row = conn.execute(size.format(t=ours[0]), [ours]).fetchone()
        assert row is not None
        out["AgentStateSession"] = (int(row[0]), int(row[1]))
    with psycopg.connect(server.dsn(f"{DATABASE}_peer"), autocommit=True) as conn:
        peer = ["public.agent_messages", "public.agent_sessions"]
        row = conn.execute(size.format(t=peer[0]), [peer]).fetchone()
        assert row is not None
        out["SQLAlchemySession"] = (int(row[0]), int(row[1]))
    import sqlite3

    with sqlite3.connect(sqlite_file) as lite:
        lite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (rows,) = lite.execute("SELECT count(*) FROM agent_messages").fetchone()
    out["SQLiteSession"] = (int(rows), sqlite_file.stat().st_size)
    return out


async def bench(server: Server, calls: int, rounds: int, workdir: Path) -> dict[str, Any]:
    from agents import SQLiteSession
    from agents.extensions.memory import SQLAlchemySession
    from sqlalchemy.ext.asyncio import create_async_engine

    from agent_state import AsyncStore
    from agent_state.integrations.openai_agents import AgentStateSession

    ours_dsn, agent = prepare_ours(server)
    peer_dsn = server.fresh_database(f"{DATABASE}_peer")

    async def connect_peer() -> Any:
        return await psycopg.AsyncConnection.connect(peer_dsn)

    engine = create_async_engine("postgresql+psycopg://", async_creator=connect_peer)
    sqlite_file = workdir / "sessions.db"
    store = AsyncStore(ours_dsn)
    opened: list[Any] = []

    def make_sqlite(sid: str) -> Any:
        opened.append(SQLiteSession(sid, db_path=sqlite_file))
        return opened[-1]

    makers: dict[str, Callable[[str], Any]] = {
        "SQLiteSession": make_sqlite,
        "SQLAlchemySession": lambda sid: SQLAlchemySession(sid, engine=engine, create_tables=True),
        "AgentStateSession": lambda sid: AgentStateSession(sid, agent=agent, store=store),
    }
    lat: dict[str, dict[str, list[float]]] = {label: {} for label in LABELS}
    try:
        with timed(f"setup: sessions of {SHORT} and {LONG} items, each backend"):
            ops = {label: await operations(makers[label]) for label in LABELS}
        per_round = calls // rounds
        with timed(f"{calls} calls per operation, {rounds} interleaved rounds"):
            for r in range(rounds):
                order = LABELS[r % 3 :] + LABELS[: r % 3]
                for label in order:
                    await measure(ops[label], r * per_round, (r + 1) * per_round, lat[label])
    finally:
        await store.close()
        await engine.dispose()
        for s in opened:
            s.close()
    return {"latencies": lat, "storage": storage(server, sqlite_file)}


def main() -> int:
    global DATABASE
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="300 calls per operation")
    ap.add_argument("--calls", type=int, help="calls per operation (2000; quick 300)")
    ap.add_argument("--rounds", type=int, default=4, help="interleaved rounds (4)")
    ap.add_argument("--out", help="also write the results as JSON to this file")
    ap.add_argument(
        "--database", default=DATABASE, help=f"database to create and drop ({DATABASE}; "
        "the peer's: the same with _peer)"
    )  # fmt: skip
    args = ap.parse_args()
    DATABASE = args.database
    calls = args.calls or (300 if args.quick else 2000)
    try:
        import agents  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as e:
        log(f"{e.name} is not installed (pip install -e '.[bench]'): skipped")
        return 0
    with Server() as server, tempfile.TemporaryDirectory() as workdir:
        got = asyncio.run(bench(server, calls, args.rounds, Path(workdir)))
        describe = server.describe()
        server.drop_database(DATABASE)
        server.drop_database(f"{DATABASE}_peer")
    lat = got["latencies"]
    rows, results = [], {}
    for name in lat["AgentStateSession"]:
        rate = {label: len(lat[label][name]) / sum(lat[label][name]) for label in LABELS}
        ours = rate["AgentStateSession"]
        results[name] = {**rate, "ours/sqlite": ours / rate["SQLiteSession"],
                         "ours/sqlalchemy": ours / rate["SQLAlchemySession"]}  # fmt: skip
        row: list[object] = [name]
        for label in LABELS:
            row += [f"{rate[label]:.0f}", ms(percentile(lat[label][name], 50))]
        row += [f"{ours / rate['SQLiteSession']:.2f}x", f"{ours / rate['SQLAlchemySession']:.2f}x"]
        rows.append(row)
    print("## AgentStateSession against the Agents SDK's sessions\n")
    print(
        f"Machine: {describe.get('cpu')}, {describe.get('cores')} cores; {describe.get('server')}"
    )
    settings = ", ".join(f"{k} = {describe.get(k)}" for k in ("fsync", "synchronous_commit"))
    print(f"{describe.get('database')}: {settings}; SQLite in a temporary directory")
    print(f"{calls} calls per operation, {args.rounds} interleaved rounds, one client each\n")
    headers = ["operation"]
    for label in LABELS:
        headers += [f"{label} calls/s", "p50 ms"]
    print(table([*headers, "ours / SQLite", "ours / SQLAlchemy"], rows))
    print()
    stored = got["storage"]
    print(
        table(
            ["backend", "items stored", "bytes", "bytes per item"],
            [
                [label, f"{n:,}", f"{b:,}", f"{b / max(n, 1):.0f}"]
                for label, (n, b) in stored.items()
            ],
        )
    )
    results["storage"] = stored
    if args.out:
        Path(args.out).write_text(json.dumps({"describe": describe, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
