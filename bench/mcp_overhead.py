"""The MCP server's own overhead: ``remember`` and ``recall`` through ``agent-state mcp``
over stdio against the same work as direct ``Store`` calls, same run, same server.

    python3 bench/mcp_overhead.py              # 2,000 calls per operation and side
    python3 bench/mcp_overhead.py --quick      # 300

Two agents, each hosted by the runtime login role and filled the same way (the same
bodies, in the same order) before the timed rounds. One side is an ``agent-state mcp``
process (stdio, bound to the first agent and to the user ``bench:alice``), driven by
the official ``mcp`` SDK's ``ClientSession.call_tool`` from this process; the other
a ``Store`` on one connection of the same role (autocommit), in this process, doing
the SQL the server does for the tool:

- ``remember``: ``open_conversation`` (idempotent), ``record_message`` of the user's
  words (audience: the user) and ``remember`` with that message as evidence, in one
  transaction; half of the memories about the user;
- ``recall`` (two words, ``match => 'any'``, 10 results, for the session's
  conversation and the user): in a transaction, as the server does; beside it the
  plain autocommit call (one statement, what a library user writes).

Calls are interleaved in rounds (the side that goes first alternates) so that both
see the same machine and the same amount of data. Reported: p50 and p95 per call,
MCP / direct and MCP - direct (the protocol's cost is additive: the difference is
the figure to carry elsewhere). Then, from a short pass after the timed rounds,
figures that do not swing between runs: rows the call writes (every agent_state
table with a ``runtime_agent_id``), memories a recall returns, and the bytes of the
JSON-RPC request and response as the SDK serializes them; and WAL bytes per call
(``pg_current_wal_insert_lsn``: server-wide, so other sessions' writes count too).
No target: nothing here is asserted by a test.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import ROOT, RUNTIME_ROLE, Server, log, ms, percentile, table, timed

DATABASE = "bench_mcp"
USER = ("bench", "alice")
VOCABULARY = [f"word{k}" for k in range(1000)]
SIDES = ("MCP", "direct")
REMEMBER, RECALL, RECALL_PLAIN = "remember", "recall", "recall (one autocommit call)"
COUNT_CALLS = 50

Op = Callable[[int], Awaitable[int]]


# ------------------------------------------------------------------ the workload


def memory(i: int) -> tuple[str, str, bool]:
    """The i-th memory: its body, the user's words it rests on, whether it is about the
    user. The same on both sides."""
    rng = random.Random(i)
    words = " ".join(rng.choice(VOCABULARY) for _ in range(10))
    body = f"Memory {i}: the user mentioned {words}."
    return body, f"Please remember this, note {i}: {words}", i % 2 == 1


def query(i: int) -> str:
    rng = random.Random(1_000_000 + i)
    return f"{rng.choice(VOCABULARY)} {rng.choice(VOCABULARY)}"


def words_ref(user: UUID, words: str) -> str:
    """The external_ref the server gives the user's words (a digest of author and words)."""
    h = hashlib.sha256()
    for part in (str(user), words):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return f"mcp-words:{h.hexdigest()}"


# ------------------------------------------------------------------ JSON-RPC bytes


class Meter:
    """Bytes of the JSON-RPC messages (one line each, as the SDK writes them) that pass
    the client session's streams while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.sent = 0
        self.received = 0

    @staticmethod
    def size(item: object) -> int:
        message = getattr(item, "message", None)
        if message is None:
            return 0
        return len(message.model_dump_json(by_alias=True, exclude_unset=True).encode()) + 1


class Metered:
    """A stream of the client session that counts what passes it on its meter."""

    def __init__(self, stream: Any, meter: Meter) -> None:
        self._stream = stream
        self._meter = meter

    async def send(self, item: Any, /) -> None:
        if self._meter.on:
            self._meter.sent += Meter.size(item)
        await self._stream.send(item)

    async def receive(self) -> Any:
        item = await self._stream.receive()
        if self._meter.on:
            self._meter.received += Meter.size(item)
        return item

    def __aiter__(self) -> Metered:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Metered:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


# ------------------------------------------------------------------ the two sides


def mcp_ops(session: Any) -> dict[str, Op]:
    """The MCP side: one ``call_tool`` per operation; returns the memories found."""

    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await session.call_tool(tool, arguments)
        if result.is_error:
            text = " ".join(getattr(c, "text", "") for c in result.content)
            raise RuntimeError(f"{tool}: {text}")
        data: dict[str, Any] = result.structured_content
        return data

    async def remember(i: int) -> int:
        body, words, about = memory(i)
        await call("remember", {"body": body, "user_message": words, "about_user": about})
        return 0

    async def recall(i: int) -> int:
        found = await call("recall", {"query": query(i), "match": "any", "max_results": 10})
        return len(found["memories"])

    return {REMEMBER: remember, RECALL: recall}


def direct_ops(store: Any, agent: UUID, user: UUID) -> dict[str, Op]:
    """The direct side: the server's stored-function calls through ``Store``."""
    ref = f"stdio:{uuid4().hex}"
    conversation = store.open_conversation(
        agent=agent, connector="mcp", external_ref=ref, kind="direct"
    )

    async def remember(i: int) -> int:
        body, words, about = memory(i)
        with store.transaction():
            conv = store.open_conversation(
                agent=agent, connector="mcp", external_ref=ref, kind="direct"
            )
            message = store.record_message(
                agent=agent,
                conversation=conv,
                author=user,
                body=words,
                audience=[user],
                external_ref=words_ref(user, words),
            )
            store.remember(
                agent=agent,
                body=body,
                source_message=message,
                subject=user if about else None,
                visibility="perspective",
            )
        return 0

    def hits(i: int) -> int:
        return len(
            store.recall(
                agent=agent,
                query=query(i),
                conversation=conversation,
                current_subject=user,
                max_results=10,
                match="any",
            )
        )

    async def recall(i: int) -> int:
        with store.transaction():
            return hits(i)

    async def recall_plain(i: int) -> int:
        return hits(i)

    return {REMEMBER: remember, RECALL: recall, RECALL_PLAIN: recall_plain}


# ------------------------------------------------------------------ measuring


def server_cpu() -> float:
    """CPU seconds (user + system) of this process's children, i.e. the MCP server, from
    /proc (clock-tick resolution); NaN where there is no /proc."""
    pid = os.getpid()
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        ticks = 0
        for child in children:
            fields = Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, ValueError, IndexError):
        return float("nan")
    return ticks / os.sysconf("SC_CLK_TCK")


async def measure(op: Op, lo: int, hi: int, out: list[float], cpu: list[float]) -> None:
    """Run calls lo..hi-1, each timed into ``out``; adds the CPU seconds of this process
    and of the server process over the batch to ``cpu`` (two sums)."""
    client, server = time.process_time(), server_cpu()
    for i in range(lo, hi):
        t = time.perf_counter()
        await op(i)
        out.append(time.perf_counter() - t)
    cpu[0] += time.process_time() - client
    cpu[1] += server_cpu() - server


def agent_rows(conn: psycopg.Connection[Any], agent: UUID) -> int:
    """Rows of the agent in every agent_state table that has a runtime_agent_id."""
    tables = conn.execute(
        "SELECT c.oid::regclass::text FROM pg_class AS c "
        "JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attname = 'runtime_agent_id' "
        "WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind IN ('r', 'p') "
        "AND NOT a.attisdropped ORDER BY 1"
    ).fetchall()
    union = " + ".join(
        f"(SELECT count(*) FROM {t} WHERE runtime_agent_id = %(a)s)" for (t,) in tables
    )
    row = conn.execute(f"SELECT {union}", {"a": agent}).fetchone()
    assert row is not None
    return int(row[0])


def wal_lsn(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
    assert row is not None
    return int(row[0])


async def counts(
    ops: dict[str, dict[str, Op]],
    agents: dict[str, UUID],
    admin: psycopg.Connection[Any],
    meter: Meter,
    start: int,
) -> dict[str, dict[str, dict[str, float]]]:
    """Per side and operation, over COUNT_CALLS calls: rows written, memories found,
    WAL bytes (server-wide) and, for MCP, JSON-RPC bytes sent and received."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for side in SIDES:
        for name, op in ops[side].items():
            rows0, lsn0 = agent_rows(admin, agents[side]), wal_lsn(admin)
            meter.sent = meter.received = 0
            meter.on = side == "MCP"
            found = 0
            for i in range(start, start + COUNT_CALLS):
                found += await op(i)
            meter.on = False
            lsn1, rows1 = wal_lsn(admin), agent_rows(admin, agents[side])
            got = {
                "rows written": (rows1 - rows0) / COUNT_CALLS,
                "memories found": found / COUNT_CALLS,
                "WAL bytes (server-wide)": (lsn1 - lsn0) / COUNT_CALLS,
            }
            if side == "MCP":
                got["request bytes"] = meter.sent / COUNT_CALLS
                got["response bytes"] = meter.received / COUNT_CALLS
            out.setdefault(side, {})[name] = got
    return out


def prepare(server: Server) -> tuple[str, dict[str, UUID], dict[str, UUID]]:
    """The product database with two agents hosted by the runtime login role; the role's
    DSN, the agents and their users (``bench:alice``) per side."""
    server.product_database(DATABASE)
    agents, users = {}, {}
    with server.connect(DATABASE) as conn:
        for side in SIDES:
            row = conn.execute(
                "SELECT agent_state.create_agent(%s)", [f"bench-mcp-{side.lower()}"]
            ).fetchone()
            assert row is not None
            agents[side] = row[0]
            conn.execute(
                "SELECT agent_state.grant_hosting(%s, %s::regrole)", [row[0], RUNTIME_ROLE]
            )
            user = conn.execute(
                "SELECT agent_state.resolve_actor(%s, %s, %s)", [row[0], *USER]
            ).fetchone()
            assert user is not None
            users[side] = user[0]
    return server.dsn(DATABASE, RUNTIME_ROLE), agents, users


async def bench(server: Server, calls: int, rounds: int, fill: int) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    from agent_state import Store

    dsn, agents, users = prepare(server)
    env = {k: v for k, v in os.environ.items() if k not in ("AGENT_STATE_DSN", "DATABASE_URL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_state", "mcp", "--dsn", dsn, "--agent", str(agents["MCP"]),
              "--user", ":".join(USER)],
        env=env,
    )  # fmt: skip
    meter = Meter()
    lat: dict[str, dict[str, list[float]]] = {side: {} for side in SIDES}
    cpu: dict[str, dict[str, list[float]]] = {side: {} for side in SIDES}
    store = Store(dsn)
    admin = server.connect(DATABASE)
    try:
        started = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(
            Metered(read, meter), Metered(write, meter)
        ) as session:  # fmt: skip
            await session.initialize()
            log(f"server started and initialized in {time.perf_counter() - started:.2f} s")
            ops = {"MCP": mcp_ops(session), "direct": direct_ops(store, agents["direct"],
                                                                  users["direct"])}  # fmt: skip
            with timed(f"setup: {fill} memories per agent, {fill} recalls (warm-up)"):
                for side in SIDES:
                    for i in range(fill):
                        await ops[side][REMEMBER](i)
                    for name in ops[side]:
                        if name != REMEMBER:
                            for i in range(fill):
                                await ops[side][name](i)
            per_round = calls // rounds
            with timed(f"{calls} calls per operation and side, {rounds} interleaved rounds"):
                for r in range(rounds):
                    order = SIDES if r % 2 == 0 else SIDES[::-1]
                    lo, hi = fill + r * per_round, fill + (r + 1) * per_round
                    for name in (REMEMBER, RECALL, RECALL_PLAIN):
                        for side in order:
                            if name in ops[side]:
                                out = lat[side].setdefault(name, [])
                                sums = cpu[side].setdefault(name, [0.0, 0.0])
                                await measure(ops[side][name], lo, hi, out, sums)
            with timed(f"counting pass: {COUNT_CALLS} calls per operation and side"):
                counted = await counts(ops, agents, admin, meter, fill + rounds * per_round)
    finally:
        store.close()
        admin.close()
    return {"latencies": lat, "counts": counted, "cpu": cpu}


def main() -> int:
    global DATABASE
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="300 calls per operation")
    ap.add_argument("--calls", type=int, help="calls per operation and side (2000; quick 300)")
    ap.add_argument("--rounds", type=int, default=4, help="interleaved rounds (4)")
    ap.add_argument("--fill", type=int, default=500, help="memories per agent before timing (500)")
    ap.add_argument("--out", help="also write the results as JSON to this file")
    ap.add_argument(
        "--database", default=DATABASE, help=f"database to create and drop ({DATABASE})"
    )
    args = ap.parse_args()
    DATABASE = args.database
    calls = args.calls or (300 if args.quick else 2000)
    try:
        import mcp  # noqa: F401
    except ImportError:
        log("mcp is not installed (pip install -e '.[mcp]'): skipped")
        return 0
    with Server() as server:
        try:
            got = asyncio.run(bench(server, calls, args.rounds, args.fill))
            describe = server.describe()
        finally:
            server.drop_database(DATABASE)
    lat, counted, cpu = got["latencies"], got["counts"], got["cpu"]
    rows, results = [], {}
    for name in (REMEMBER, RECALL, RECALL_PLAIN):
        d = lat["direct"][name]
        m = lat["MCP"][REMEMBER if name == REMEMBER else RECALL]
        mp50, mp95 = percentile(m, 50), percentile(m, 95)
        dp50, dp95 = percentile(d, 50), percentile(d, 95)
        results[name] = {"mcp_p50": mp50, "mcp_p95": mp95, "direct_p50": dp50,
                         "direct_p95": dp95}  # fmt: skip
        rows.append(
            [name, ms(mp50), ms(mp95), ms(dp50), ms(dp95), f"{mp50 / dp50:.2f}x",
             f"{mp95 / dp95:.2f}x", ms(mp50 - dp50), ms(mp95 - dp95)]
        )  # fmt: skip
    print("## remember and recall through the MCP server (stdio) against direct Store calls\n")
    print(
        f"Machine: {describe.get('cpu')}, {describe.get('cores')} cores; {describe.get('server')}"
    )
    settings = ", ".join(f"{k} = {describe.get(k)}" for k in ("fsync", "synchronous_commit"))
    print(f"{describe.get('database')}: {settings}")
    print(
        f"{calls} calls per operation and side, {args.rounds} interleaved rounds, "
        f"{args.fill} memories per agent before them\n"
    )
    print(
        table(
            ["operation (direct side)", "MCP p50 ms", "MCP p95 ms", "direct p50 ms",
             "direct p95 ms", "MCP / direct p50", "MCP / direct p95", "MCP - direct p50 ms",
             "MCP - direct p95 ms"],
            rows,
        )
    )  # fmt: skip
    print(
        f"\nPer call: rows, memories, bytes and WAL over {COUNT_CALLS} calls after the timed "
        "rounds; CPU (this process: the client or the Store; the server process) over the "
        "timed rounds:\n"
    )
    keys = ["rows written", "memories found", "request bytes", "response bytes",
            "WAL bytes (server-wide)"]  # fmt: skip
    count_rows = []
    for side in SIDES:
        for name, got_counts in counted[side].items():
            client, server = (c / len(lat[side][name]) for c in cpu[side][name])
            got_counts["CPU ms, this process"] = client * 1000
            if side == "MCP":
                got_counts["CPU ms, server process"] = server * 1000
            count_rows.append(
                [side, name]
                + [f"{got_counts[k]:.1f}" if k in got_counts else "" for k in keys]
                + [f"{client * 1000:.2f}", f"{server * 1000:.2f}" if side == "MCP" else ""]
            )
    cpu_keys = ["CPU ms, this process", "CPU ms, server process"]
    print(table(["side", "operation", *keys, *cpu_keys], count_rows))
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {"describe": describe, "results": results, "counts": counted,
                 "latencies": lat}, indent=2
            )
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
