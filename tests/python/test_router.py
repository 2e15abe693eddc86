"""The PL/Proxy router (SPEC section 15): two shards and a router, databases of the
test cluster. Skipped where the server has no plproxy extension (e.g. the wheel's
PostgreSQL 18).

What is checked: the router has every API function with the shard's exact signature
(a function missing or differing fails), the generated file is current, placement
and handles unique across shards, unknown agents answered as one server answers
(never XX000), each caller's own role on the shard, register_tool on every shard
with shard_check's report and repair, a fixed-user mapping refused or reported, the
wrapper's flows through the router, and move_agent: the copy, the retired source,
55006 while frozen, writers during a move losing no acknowledged write, and a
router backend killed (SIGKILL) mid-move leaving the agent live on exactly one shard.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import psycopg
import psycopg.sql
import pytest
from psycopg.types.json import Jsonb

import agent_state
from agent_state import router as router_mod
from conftest import TestRole, _create_db, _drop_db, with_dbname

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Deployment:
    router: str
    shards: dict[str, str]  # name -> superuser DSN of the shard database

    def conn(self, dsn: str | None = None) -> psycopg.Connection[Any]:
        return psycopg.connect(dsn or self.router, autocommit=True)


def _shard_dsn(admin_dsn: str, dbname: str) -> str:
    """The shard's connection string for the router: no user, no password."""
    params = psycopg.conninfo.conninfo_to_dict(with_dbname(admin_dsn, dbname))
    params.pop("user", None)
    params.pop("password", None)
    return psycopg.conninfo.make_conninfo("", **{k: v for k, v in params.items() if v})


def _has_plproxy(admin_dsn: str) -> bool:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'plproxy'")
        return row.fetchone() is not None


@pytest.fixture(scope="module")
def deployment(admin_dsn: str, template_db: str) -> Iterator[Deployment]:
    if not _has_plproxy(admin_dsn):
        pytest.skip("this server has no plproxy extension (postgresql-NN-plproxy)")
    names = {
        "a": _create_db(admin_dsn, template_db, "shard_a"),
        "b": _create_db(admin_dsn, template_db, "shard_b"),
    }
    router_db = _create_db(admin_dsn, "template0", "router")
    router = with_dbname(admin_dsn, router_db)
    # The test cluster may run with synchronous_commit off (fast, and fine until a
    # server crash): the crash test needs an acknowledged commit to be durable.
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        for db in (router_db, *names.values()):
            conn.execute(
                psycopg.sql.SQL("ALTER DATABASE {} SET synchronous_commit = on").format(
                    psycopg.sql.Identifier(db)
                )
            )
    try:
        with psycopg.connect(router, autocommit=True) as conn:
            assert router_mod.install(conn)
            router_mod.add_shards(conn, {n: _shard_dsn(admin_dsn, db) for n, db in names.items()})
        yield Deployment(router, {n: with_dbname(admin_dsn, db) for n, db in names.items()})
    finally:
        for db in (router_db, *names.values()):
            _drop_db(admin_dsn, db)


def _api(dsn: str, schema: str = "agent_state") -> dict[str, tuple[str, str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT p.proname, pg_catalog.pg_get_function_arguments(p.oid),"
            " pg_catalog.pg_get_function_result(p.oid)"
            " FROM pg_catalog.pg_proc AS p"
            " WHERE p.pronamespace = %s::regnamespace AND p.proname !~ '^_'"
            "   AND (pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')"
            "     OR pg_catalog.has_function_privilege('agent_state_operator', p.oid, 'EXECUTE'))",
            (schema,),
        ).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def test_router_has_every_api_function_with_the_same_signature(deployment: Deployment) -> None:
    shard = _api(deployment.shards["a"])
    routed = _api(deployment.router)
    assert len(shard) >= 70
    missing = sorted(set(shard) - set(routed))
    assert missing == [], f"the router lacks {missing}"
    differ = {n: (shard[n], routed[n]) for n in shard if shard[n] != routed[n]}
    assert differ == {}, f"signatures differ: {differ}"
    # Router-only functions, beside the API.
    assert set(routed) - set(shard) == {"move_agent", "shard_check"}


def test_generated_router_api_is_current(deployment: Deployment) -> None:
    spec = importlib.util.spec_from_file_location("gen_router", ROOT / "scripts" / "gen-router.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_router"] = gen
    spec.loader.exec_module(gen)
    with psycopg.connect(deployment.shards["a"], autocommit=True) as conn:
        text = gen.render(conn)
    assert text == (ROOT / "python" / "agent_state" / "router" / "api.sql").read_text()


def _one(conn: psycopg.Connection[Any], query: str, *params: Any) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


def _directory(d: Deployment) -> dict[UUID, str]:
    with d.conn() as conn:
        return dict(
            conn.execute("SELECT agent, shard FROM agent_state_router.directory").fetchall()
        )


def _live_on(d: Deployment, agent: UUID) -> list[str]:
    """The shards on which the agent is live (not frozen, not retired)."""
    found = []
    for name, dsn in d.shards.items():
        with psycopg.connect(dsn, autocommit=True) as conn:
            inv = _one(conn, "SELECT agent_state.shard_inventory()")
        if any(a["agent"] == str(agent) and a["state"] == "live" for a in inv["agents"]):
            found.append(name)
    return found


def test_placement_spreads_agents_and_handles_stay_unique(deployment: Deployment) -> None:
    store = agent_state.connect(deployment.router)
    before = _directory(deployment)
    tag = secrets.token_hex(4)
    made = [store.create_agent(handle=f"place-{tag}-{i}") for i in range(4)]
    after = _directory(deployment)
    placed = [after[UUID(str(m))] for m in made]
    assert sorted(placed) == ["a", "a", "b", "b"] or abs(placed.count("a") - placed.count("b")) <= 1
    assert set(after) - set(before) == {UUID(str(m)) for m in made}
    for m, shard in zip(made, placed, strict=True):
        assert _live_on(deployment, m) == [shard]
    with pytest.raises(agent_state.Duplicate):
        store.create_agent(handle=f"place-{tag}-1")
    assert len(_directory(deployment)) == len(after)
    assert store.find_agent(handle=f"place-{tag}-2") == made[2]
    listed = {a.agent for a in store.list_agents()}
    assert {UUID(str(m)) for m in made} <= listed


def _agent_first_calls(dsn: str) -> list[tuple[str, str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(
            "SELECT p.proname::text,"
            " pg_catalog.format('SELECT agent_state.%I(%%s::uuid%s)', p.proname,"
            " (SELECT coalesce(pg_catalog.string_agg(', NULL::' || pg_catalog.format_type(t, NULL),"
            "  '' ORDER BY n), '')"
            "  FROM pg_catalog.unnest(p.proargtypes) WITH ORDINALITY AS a (t, n)"
            "  WHERE n > 1))"
            " FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = 'agent_state'::regnamespace"
            " AND p.proname !~ '^_' AND p.proargnames[1] = 'agent'"
            " AND p.proargtypes[0] = 'uuid'::regtype ORDER BY 1"
        ).fetchall()


def test_unknown_agents_answer_as_one_server(
    deployment: Deployment, make_role: Callable[..., TestRole]
) -> None:
    operator = make_role("agent_state_operator")
    runtime = make_role("agent_state_runtime")
    calls = _agent_first_calls(deployment.shards["a"])
    assert len(calls) >= 60
    seen: dict[str, list[str]] = {"op": [], "rt": []}
    for who, role, want in (("op", operator, "P0002"), ("rt", runtime, "42501")):
        with psycopg.connect(role.dsn(deployment.router), autocommit=True) as conn:
            for name, template in calls:
                with pytest.raises(psycopg.Error) as e:
                    conn.execute(template, (str(uuid4()),))
                if e.value.sqlstate != want:
                    seen[who].append(f"{name}: {e.value.sqlstate} {e.value}")
    assert seen == {"op": [], "rt": []}
    with psycopg.connect(operator.dsn(deployment.router), autocommit=True) as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT agent_state.find_agent('no such handle ' || gen_random_uuid())")
        assert e.value.sqlstate == "P0002"
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT * FROM agent_state.recall(NULL, 'x')")
        assert e.value.sqlstate == "22004"


def test_the_shard_sees_the_callers_own_role(
    deployment: Deployment, make_role: Callable[..., TestRole]
) -> None:
    ops = agent_state.connect(deployment.router)
    agent = ops.create_agent(handle=f"own-role-{secrets.token_hex(4)}")
    runtime = make_role("agent_state_runtime")
    ops.grant_hosting(agent=agent, host=runtime.name)
    other = ops.create_agent(handle=f"own-role-other-{secrets.token_hex(4)}")
    rt = agent_state.connect(runtime.dsn(deployment.router))
    actor = rt.resolve_actor(agent=agent, connector="slack", external_id="U1", display_name="Ann")
    conv = rt.open_conversation(agent=agent, connector="slack", external_ref="D1", kind="direct")
    msg = rt.record_message(
        agent=agent, conversation=conv, author=actor, body="hi", audience=[actor]
    )
    rt.remember(agent=agent, body="Ann likes tea", source_message=msg, subject=actor)
    with pytest.raises(agent_state.PermissionDenied) as e:
        rt.list_memories(agent=other)
    assert runtime.name in str(e.value)
    with pytest.raises(agent_state.PermissionDenied):
        rt.note(agent=agent, body="operators only")
    shard = _directory(deployment)[UUID(str(agent))]
    with psycopg.connect(deployment.shards[shard], autocommit=True) as conn:
        row = conn.execute(
            "SELECT created_by FROM agent_state.memory_revisions WHERE runtime_agent_id = %s",
            (agent,),
        ).fetchone()
    assert row == (runtime.name,)


def test_register_tool_reaches_every_shard_and_check_repairs(deployment: Deployment) -> None:
    ops = agent_state.connect(deployment.router)
    tool = f"mail.send.{secrets.token_hex(3)}"
    ops.register_tool(name=tool, version="1.0", config_schema={"type": "object"})

    def revisions(shard: str) -> list[int]:
        with psycopg.connect(deployment.shards[shard], autocommit=True) as conn:
            inv = _one(conn, "SELECT agent_state.shard_inventory()")
        return [t["revision"] for t in inv["tools"] if t["name"] == tool]

    assert revisions("a") == [1] and revisions("b") == [1]
    with pytest.raises(agent_state.InvalidArgument):
        ops.register_tool(name=tool, version="", config_schema={"type": "object"})
    assert revisions("a") == [1] and revisions("b") == [1]
    # A registration that reached one shard only (as when a shard fails mid-call).
    with psycopg.connect(deployment.shards["b"], autocommit=True) as conn:
        conn.execute(
            "SELECT agent_state.register_tool(%s, '2.0', '{\"type\": \"object\"}')", (tool,)
        )
    with deployment.conn() as conn:
        found = conn.execute(
            "SELECT shard, problem, object FROM agent_state.shard_check()"
        ).fetchall()
        assert ("a", "tool_missing", f"{tool} revision 2") in found
        fixed = conn.execute(
            "SELECT shard, problem, repaired FROM agent_state.shard_check(repair => true)"
        ).fetchall()
        assert ("a", "tool_missing", True) in fixed
        assert conn.execute("SELECT count(*) FROM agent_state.shard_check()").fetchone() == (0,)
    assert revisions("a") == [1, 2]


def test_one_failed_repair_does_not_stop_the_others(deployment: Deployment) -> None:
    """Two agents created on a shard behind the router's back: one with a handle the
    directory gives another agent (it cannot be entered: 23505, reported), one with
    a new handle (entered). The first failure does not abort the repair."""
    ops = agent_state.connect(deployment.router)
    taken = f"taken-{secrets.token_hex(4)}"
    owner = ops.create_agent(handle=taken)
    other = "b" if _directory(deployment)[UUID(str(owner))] == "a" else "a"
    with psycopg.connect(deployment.shards[other], autocommit=True) as conn:
        clash = _one(conn, "SELECT agent_state.create_agent(%s)", taken)
        fresh = _one(conn, "SELECT agent_state.create_agent(%s)", f"fresh-{secrets.token_hex(4)}")
    with deployment.conn() as conn:
        rows = conn.execute(
            "SELECT object, problem, detail, repaired FROM agent_state.shard_check(repair => true)"
        ).fetchall()
        found = {r[0]: r for r in rows}
        assert (found[str(fresh)][1], found[str(fresh)][3]) == ("not_in_directory", True)
        problem, detail, repaired = found[str(clash)][1:]
        assert (problem, repaired) == ("not_in_directory", False)
        assert "not entered: [23505]" in detail
    assert _directory(deployment)[UUID(str(fresh))] == other
    assert _directory(deployment)[UUID(str(owner))] != other
    # An operator resolves the clash by hand: here the stray copy is retired, after
    # which the shards agree again.
    with psycopg.connect(deployment.shards[other], autocommit=True) as conn:
        conn.execute("SELECT agent_state.move_step(%s, 'begin', 'nowhere')", (clash,))
        conn.execute("SELECT agent_state.move_step(%s, 'retire')", (clash,))
    with deployment.conn() as conn:
        assert conn.execute("SELECT count(*) FROM agent_state.shard_check()").fetchone() == (0,)


def test_an_orphaned_copy_moved_in_is_retired_by_repair(deployment: Deployment) -> None:
    """A copy imported on a shard ('in') whose move was undone without reaching that
    shard (its source is live again): shard_check reports it, and repair retires the
    copy, leaving the agent live on the shard the directory names."""
    ops = agent_state.connect(deployment.router)
    agent = ops.create_agent(handle=f"orphan-{secrets.token_hex(4)}")
    ops.note(agent=agent, body="stays where it is")
    src = _directory(deployment)[UUID(str(agent))]
    dst = "b" if src == "a" else "a"
    with psycopg.connect(deployment.shards[src], autocommit=True) as conn:
        doc = _one(conn, "SELECT agent_state.export_agent(%s)", agent)
    with psycopg.connect(deployment.shards[dst], autocommit=True) as conn:
        conn.execute("SELECT agent_state.move_step(%s, 'import', %s, %s)", (agent, src, Jsonb(doc)))
    with deployment.conn() as conn:
        found = conn.execute(
            "SELECT shard, problem, repaired FROM agent_state.shard_check(repair => true) "
            "WHERE object = %s",
            (str(agent),),
        ).fetchall()
        assert found == [(dst, "move_unfinished", True)]
        assert conn.execute("SELECT count(*) FROM agent_state.shard_check()").fetchone() == (0,)
    assert _live_on(deployment, agent) == [src]
    assert [m.body for m in ops.list_memories(agent=agent)] == ["stays where it is"]


def test_a_mapping_that_fixes_one_user_is_refused(deployment: Deployment, admin_dsn: str) -> None:
    with deployment.conn() as conn:
        with pytest.raises(psycopg.Error) as e:
            conn.execute(
                "SELECT agent_state.add_shard('c', %s)",
                (_shard_dsn(admin_dsn, "postgres") + " user=postgres",),
            )
        assert e.value.sqlstate == "22023"
        # A URI naming the user in its query is refused too.
        host = conn.execute("SELECT coalesce(inet_server_addr()::text, 'localhost')").fetchone()
        with pytest.raises(psycopg.Error) as e:
            conn.execute(
                "SELECT agent_state.add_shard('c', %s)",
                (f"postgresql://{host[0] if host else 'localhost'}/x?user=postgres",),
            )
        assert e.value.sqlstate == "22023"
        assert conn.execute(
            "SELECT count(*) FROM agent_state_router.shards WHERE name = 'c'"
        ).fetchone() == (0,)
        conn.execute(
            "ALTER USER MAPPING FOR PUBLIC SERVER agent_state_shard_b OPTIONS (ADD user 'postgres')"
        )
        try:
            found = conn.execute("SELECT shard, problem FROM agent_state.shard_check()").fetchall()
            assert ("b", "fixed_user") in found
        finally:
            conn.execute(
                "ALTER USER MAPPING FOR PUBLIC SERVER agent_state_shard_b OPTIONS (DROP user)"
            )


def test_wrapper_flows_through_the_router(deployment: Deployment) -> None:
    store = agent_state.connect(deployment.router)
    agent = store.create_agent(handle=f"flow-{secrets.token_hex(4)}")
    store.revise_persona(agent=agent, body="You are the helpdesk agent.")
    ann = store.resolve_actor(
        agent=agent, connector="slack", external_id="U042", display_name="Ann"
    )
    dm = store.open_conversation(agent=agent, connector="slack", external_ref="D042", kind="direct")
    msg = store.record_message(
        agent=agent, conversation=dm, author=ann, body="Please mail me the report.", audience=[ann]
    )
    store.remember(
        agent=agent, body="Ann's address is ann@example.org", source_message=msg, subject=ann
    )
    hits = store.recall(agent=agent, query="address", conversation=dm)
    assert [h.body for h in hits] == ["Ann's address is ann@example.org"]
    run = store.start_run(
        agent=agent, conversation=dm, trigger_message=msg, budget={"tokens": 1000}
    )
    store.record_turn(
        agent=agent,
        run=run,
        prompt="p",
        provider="x",
        model="m",
        request={"q": 1},
        usage={"tokens": 10},
        frontier={"step": 1},
    )
    assert store.recover_run(agent=agent, run=run)["frontier"] == {"step": 1}
    store.finish_run(agent=agent, run=run, outcome="succeeded")
    assert "ann@example.org" in store.export_markdown(agent=agent)
    assert store.verify(agent=agent) == []
    # A client transaction over the router spans calls, but each call commits on its
    # shard by itself: a rollback on the router does not undo it (docs/scaling.md).
    try:
        with store.transaction():
            store.note(agent=agent, body="written before the rollback")
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    bodies = [m.body for m in store.list_memories(agent=agent)]
    assert "written before the rollback" in bodies


def test_move_copies_retires_and_refuses_the_old_copy(deployment: Deployment) -> None:
    store = agent_state.connect(deployment.router)
    agent = store.create_agent(handle=f"move-{secrets.token_hex(4)}")
    for i in range(20):
        store.note(agent=agent, body=f"fact {i}")
    src = _directory(deployment)[UUID(str(agent))]
    dst = "b" if src == "a" else "a"
    with psycopg.connect(deployment.shards[src], autocommit=True) as conn:
        before = _one(conn, "SELECT agent_state.export_agent(%s)", agent)
    with deployment.conn() as conn:
        result = router_mod.move(conn, str(agent), dst)
    assert result["moved"] is True and result["to"] == dst
    assert _directory(deployment)[UUID(str(agent))] == dst
    assert _live_on(deployment, agent) == [dst]
    with psycopg.connect(deployment.shards[dst], autocommit=True) as conn:
        after = _one(conn, "SELECT agent_state.export_agent(%s)", agent)
        assert conn.execute("SELECT count(*) FROM agent_state.verify(%s)", (agent,)).fetchone() == (
            0,
        )
    assert after == before
    # Through the router: every read answers as before, writes go to the new shard.
    assert len(store.list_memories(agent=agent)) == 20
    store.note(agent=agent, body="after the move")
    # Directly on the old shard: unknown, and nothing written.
    with psycopg.connect(deployment.shards[src], autocommit=True) as conn:
        count = "SELECT count(*) FROM agent_state.memory_revisions WHERE runtime_agent_id = %s"
        n = conn.execute(count, (agent,)).fetchone()
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT agent_state.note(%s, 'on the old copy')", (agent,))
        assert e.value.sqlstate == "P0002"
        assert conn.execute(count, (agent,)).fetchone() == n


def test_a_frozen_agent_answers_55006_and_the_wrapper_retries(deployment: Deployment) -> None:
    store = agent_state.connect(deployment.router)
    agent = store.create_agent(handle=f"frozen-{secrets.token_hex(4)}")
    shard = _directory(deployment)[UUID(str(agent))]
    with psycopg.connect(deployment.shards[shard], autocommit=True) as conn:
        conn.execute("SELECT agent_state.move_step(%s, 'begin', 'elsewhere')", (agent,))
        with pytest.raises(psycopg.Error) as e:
            conn.execute("SELECT agent_state.note(%s, 'while frozen')", (agent,))
        assert e.value.sqlstate == "55006"
        thaw = threading.Timer(
            0.5,
            lambda: psycopg.connect(deployment.shards[shard], autocommit=True).execute(
                "SELECT agent_state.move_step(%s, 'abort')", (agent,)
            ),
        )
        thaw.start()
        started = time.monotonic()
        store.note(agent=agent, body="retried until thawed")  # retried, then written
        assert time.monotonic() - started >= 0.4
        thaw.join()
    assert [m.body for m in store.list_memories(agent=agent)] == ["retried until thawed"]
    # Inside store.transaction() a 55006 is never retried (the transaction is the
    # caller's to retry): it is raised at once, and nothing is written.
    with psycopg.connect(deployment.shards[shard], autocommit=True) as conn:
        conn.execute("SELECT agent_state.move_step(%s, 'begin', 'elsewhere')", (agent,))
        try:
            with agent_state.connect(deployment.shards[shard]) as direct:
                started = time.monotonic()
                with pytest.raises(agent_state.Moving), direct.transaction():
                    direct.note(agent=agent, body="inside a transaction")
                assert time.monotonic() - started < 0.5
        finally:
            conn.execute("SELECT agent_state.move_step(%s, 'abort')", (agent,))
    assert [m.body for m in store.list_memories(agent=agent)] == ["retried until thawed"]


def test_writers_during_a_move_lose_no_acknowledged_write(deployment: Deployment) -> None:
    store = agent_state.connect(deployment.router)
    agent = store.create_agent(handle=f"busy-{secrets.token_hex(4)}")
    for i in range(300):
        store.note(agent=agent, body=f"before {i}")
    acked: list[str] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(n: int) -> None:
        with agent_state.connect(deployment.router) as s:
            i = 0
            while not stop.is_set():
                body = f"writer {n} note {i}"
                try:
                    s.note(agent=agent, body=body)
                except BaseException as e:
                    errors.append(e)
                    return
                acked.append(body)
                i += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    src = _directory(deployment)[UUID(str(agent))]
    dst = "b" if src == "a" else "a"
    with deployment.conn() as conn:
        result = router_mod.move(conn, str(agent), dst)
    assert result["moved"] is True
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert len(acked) > 10
    bodies = {m.body for m in store.list_memories(agent=agent, max_results=10000)}
    assert set(acked) <= bodies
    assert _live_on(deployment, agent) == [_directory(deployment)[UUID(str(agent))]]
    assert store.verify(agent=agent) == []


def _wait_for_server(dsn: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with psycopg.connect(dsn, autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.mark.skipif(os.environ.get("AGENT_STATE_ROUTER_CRASH") == "0", reason="crash test off")
def test_a_router_backend_killed_mid_move_leaves_one_live_copy(deployment: Deployment) -> None:
    """The router's backend is killed with SIGKILL (the server restarts every backend)
    at three moments of a move of about a second; afterwards shard_check(repair) leaves
    the agent live on exactly the shard the directory names, with every acknowledged
    write. At least one kill must have interrupted the move."""
    with deployment.conn() as probe:
        host = probe.info.host
    if host not in ("localhost", "127.0.0.1", "::1") and not host.startswith("/"):
        pytest.skip("the server is not on this machine: cannot kill its backend")
    interrupted = 0
    for delay in (0.1, 0.4, 0.7):
        store = agent_state.connect(deployment.router)
        agent = store.create_agent(handle=f"crash-{secrets.token_hex(4)}")
        acked = set()
        for i in range(1500):
            store.note(agent=agent, body=f"bulk fact {i}")
            acked.add(f"bulk fact {i}")
        store.close()
        src = _directory(deployment)[UUID(str(agent))]
        dst = "b" if src == "a" else "a"
        conn = deployment.conn()
        pid = conn.info.backend_pid

        def run_move(c: psycopg.Connection[Any] = conn, a: Any = agent, to: str = dst) -> None:
            with contextlib.suppress(psycopg.Error):
                c.execute("SELECT agent_state.move_agent(%s, %s)", (a, to))

        mover = threading.Thread(target=run_move)
        mover.start()
        time.sleep(delay)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            mover.join()
            pytest.skip("cannot signal the server's backend from here")
        mover.join()
        conn.close()
        _wait_for_server(deployment.router)
        with deployment.conn() as c:
            found = c.execute("SELECT * FROM agent_state.shard_check(repair => true)").fetchall()
            interrupted += any(str(agent) == row[2] for row in found)
            assert c.execute("SELECT count(*) FROM agent_state.shard_check()").fetchone() == (0,)
        live = _live_on(deployment, agent)
        assert live == [_directory(deployment)[UUID(str(agent))]]
        with agent_state.connect(deployment.router) as s:
            bodies = {m.body for m in s.list_memories(agent=agent, max_results=10000)}
            assert acked <= bodies
            assert s.verify(agent=agent) == []
            s.note(agent=agent, body="after the crash")
    assert interrupted >= 1


def test_the_shard_command(
    deployment: Deployment, admin_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_state.cli import main

    store = agent_state.connect(deployment.router)
    handle = f"cli-move-{secrets.token_hex(4)}"
    agent = store.create_agent(handle=handle)
    store.note(agent=agent, body="moved by the command line")
    src = _directory(deployment)[UUID(str(agent))]
    dst = "b" if src == "a" else "a"
    assert main(["shard", "move", "--router", deployment.router, handle, dst]) == 0
    out = capsys.readouterr().out
    assert f'"to": "{dst}"' in out and '"moved": true' in out
    assert _directory(deployment)[UUID(str(agent))] == dst
    assert main(["shard", "check", "--router", deployment.router]) == 0
    assert "the shards agree" in capsys.readouterr().out
    # A disagreement: reported with exit 1; repaired with exit 0, as a check after it finds.
    tool = f"cli.tool.{secrets.token_hex(3)}"
    with psycopg.connect(deployment.shards[dst], autocommit=True) as conn:
        conn.execute("SELECT agent_state.register_tool(%s, '1', '{\"type\": \"object\"}')", (tool,))
    assert main(["shard", "check", "--router", deployment.router]) == 1
    assert f"{src}\ttool_missing\t{tool} revision 1" in capsys.readouterr().out
    assert main(["shard", "check", "--router", deployment.router, "--repair"]) == 0
    out = capsys.readouterr().out
    assert "(repaired)" in out and "the shards agree" in out
    assert main(["shard", "check", "--router", deployment.router]) == 0
    capsys.readouterr()
    # init on a router that exists: says so; a shard DSN naming a user: refused, exit 1.
    bad = _shard_dsn(admin_dsn, "postgres") + " user=postgres"
    assert main(["shard", "init", "--router", deployment.router, "--shard", f"c={bad}"]) == 1
    captured = capsys.readouterr()
    assert "router already there" in captured.out
    assert "[22023]" in captured.err
    with pytest.raises(SystemExit) as usage:
        main(["shard", "init", "--router", deployment.router, "--shard", "nodsn"])
    assert usage.value.code == 2


def test_index_embeddings_builds_the_index_on_every_shard(deployment: Deployment) -> None:
    """A deployment-wide call reaches every shard: the HNSW index of a model is built
    on each, not only on the first that answers."""
    with deployment.conn() as probe:
        available = probe.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
    if available is None:
        pytest.skip("this server has no pgvector")
    for dsn in deployment.shards.values():
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    with deployment.conn() as conn:
        name = conn.execute(
            "SELECT agent_state.index_embeddings('router-test-model', 3)"
        ).fetchone()
    assert name is not None and name[0]
    for shard, dsn in deployment.shards.items():
        with psycopg.connect(dsn, autocommit=True) as conn:
            found = conn.execute(
                "SELECT 1 FROM pg_catalog.pg_indexes WHERE indexname = %s", (name[0],)
            ).fetchone()
        assert found is not None, f"no index {name[0]} on shard {shard}"
