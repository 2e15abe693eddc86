"""Crash recovery of a run: the database is the only thing a new process needs.

A runtime connection records a turn (snapshot, model call, a tool call whose result
is unconfirmed, a checkpoint) and commits it, then starts more work in a transaction
and dies in the middle of it: its backend is terminated from another connection, or
the client process is killed. Another connection recovers the run with
``recover_run``: what was committed is there, what was not is absent, the tool call
whose effect is unknown is still listed, the spent budget is intact, and
``continue_run`` carries it over.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg.types.json import Jsonb

from conftest import TestRole

TOOL = "recovery.send_mail"


@dataclass(frozen=True)
class Turn:
    agent: UUID
    run: UUID
    snapshot: UUID
    model_call: UUID
    tool_call: UUID


def one(conn: psycopg.Connection[Any], query: str, params: dict[str, Any]) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


def count(conn: psycopg.Connection[Any], table: str, run: UUID) -> int:
    # table names are constants of this module
    return int(
        one(conn, f"SELECT count(*) FROM agent_state.{table} WHERE run_id = %(run)s", {"run": run})
    )


@pytest.fixture
def runtime(admin_conn: psycopg.Connection[Any], make_role: Callable[..., TestRole]) -> TestRole:
    return make_role("agent_state_runtime")


@pytest.fixture
def agent(admin_conn: psycopg.Connection[Any], runtime: TestRole) -> UUID:
    """An agent with persona revision 1 and a mail tool, hosted by ``runtime``."""
    a = one(
        admin_conn, "SELECT agent_state.create_agent(handle => %(h)s)", {"h": f"recovery {uuid4()}"}
    )
    admin_conn.execute(
        "SELECT agent_state.grant_hosting(agent => %(a)s, host => %(r)s::regrole)",
        {"a": a, "r": runtime.name},
    )
    admin_conn.execute(
        "SELECT agent_state.revise_persona(agent => %(a)s, body => 'You are persona one.')",
        {"a": a},
    )
    admin_conn.execute(
        "SELECT agent_state.register_tool(name => %(t)s, version => '1', config_schema => %(s)s)",
        {"t": TOOL, "s": Jsonb({"type": "object"})},
    )
    admin_conn.execute(
        "SELECT agent_state.grant_tool(agent => %(a)s, tool => %(t)s, enabled => true)",
        {"a": a, "t": TOOL},
    )
    return UUID(str(a))


@pytest.fixture
def runtime_dsn(module_db_dsn: str, runtime: TestRole) -> str:
    return runtime.dsn(module_db_dsn)


@pytest.fixture
def turn(runtime_dsn: str, agent: UUID) -> Iterator[Turn]:
    """One committed turn: snapshot, model call (300 tokens), unconfirmed tool call,
    checkpoint 1."""
    with psycopg.connect(runtime_dsn, autocommit=True) as conn:
        p: dict[str, Any] = {"a": agent}
        p["run"] = one(
            conn,
            "SELECT agent_state.start_run(agent => %(a)s, budget => %(b)s)",
            {**p, "b": Jsonb({"tokens": 1000, "tool_calls": 5, "cost_usd": 1})},
        )
        p["snap"] = one(
            conn,
            "SELECT agent_state.snapshot_prompt(agent => %(a)s, run => %(run)s,"
            " prompt => 'You are persona one. Send the report.', persona_revision => 1)",
            p,
        )
        p["mc"] = one(
            conn,
            "SELECT agent_state.record_model_call(agent => %(a)s, run => %(run)s,"
            " snapshot => %(snap)s, provider => 'test', model => 'm', request => %(req)s,"
            " usage => %(u)s)",
            {**p, "req": Jsonb({"messages": 1}), "u": Jsonb({"tokens": 300, "cost_usd": 0.125})},
        )
        p["tc"] = one(
            conn,
            "SELECT agent_state.record_tool_call(agent => %(a)s, run => %(run)s, tool => %(t)s,"
            " input => %(i)s, model_call => %(mc)s)",
            {**p, "t": TOOL, "i": Jsonb({"to": "ann@example.org"})},
        )
        conn.execute(
            "SELECT agent_state.record_tool_result(agent => %(a)s, tool_call => %(tc)s,"
            " output => %(o)s, status => 'unconfirmed')",
            {**p, "o": Jsonb({"error": "connection reset after send"})},
        )
        assert (
            one(
                conn,
                "SELECT agent_state.checkpoint(agent => %(a)s, run => %(run)s, frontier => %(f)s)",
                {**p, "f": Jsonb({"step": "report sent?"})},
            )
            == 1
        )
    yield Turn(
        agent, UUID(str(p["run"])), UUID(str(p["snap"])), UUID(str(p["mc"])), UUID(str(p["tc"]))
    )


def start_uncommitted_work(conn: psycopg.Connection[Any], t: Turn) -> None:
    """More work in an open transaction: a model call, a tool call, a checkpoint and
    the resolution of the unconfirmed call. None of it may survive the crash."""
    p = {"a": t.agent, "run": t.run, "snap": t.snapshot, "tc": t.tool_call}
    conn.execute("BEGIN")
    conn.execute(
        "SELECT agent_state.record_model_call(agent => %(a)s, run => %(run)s, snapshot => %(snap)s,"
        " provider => 'test', model => 'm', request => '{}', usage => '{\"tokens\": 500}')",
        p,
    )
    conn.execute(
        "SELECT agent_state.record_tool_call(agent => %(a)s, run => %(run)s, tool => %(t)s,"
        " input => '{}')",
        {**p, "t": TOOL},
    )
    conn.execute(
        "SELECT agent_state.checkpoint(agent => %(a)s, run => %(run)s,"
        " frontier => '{\"step\": 2}')",
        p,
    )
    conn.execute(
        "SELECT agent_state.record_tool_result(agent => %(a)s, tool_call => %(tc)s, output => '{}',"
        " status => 'ok')",
        p,
    )


def wait_gone(admin: psycopg.Connection[Any], pid: int) -> None:
    for _ in range(200):
        if not admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            return
        time.sleep(0.05)
    raise AssertionError(f"backend {pid} did not go away")


def assert_recovered(admin: psycopg.Connection[Any], runtime_dsn: str, t: Turn) -> dict[str, Any]:
    """Recover from a fresh runtime connection and check what survived."""
    # What the database holds: the committed turn only.
    assert count(admin, "model_calls", t.run) == 1
    assert count(admin, "tool_calls", t.run) == 1
    assert count(admin, "checkpoints", t.run) == 1
    assert (
        one(
            admin,
            "SELECT count(*) FROM agent_state.tool_results WHERE tool_call_id = %(tc)s",
            {"tc": t.tool_call},
        )
        == 1
    )

    with psycopg.connect(runtime_dsn, autocommit=True) as conn:
        state: dict[str, Any] = one(
            conn,
            "SELECT agent_state.recover_run(agent => %(a)s, run => %(r)s)",
            {"a": t.agent, "r": t.run},
        )
    assert state["run"] == str(t.run)
    assert state["status"] == "open"
    assert state["checkpoint"] == 1
    assert state["frontier"] == {"step": "report sent?"}
    budget = state["budget"]
    assert budget["limits"] == {
        "tokens": 1000,
        "cost_usd": 1,
        "tool_calls": 5,
        "wall_time_seconds": None,
    }
    assert {k: v for k, v in budget["spent"].items() if k != "wall_time_seconds"} == {
        "tokens": 300,
        "cost_usd": 0.125,
        "tool_calls": 1,
    }
    assert budget["spent"]["wall_time_seconds"] >= 0
    assert budget["remaining"]["tokens"] == 700
    assert budget["remaining"]["tool_calls"] == 4
    assert budget["remaining"]["wall_time_seconds"] is None
    unknown = state["unconfirmed_tool_calls"]
    assert [u["tool_call"] for u in unknown] == [str(t.tool_call)]
    assert unknown[0]["tool"] == TOOL
    assert unknown[0]["input"] == {"to": "ann@example.org"}
    assert unknown[0]["result"] == "unconfirmed"
    assert unknown[0]["grant_revision"] == 1
    assert unknown[0]["recorded_at"]
    assert [g["tool"] for g in state["tool_grants"]] == [TOOL]
    return state


def continue_and_resolve(admin: psycopg.Connection[Any], runtime_dsn: str, t: Turn) -> None:
    """continue_run carries the spent budget over, and the unknown call can be resolved."""
    # The operator revised the persona meanwhile: recovery hands out the current one.
    admin.execute(
        "SELECT agent_state.revise_persona(agent => %(a)s, body => 'You are persona two.')",
        {"a": t.agent},
    )
    with psycopg.connect(runtime_dsn, autocommit=True) as conn:
        p = {"a": t.agent, "r": t.run}
        nxt = one(
            conn,
            "SELECT agent_state.continue_run(agent => %(a)s, run => %(r)s, task_context => %(c)s)",
            {**p, "c": Jsonb({"resume_from": 1})},
        )
        state = one(
            conn, "SELECT agent_state.recover_run(agent => %(a)s, run => %(n)s)", {**p, "n": nxt}
        )
        assert state["continued_from"] == str(t.run)
        assert state["persona"] == {"revision": 2, "body": "You are persona two."}
        spent = state["budget"]["spent"]
        assert (spent["tokens"], spent["cost_usd"], spent["tool_calls"]) == (300, 0.125, 1)
        assert [u["tool_call"] for u in state["unconfirmed_tool_calls"]] == [str(t.tool_call)]
        old = one(conn, "SELECT agent_state.recover_run(agent => %(a)s, run => %(r)s)", p)
        assert old["status"] == "handed_off"

        # Reality arrives late: the mail was sent. The old run is finished, and the
        # call can still be resolved; then nothing is unknown any more.
        conn.execute(
            "SELECT agent_state.record_tool_result(agent => %(a)s, tool_call => %(tc)s,"
            " output => '{\"delivered\": true}', status => 'ok')",
            {**p, "tc": t.tool_call},
        )
        state = one(
            conn, "SELECT agent_state.recover_run(agent => %(a)s, run => %(n)s)", {**p, "n": nxt}
        )
        assert state["unconfirmed_tool_calls"] == []
        with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):
            conn.execute(
                "SELECT agent_state.checkpoint(agent => %(a)s, run => %(r)s, frontier => '{}')", p
            )


def test_recover_after_backend_terminated(
    admin_conn: psycopg.Connection[Any], runtime_dsn: str, turn: Turn
) -> None:
    victim = psycopg.connect(runtime_dsn, autocommit=True)
    try:
        start_uncommitted_work(victim, turn)
        pid = victim.info.backend_pid
        assert (
            one(admin_conn, "SELECT state FROM pg_stat_activity WHERE pid = %(pid)s", {"pid": pid})
            == "idle in transaction"
        )
        # The open transaction holds the run row; a reader is not blocked and does
        # not see its work.
        during = one(
            admin_conn,
            "SELECT agent_state.recover_run(agent => %(a)s, run => %(r)s)",
            {"a": turn.agent, "r": turn.run},
        )
        assert during["checkpoint"] == 1
        assert during["budget"]["spent"]["tokens"] == 300
        assert one(admin_conn, "SELECT pg_terminate_backend(%(pid)s)", {"pid": pid}) is True
        wait_gone(admin_conn, pid)
        with pytest.raises(psycopg.OperationalError):
            victim.execute("SELECT 1")
    finally:
        victim.close()
    assert_recovered(admin_conn, runtime_dsn, turn)
    continue_and_resolve(admin_conn, runtime_dsn, turn)


def test_recover_after_client_process_killed(
    admin_conn: psycopg.Connection[Any], runtime_dsn: str, turn: Turn
) -> None:
    script = textwrap.dedent(
        """
        import sys, time, psycopg
        conn = psycopg.connect(sys.argv[1], autocommit=True)
        conn.execute("SELECT set_config('application_name', %s, false)", (sys.argv[2],))
        conn.execute("BEGIN")
        conn.execute(
            "SELECT agent_state.record_model_call(agent => %s, run => %s, snapshot => %s,"
            " provider => 'test', model => 'm', request => '{}', usage => '{\\"tokens\\": 500}')",
            (sys.argv[3], sys.argv[4], sys.argv[5]),
        )
        conn.execute(
            "SELECT agent_state.checkpoint(agent => %s, run => %s, frontier => '{\\"step\\": 2}')",
            (sys.argv[3], sys.argv[4]),
        )
        print("in transaction", flush=True)
        time.sleep(600)
        """
    )
    app = f"recovery-{uuid4().hex[:8]}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            script,
            runtime_dsn,
            app,
            str(turn.agent),
            str(turn.run),
            str(turn.snapshot),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line.strip() != "in transaction":
            proc.kill()
            _, err = proc.communicate(timeout=30)
            pytest.fail(f"helper process failed: {line!r} {err}")
        row = admin_conn.execute(
            "SELECT pid, state FROM pg_stat_activity WHERE application_name = %s", (app,)
        ).fetchone()
        assert row is not None and row[1] == "idle in transaction"
        proc.kill()  # SIGKILL: no rollback from the client, the socket just closes
        proc.wait(timeout=30)
        wait_gone(admin_conn, int(row[0]))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert_recovered(admin_conn, runtime_dsn, turn)
    continue_and_resolve(admin_conn, runtime_dsn, turn)
