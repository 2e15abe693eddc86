"""The LangGraph adapters against LangGraph's own Postgres backends, same server,
same run: ``AgentStateSaver`` against ``PostgresSaver`` (langgraph-checkpoint-
postgres) and ``AgentStateStore`` against ``PostgresStore``.

    python3 bench/langgraph_peer.py            # 2,000 calls per operation
    python3 bench/langgraph_peer.py --quick    # 300
    python3 bench/langgraph_peer.py --clients 1   # one client only

One Python client each (psycopg, autocommit, the way LangGraph drives a
checkpointer), each backend in a database of its own, calls interleaved in
rounds so that both see the same machine. Then the same operations from
``--clients`` (8) client processes at once, each with its own connection,
thread and namespace (ours all bound to the same agent), for throughput. Ours
runs as a runtime role hosting the agent; the peer as the database owner (it
has no roles). Operations:

- checkpointer ``put`` (a checkpoint whose channel value is the turn
  benchmark's 2 kB frontier, a new version of that channel each time, parent
  set), ``put_writes`` (two writes), ``get_tuple`` (the latest of a thread with
  1,000 checkpoints), ``list`` (limit 10 of that thread);
- store ``put`` of a new key, ``put`` of an existing key, ``get``, and
  ``search`` (namespace prefix, limit 10, a two-word query). What search
  compares: ours ranks the full-text matches of the query among the
  namespace's items; the peer is a ``PostgresStore(index=...)`` with the same
  wordllama embeddings (256 dimensions, pgvector, its HNSW index) ranking the
  namespace's items by meaning, so that both rank by the query (without an
  index the peer ignores the query). Without wordllama or pgvector the peer's
  search runs without an index, and the report says so.

Targets (issue 26): reads (``get_tuple``, ``list``, store ``get``) >= 1.0x
the peer's throughput at 8 clients and >= 0.8x at 1; writes (``put``,
``put_writes``, store ``put``) >= 0.8x at 8 clients and >= 0.6x at 1; storage
per store item <= 3x the peer's (without an index; with its vector index
reported beside it); search: no target. Results are throughput ratios
(calls/s), p50 latencies and bytes per item; nothing here is asserted by a
test.

``--ladder`` then measures what each guarantee costs per call on our side:
the same operations once more, one client, with ``track_functions`` on, and
the time spent in each internal function that keeps a guarantee (binding,
the hash chains on write and the refusal on read, the thread and run
bookkeeping, the memory entry's revision and provenance).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg
from common import RUNTIME_ROLE, Server, log, ms, percentile, table, timed, verdict
from psycopg.rows import dict_row
from turn import frontier

#: Issue 26's targets: (1 client, several clients).
READ_TARGET = (0.8, 1.0)
WRITE_TARGET = (0.6, 0.8)
STORAGE_TARGET = 3.0
READS = ("get_tuple", "list", "store get")
WRITES = ("put", "put_writes", "store put")
#: The wordllama model the peer's vector index embeds with (as bench/quality.py).
EMBED_DIMS = 256


def checkpoint(step: int) -> dict[str, Any]:
    from langgraph.checkpoint.base import empty_checkpoint

    c = empty_checkpoint()
    c["channel_values"] = {"frontier": frontier(step)}
    c["channel_versions"] = {"frontier": step}
    return dict(c)


def saver_ops(saver: Any) -> dict[str, Callable[[int], Any]]:
    """The timed checkpointer operations of one backend, each a callable of the
    iteration number; the thread read by get_tuple and list is filled first."""
    thread = f"bench-{uuid4()}"
    config: dict[str, Any] = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    for step in range(1000):
        config = saver.put(config, checkpoint(step), {"source": "loop", "step": step}, {})
    latest = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    put_thread = f"bench-put-{uuid4()}"
    state: dict[str, Any] = {
        "config": {"configurable": {"thread_id": put_thread, "checkpoint_ns": ""}}
    }

    def put(i: int) -> None:
        state["config"] = saver.put(
            state["config"], checkpoint(i), {"source": "loop", "step": i}, {"frontier": i}
        )

    # put_writes goes to a checkpoint of its own, so that the writes it piles up
    # do not become pending writes of the checkpoint get_tuple and list read.
    writes_config = saver.put(
        {"configurable": {"thread_id": f"bench-writes-{uuid4()}", "checkpoint_ns": ""}},
        checkpoint(0),
        {"source": "loop", "step": 0},
        {},
    )

    def put_writes(i: int) -> None:
        saver.put_writes(
            writes_config, [("frontier", {"n": i}), ("messages", ["hello", i])], f"task-{i}"
        )

    return {
        "put": put,
        "put_writes": put_writes,
        "get_tuple (latest of 1,000)": lambda i: saver.get_tuple(latest),
        "list (limit 10)": lambda i: list(saver.list(latest, limit=10)),
    }


WORDS = ["tea", "coffee", "peanuts", "hiking", "paris", "cats", "jazz", "chess"]


def _value(i: int) -> dict[str, Any]:
    return {"text": f"The user likes {WORDS[i % 8]} and {WORDS[(i * 3) % 8]}", "n": i}


def store_ops(
    store: Any, calls: int, search_store: Any | None = None
) -> dict[str, Callable[[int], Any]]:
    """The timed store operations; search runs on ``search_store`` (the peer's
    store with a vector index) when given, over the same items put through it."""
    ns = ("users", f"u-{uuid4()}", "memories")
    for i in range(calls):  # the keys that put-existing, get and search find
        store.put(ns, f"k{i}", _value(i))
    searched = store
    if search_store is not None:
        searched = search_store
        for i in range(calls):
            search_store.put(ns, f"k{i}", _value(i))
    return {
        "store put (new key)": lambda i: store.put(ns, f"new-{i}-{uuid4()}", _value(i)),
        "store put (existing key)": lambda i: store.put(ns, f"k{i}", _value(i + 1)),
        "store get": lambda i: store.get(ns, f"k{i}"),
        "store search (limit 10)": lambda i: searched.search(
            ns[:2], query=f"{WORDS[i % 8]} {WORDS[(i + 1) % 8]}", limit=10
        ),
    }


def _embedder() -> Callable[[list[str]], list[list[float]]] | None:
    """wordllama's 256-dimension model (as bench/quality.py), or None."""
    from agent_state._demo import wordllama_embedder

    embed, why = wordllama_embedder()
    if embed is None:
        log(f"the peer's search runs without a vector index: {why}")
        return None
    return embed  # type: ignore[return-value]


def prepare_ours(server: Server, db: str) -> dict[str, Any]:
    """The agent, hosting, conversation and message the adapters bind to."""
    with psycopg.connect(server.dsn(db), autocommit=True) as conn:
        agent = conn.execute("SELECT agent_state.create_agent('bench-langgraph')").fetchone()[0]  # type: ignore[index]
        conn.execute("SELECT agent_state.grant_hosting(%s, %s::regrole)", [agent, RUNTIME_ROLE])
        user = conn.execute(
            "SELECT agent_state.resolve_actor(%s, 'bench', 'u1', 'User')", [agent]
        ).fetchone()[0]  # type: ignore[index]
        conv = conn.execute(
            "SELECT agent_state.open_conversation(%s, 'bench', 'c1', 'direct')", [agent]
        ).fetchone()[0]  # type: ignore[index]
        msg = conn.execute(
            "SELECT agent_state.record_message(%s, %s, %s, 'remember what I like', ARRAY[%s])",
            [agent, conv, user, user],
        ).fetchone()[0]  # type: ignore[index]
    return {"dsn": server.dsn(db, RUNTIME_ROLE), "agent": agent, "conv": conv, "msg": msg}


def open_ours(info: dict[str, Any]) -> tuple[Any, Any, Any, list[Any]]:
    from agent_state import Store
    from agent_state.integrations.langgraph import AgentStateSaver, AgentStateStore

    s1 = Store(info["dsn"])
    s2 = Store(info["dsn"])
    saver = AgentStateSaver(s1, agent=info["agent"])
    store = AgentStateStore(s2, agent=info["agent"]).bind(
        conversation=info["conv"], message=info["msg"]
    )
    return saver, store, None, [s1, s2]


def open_peer(info: dict[str, Any]) -> tuple[Any, Any, Any, list[Any]]:
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.store.postgres import PostgresStore

    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    c1 = psycopg.connect(info["dsn"], **kwargs)
    c2 = psycopg.connect(info["dsn"], **kwargs)
    saver = PostgresSaver(c1)
    store = PostgresStore(c2)
    conns = [c1, c2]
    indexed = None
    embed = _embedder() if info.get("vector") else None
    if embed is not None:
        c3 = psycopg.connect(info["dsn"], **kwargs)
        conns.append(c3)
        config: Any = {"dims": EMBED_DIMS, "embed": embed, "fields": ["text"]}
        indexed = PostgresStore(c3, index=config)
    if info.get("setup"):
        saver.setup()
        store.setup()
        if indexed is not None:
            indexed.setup()
    return saver, store, indexed, conns


OPENERS: dict[str, Callable[[dict[str, Any]], tuple[Any, Any, Any, list[Any]]]] = {
    "agent_state": open_ours,
    "langgraph": open_peer,
}


def measure(ops: dict[str, Callable[[int], Any]], lo: int, hi: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, op in ops.items():
        lat = []
        for i in range(lo, hi):
            t = time.perf_counter()
            op(i)
            lat.append(time.perf_counter() - t)
        out[name] = lat
    return out


def _worker(
    label: str,
    info: dict[str, Any],
    calls: int,
    barrier: Any,
    results: Any,
) -> None:
    """One client process: its own backend objects, thread and namespace; every
    operation starts when all clients are ready (the barrier) and the time each
    client took goes back to the parent."""
    try:
        saver, store, indexed, closers = OPENERS[label](info)
        ops = {**saver_ops(saver), **store_ops(store, calls, indexed)}
        for name, op in ops.items():
            # A client that died breaks the barrier for the others instead of
            # leaving them waiting.
            barrier.wait(timeout=600)
            start = time.perf_counter()
            for i in range(calls):
                op(i)
            results.put((name, time.perf_counter() - start))
        for c in closers:
            c.close()
        results.put((None, 0.0))
    except BaseException as e:  # report, do not leave the parent waiting
        barrier.abort()
        results.put(("error", repr(e)))


def concurrent(label: str, info: dict[str, Any], clients: int, calls: int) -> dict[str, float]:
    """Calls per second of each operation with ``clients`` processes at once:
    all their calls over the slowest client's time."""
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(clients)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(label, info, calls, barrier, results))
        for _ in range(clients)
    ]
    for p in procs:
        p.start()
    times: dict[str, list[float]] = {}
    errors: list[str] = []
    done = 0
    while done < clients:
        name, took = results.get(timeout=1800)
        if name is None:
            done += 1
        elif name == "error":
            errors.append(str(took))
            done += 1
        else:
            times.setdefault(name, []).append(took)
    if errors:
        for p in procs:
            p.join()
        raise RuntimeError(f"{label} client failed: {errors[0]}")
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise RuntimeError(f"{label} client exited with {p.exitcode}")
    return {name: clients * calls / max(t) for name, t in times.items()}


def target_for(name: str, clients: int) -> float | None:
    """Issue 26's target for an operation at 1 or at several clients."""
    for names, target in ((READS, READ_TARGET), (WRITES, WRITE_TARGET)):
        if any(name == n or name.startswith(n + " ") for n in names):
            return target[0] if clients == 1 else target[1]
    return None


# Where each side keeps what it writes: ours in the extension's schema, the peer
# in the schema its setup() creates its tables in.
SCHEMAS = {
    "agent_state": ("bench_lg_ours", "agent_state"),
    "langgraph": ("bench_lg_peer", "public"),
}


def table_bytes(server: Server, label: str, tables: Sequence[str] | None = None) -> int:
    """Every table of the side's schema (or those named) with its indexes and
    TOAST, in bytes."""
    db, schema = SCHEMAS[label]
    with psycopg.connect(server.dsn(db), autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class AS c"
            " WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p', 'm')"
            " AND (%s::text [] IS NULL OR c.relname = ANY (%s::text []))",
            [schema, tables, tables],
        ).fetchone()
    assert row is not None
    return int(row[0])


def has_vector(server: Server, db: str) -> bool:
    with psycopg.connect(server.dsn(db), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            return True
    return False


#: What each guarantee costs per call (--ladder): the self time (without what
#: it calls) of the internal functions that keep it, summed, so no time counts
#: twice. The entry function's own statements (its reads and writes of the
#: graph tables, with their indexes and foreign keys) are a row of their own.
LADDER = [
    ("binding (42501): _bind, _caller", ["_bind", "_caller"]),
    ("argument checks (22023/22004)", ["_json_within", "_need_text_bytes", "_need_text", "_need",
                                       "_need_json", "_need_count", "_need_graph_namespace",
                                       "_need_graph_labels", "_need_one_of"]),
    ("hash chains: stamp on write, digest check on read (XX001)",
     ["_tg_chain_stamp", "_chain_intact", "_chain_digest", "_chain_checked",
      "_chain_served_memory", "_chain_fault"]),
    ("thread lock, run ledger (recover_run)",
     ["_graph_thread", "_run_writable", "_append_checkpoint", "checkpoint", "start_run",
      "continue_run"]),
    ("memory entry: revision, evidence, provenance", ["remember", "amend", "_insert_memory"]),
    ("eligibility target (bound conversation)", ["_conversation_target", "_match_query"]),
    ("row stamps and trigger tests", ["_tg_stamp_created", "_own_write", "_restoring"]),
]  # fmt: skip


def ladder(server: Server, info: dict[str, Any], calls: int) -> dict[str, dict[str, float]]:
    """Per operation, microseconds per call: the client's time, the entry
    function's total, its own statements, and each guarantee's share
    (pg_stat_user_functions)."""
    db = SCHEMAS["agent_state"][0]
    with psycopg.connect(server.dsn(db), autocommit=True) as conn:
        conn.execute(f"ALTER DATABASE {db} SET track_functions = 'all'")
    saver, store, _, closers = open_ours(info)
    ops = {**saver_ops(saver), **store_ops(store, calls)}
    out: dict[str, dict[str, float]] = {}
    sessions = [s.connection for s in closers]

    def flush() -> None:
        # Each session sends its counts now (else up to 10 s later), then a
        # moment for them to land.
        for conn in sessions:
            conn.execute("SELECT pg_stat_force_next_flush()")
        time.sleep(0.3)

    with psycopg.connect(server.dsn(db), autocommit=True) as admin:
        for name, op in ops.items():
            for i in range(20):
                op(i)
            flush()
            admin.execute("SELECT pg_stat_reset()")
            t = time.perf_counter()
            for i in range(calls):
                op(i)
            took = (time.perf_counter() - t) / calls
            flush()
            admin.execute("SELECT pg_stat_clear_snapshot()")
            rows = {
                f: (total, own)
                for f, total, own in admin.execute(
                    "SELECT funcname, total_time, self_time FROM pg_stat_user_functions"
                    " WHERE schemaname = 'agent_state'"
                ).fetchall()
            }
            entry = max(rows, key=lambda f: rows[f][0]) if rows else ""
            total, own = rows.get(entry, (0.0, 0.0))
            row = {
                "client (Python and round trip included)": took * 1e6,
                "server: the graph_* function in all": total * 1000 / calls,
                "its own statements (tables, indexes, keys)": own * 1000 / calls,
            }
            for label, funcs in LADDER:
                row[label] = sum(rows.get(f, (0.0, 0.0))[1] for f in funcs) * 1000 / calls
            out[name] = row
    for c in closers:
        c.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="300 calls per operation")
    ap.add_argument("--calls", type=int, help="calls per operation (2000; quick 300)")
    ap.add_argument("--rounds", type=int, default=4, help="interleaved rounds (4)")
    ap.add_argument(
        "--clients", type=int, default=8, help="client processes of the second part (8; 1: skip)"
    )
    ap.add_argument(
        "--ladder", action="store_true", help="then what each guarantee costs per call (ours)"
    )
    args = ap.parse_args()
    calls = args.calls or (300 if args.quick else 2000)
    try:
        import langgraph.checkpoint.postgres
        import langgraph.store.postgres  # noqa: F401
    except ImportError:
        log("langgraph-checkpoint-postgres is not installed (pip install -e '.[bench]'): skipped")
        return 0
    lat: dict[str, dict[str, list[float]]] = {"agent_state": {}, "langgraph": {}}
    many: dict[str, dict[str, float]] = {}
    bytes_per_item: dict[str, float] = {}
    # Each client of the concurrent part makes a quarter of the single client's calls.
    many_calls = max(calls // 4, 50)
    with Server() as server:
        server.product_database("bench_lg_ours")
        server.fresh_database("bench_lg_peer")
        vector = has_vector(server, "bench_lg_peer")
        if not vector:
            log("pgvector is not available: the peer's search runs without a vector index")
        infos = {
            "agent_state": prepare_ours(server, "bench_lg_ours"),
            "langgraph": {"dsn": server.dsn("bench_lg_peer"), "setup": True, "vector": vector},
        }
        with timed("setup: a thread of 1,000 checkpoints and the store keys, each side"):
            systems = {label: OPENERS[label](info) for label, info in infos.items()}
            infos["langgraph"]["setup"] = False
            indexed = systems["langgraph"][2]
            ops = {label: saver_ops(saver) for label, (saver, _, _, _) in systems.items()}
            for label, (_, store, _, _) in systems.items():
                before = table_bytes(server, label)
                ops[label].update(store_ops(store, calls))
                bytes_per_item[label] = (table_bytes(server, label) - before) / calls
            if indexed is not None:
                # The peer's search store: the same items put through its index
                # (its rows and vectors, per item, for the storage line).
                before = table_bytes(server, "langgraph")
                ops["langgraph"]["store search (limit 10)"] = store_ops(indexed, calls)[
                    "store search (limit 10)"
                ]
                bytes_per_item["langgraph indexed"] = (
                    table_bytes(server, "langgraph") - before
                ) / calls
        per_round = calls // args.rounds
        with timed(f"{calls} calls per operation, {args.rounds} interleaved rounds"):
            for r in range(args.rounds):
                for label in ("langgraph", "agent_state"):
                    got = measure(ops[label], r * per_round, (r + 1) * per_round)
                    for name, values in got.items():
                        lat[label].setdefault(name, []).extend(values)
        for _, _, _, conns in systems.values():
            for c in conns:
                c.close()
        if args.clients > 1:
            with timed(f"{args.clients} clients, {many_calls} calls each per operation"):
                for label in ("langgraph", "agent_state"):
                    many[label] = concurrent(label, infos[label], args.clients, many_calls)
        costs = {}
        if args.ladder:
            with timed(f"cost ladder: {calls} calls per operation, track_functions on"):
                costs = ladder(server, infos["agent_state"], calls)
        describe = server.describe()
        server.drop_database("bench_lg_ours")
        server.drop_database("bench_lg_peer")
    rows = []
    results: dict[str, Any] = {}
    for name in lat["agent_state"]:
        a, p = lat["agent_state"][name], lat["langgraph"][name]
        a_rate, p_rate = len(a) / sum(a), len(p) / sum(p)
        ratio = a_rate / p_rate
        target = target_for(name, 1)
        results[name] = {"ours": a_rate, "peer": p_rate, "ratio": ratio}
        rows.append(
            [
                name,
                "1",
                f"{p_rate:.0f}",
                ms(percentile(p, 50)),
                f"{a_rate:.0f}",
                ms(percentile(a, 50)),
                f"{ratio:.2f}x",
                "(none)" if target is None else f">= {target}x {verdict(ratio >= target)}",
            ]
        )
    for name, a_rate in many.get("agent_state", {}).items():
        p_rate = many["langgraph"][name]
        ratio = a_rate / p_rate
        target = target_for(name, args.clients)
        results[f"{name} @{args.clients}"] = {"ours": a_rate, "peer": p_rate, "ratio": ratio}
        rows.append(
            [
                name,
                str(args.clients),
                f"{p_rate:.0f}",
                "",
                f"{a_rate:.0f}",
                "",
                f"{ratio:.2f}x",
                "(none)" if target is None else f">= {target}x {verdict(ratio >= target)}",
            ]
        )
    print("## LangGraph adapters against LangGraph's Postgres backends\n")
    print(
        f"Machine: {describe.get('cpu')}, {describe.get('cores')} cores; {describe.get('server')}"
    )
    print(
        f"one client: {calls} calls per operation, {args.rounds} interleaved rounds; "
        f"{args.clients} clients: {many_calls} calls each\n"
    )
    print(
        table(
            [
                "operation",
                "clients",
                "langgraph calls/s",
                "p50 ms",
                "agent_state calls/s",
                "p50 ms",
                "ratio",
                "target",
            ],
            rows,
        )
    )
    ours_b, peer_b = bytes_per_item["agent_state"], bytes_per_item["langgraph"]
    results["storage bytes per store item"] = {
        "ours": ours_b,
        "peer": peer_b,
        "ratio": ours_b / peer_b,
    }
    print(
        f"\nStorage per store item ({calls} puts of new keys, tables with their indexes and "
        f"TOAST): langgraph {peer_b:.0f} B, agent_state {ours_b:.0f} B, "
        f"{ours_b / peer_b:.2f}x (target <= {STORAGE_TARGET:g}x "
        f"{verdict(ours_b / peer_b <= STORAGE_TARGET)})"
    )
    if "langgraph indexed" in bytes_per_item:
        idx_b = bytes_per_item["langgraph indexed"]
        results["storage bytes per store item (peer with its vector index)"] = {
            "ours": ours_b, "peer": idx_b, "ratio": ours_b / idx_b,
        }  # fmt: skip
        print(
            f"The peer with its vector index (the search store: rows, 256-d vectors, HNSW): "
            f"{idx_b:.0f} B per item; agent_state {ours_b / idx_b:.2f}x that."
        )
        print("Store search: the peer ranks by meaning through its vector index.")
    else:
        print("Store search: the peer ran WITHOUT a vector index (it ignores the query).")
    if costs:
        names = list(costs)
        print("\n### What each guarantee costs per call (ours, microseconds, track_functions on)\n")
        labels = list(next(iter(costs.values())))
        print(
            table(
                ["", *names],
                [[label, *(f"{costs[n][label]:.0f}" for n in names)] for label in labels],
            )
        )
        results["ladder"] = costs
    print("\n" + json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
