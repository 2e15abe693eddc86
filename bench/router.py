"""The PL/Proxy router (SPEC section 15): routed calls against the same calls made
directly on the shard, and moving a big agent.

    python3 bench/router.py                    # 100,000 memories to move
    python3 bench/router.py --quick            # a smoke run: 5,000 memories, fewer calls
    python3 bench/router.py --memories 20000   # another size

A router database and two shards (agent_state installed as plain SQL) in one server
(AGENT_STATE_BENCH_DSN or a throwaway cluster; the server needs the plproxy
extension). One client, one agent, calls as the operator role:

* per call, ``remember``, ``recall`` (an agent with 2,000 memories, a two-word
  query) and a turn (``record_turn``), in alternating blocks routed / direct so that
  both see the same machine; the median and p90 of each, and the overhead (routed
  median minus direct median; SPEC: at most 0.3 ms);
* an agent with ``--memories`` memories (``remember_many`` directly on a shard):
  ``export_agent`` and ``import_agent`` (into a third database) timed, the
  document's size, then ``move_agent`` through the router while one writer keeps
  writing ``note`` for that agent through the router (the wrapper, which retries
  55006): the move's time, the longest gap between two acknowledged writes (the
  write stall) and whether every acknowledged write is on the target.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import threading
import time
from typing import Any

from common import Server, install_bundle, log, ms, table
from psycopg import conninfo

import agent_state
from agent_state import router as router_mod


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _shard_dsn(server: Server, db: str) -> str:
    params = {k: v for k, v in server.base.items() if k not in ("user", "password", "dbname") and v}
    return conninfo.make_conninfo(**params, dbname=db)


def setup(server: Server) -> dict[str, str]:
    dsns = {}
    for db in ("bench_shard_a", "bench_shard_b", "bench_import"):
        dsns[db] = server.fresh_database(db)
        install_bundle(dsns[db])
    dsns["router"] = server.fresh_database("bench_router")
    with server.connect("bench_router") as conn:
        router_mod.install(conn)
        router_mod.add_shards(
            conn,
            {"a": _shard_dsn(server, "bench_shard_a"), "b": _shard_dsn(server, "bench_shard_b")},
        )
    return dsns


def per_call(dsns: dict[str, str], calls: int) -> list[list[object]]:
    routed = agent_state.connect(dsns["router"])
    agent = routed.create_agent(handle=f"bench-calls-{time.time_ns()}")
    shard = next(
        s
        for s in ("a", "b")
        if str(agent)
        in {str(a.agent) for a in agent_state.connect(dsns[f"bench_shard_{s}"]).list_agents()}
    )
    direct = agent_state.connect(dsns[f"bench_shard_{shard}"])
    actor = direct.resolve_actor(agent=agent, connector="bench", external_id="u1")
    conv = direct.open_conversation(agent=agent, connector="bench", external_ref="c1")
    msg = direct.record_message(
        agent=agent, conversation=conv, author=actor, body="hello", audience=[actor]
    )
    words = ["tea", "coffee", "refund", "invoice", "mail", "report", "flight", "hotel"]
    for i in range(0, 2000, 500):
        direct.remember_many(
            agent=agent,
            memories=[
                {
                    "body": f"memory {j} about {words[j % 8]} and {words[(j * 3) % 8]}",
                    "source_message": str(msg),
                }
                for j in range(i, i + 500)
            ],
        )
    run = direct.start_run(agent=agent, conversation=conv)
    ops: dict[str, Any] = {
        "remember": lambda s: s.remember(
            agent=agent, body="the customer prefers tea", source_message=msg
        ),
        "recall": lambda s: s.recall(agent=agent, query="tea refund", match="any"),
        "turn (record_turn)": lambda s: s.record_turn(
            agent=agent,
            run=run,
            prompt="p",
            provider="x",
            model="m",
            request={"q": 1},
            usage={"tokens": 1},
            frontier={"step": 1},
        ),
    }
    rows: list[list[object]] = []
    for name, op in ops.items():
        times: dict[str, list[float]] = {"routed": [], "direct": []}
        for s in (routed, direct):  # warm up: prepared statements, caches
            for _ in range(20):
                op(s)
        block = 25
        for _ in range(max(1, calls // block)):
            for label, s in (("routed", routed), ("direct", direct)):
                for _ in range(block):
                    t = time.perf_counter()
                    op(s)
                    times[label].append(time.perf_counter() - t)
        r, d = statistics.median(times["routed"]), statistics.median(times["direct"])
        rows.append(
            [
                name,
                ms(d),
                ms(r),
                f"{(r - d) * 1000:.3f} ms",
                ms(_percentile(times["direct"], 0.9)),
                ms(_percentile(times["routed"], 0.9)),
                len(times["routed"]),
            ]
        )
        log(f"{name}: direct {ms(d)}, routed {ms(r)}")
    return rows


def big_agent(dsns: dict[str, str], memories: int) -> list[list[object]]:
    routed = agent_state.connect(dsns["router"])
    agent = routed.create_agent(handle=f"bench-big-{time.time_ns()}")
    directory = {str(a.agent) for a in agent_state.connect(dsns["bench_shard_a"]).list_agents()}
    src = "a" if str(agent) in directory else "b"
    dst = "b" if src == "a" else "a"
    direct = agent_state.connect(dsns[f"bench_shard_{src}"])
    actor = direct.resolve_actor(agent=agent, connector="bench", external_id="u1")
    conv = direct.open_conversation(agent=agent, connector="bench", external_ref="c1")
    msg = direct.record_message(
        agent=agent, conversation=conv, author=actor, body="hello", audience=[actor]
    )
    t = time.perf_counter()
    for i in range(0, memories, 1000):
        direct.remember_many(
            agent=agent,
            memories=[
                {"body": f"fact number {j} of the big agent", "source_message": str(msg)}
                for j in range(i, min(memories, i + 1000))
            ],
        )
    log(f"loaded {memories} memories in {time.perf_counter() - t:.1f} s")
    rows: list[list[object]] = []
    with agent_state.connect(dsns[f"bench_shard_{src}"]).connection as c:  # type: ignore[union-attr]
        t = time.perf_counter()
        size, doc = c.execute(
            "SELECT pg_column_size(d), d::text FROM agent_state.export_agent(%s) AS d", (agent,)
        ).fetchone()  # type: ignore[misc]
        rows.append(
            [
                "export_agent",
                f"{time.perf_counter() - t:.2f} s",
                f"document {len(doc) / 1e6:.1f} MB as text, {size / 1e6:.1f} MB as jsonb",
            ]
        )
    with agent_state.connect(dsns["bench_import"]).connection as c:  # type: ignore[union-attr]
        t = time.perf_counter()
        c.execute("SELECT agent_state.import_agent(%s::jsonb)", (doc,))
        rows.append(["import_agent", f"{time.perf_counter() - t:.2f} s", "into an empty database"])
    del doc
    acked: list[str] = []
    stamps: list[float] = []
    stop = threading.Event()

    def writer() -> None:
        with agent_state.connect(dsns["router"]) as s:
            i = 0
            while not stop.is_set():
                body = f"written during the move {i}"
                s.note(agent=agent, body=body)
                acked.append(body)
                stamps.append(time.perf_counter())
                i += 1

    w = threading.Thread(target=writer)
    w.start()
    time.sleep(1.0)
    with psycopg_connect(dsns["router"]) as conn:
        t = time.perf_counter()
        result = router_mod.move(conn, str(agent), dst)
        took = time.perf_counter() - t
    time.sleep(1.0)
    stop.set()
    w.join()
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    target = agent_state.connect(dsns[f"bench_shard_{dst}"])
    on_target = set()
    for m in target.list_memories(agent=agent, max_results=10000):
        on_target.add(m.body)
    lost = [b for b in acked if b not in on_target]
    rows.append(
        [
            "move_agent",
            f"{took:.2f} s",
            f"{result['rows']} rows; longest write stall {max(gaps) * 1000:.0f} ms; "
            f"{len(acked)} writes acknowledged during the run, {len(lost)} missing on the target",
        ]
    )
    return rows


def psycopg_connect(dsn: str) -> Any:
    import psycopg

    return psycopg.connect(dsn, autocommit=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--memories", type=int, default=None)
    ap.add_argument("--calls", type=int, default=None)
    args = ap.parse_args()
    memories = args.memories or (5000 if args.quick else 100_000)
    calls = args.calls or (200 if args.quick else 1000)
    with Server() as server:
        with server.connect() as conn:
            if (
                conn.execute(
                    "SELECT 1 FROM pg_available_extensions WHERE name = 'plproxy'"
                ).fetchone()
                is None
            ):
                log("this server has no plproxy extension (postgresql-NN-plproxy)")
                return 1
        dsns = setup(server)
        print("## Routed against direct, per call (one client, median)\n")
        print(
            table(
                ["call", "direct", "routed", "overhead", "direct p90", "routed p90", "calls"],
                per_call(dsns, calls),
            )
        )
        print(f"\n## An agent with {memories:,} memories\n")
        print(table(["step", "time", "notes"], big_agent(dsns, memories)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
