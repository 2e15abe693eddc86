"""The LangGraph checkpointer passes LangGraph's own conformance suite
(langgraph-checkpoint-conformance, every capability it declares), sync and async,
and keeps agent_state's guarantees: purges are audited, the run ledger keeps every
row, a thread's runs continue each other, recover_run knows the resume point, and a
role that may not act for the agent is refused at first use.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg.types.json import Jsonb

import agent_state
from agent_state import AsyncStore, Store
from conftest import TestRole

conformance = pytest.importorskip("langgraph.checkpoint.conformance")
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langgraph.checkpoint.conformance import checkpointer_test, validate  # noqa: E402
from langgraph.checkpoint.conformance.report import ProgressCallbacks  # noqa: E402
from langgraph.checkpoint.conformance.test_utils import (  # noqa: E402
    generate_checkpoint,
    generate_config,
    generate_metadata,
)

from agent_state.integrations.langgraph import (  # noqa: E402
    AgentStateSaver,
    AsyncAgentStateSaver,
)


def new_agent(dsn: str) -> UUID:
    with Store(dsn) as s:
        return s.create_agent(handle=f"lg-{uuid4()}")


def failures(report: Any) -> dict[str, list[str]]:
    return {
        cap: result.failures
        for cap, result in report.results.items()
        if result.detected and result.passed is not True
    }


async def test_conformance_sync_saver(dsn: str) -> None:
    @checkpointer_test(name="AgentStateSaver")
    async def factory() -> AsyncGenerator[AgentStateSaver, None]:
        with Store(dsn) as s:
            yield AgentStateSaver(s, agent=new_agent(dsn))

    report = await validate(factory, progress=ProgressCallbacks.quiet())
    assert failures(report) == {}
    detected = {cap for cap, r in report.results.items() if r.detected}
    assert detected == {
        "put", "put_writes", "get_tuple", "list", "delete_thread", "delete_for_runs",
        "copy_thread", "prune",
    }  # fmt: skip
    assert report.conformance_level() == "FULL"


async def test_conformance_async_saver(dsn: str) -> None:
    @checkpointer_test(name="AsyncAgentStateSaver")
    async def factory() -> AsyncGenerator[AsyncAgentStateSaver, None]:
        async with AsyncStore(dsn) as s:
            yield AsyncAgentStateSaver(s, agent=new_agent(dsn))

    report = await validate(factory, progress=ProgressCallbacks.quiet())
    assert failures(report) == {}
    assert report.conformance_level() == "FULL"


@pytest.fixture
def saver(dsn: str) -> Iterator[AgentStateSaver]:
    with Store(dsn) as s:
        yield AgentStateSaver(s, agent=new_agent(dsn))


def put(saver: AgentStateSaver, thread: str, parent: RunnableConfig | None = None,
        **md: Any) -> RunnableConfig:  # fmt: skip
    config = generate_config(thread)
    if parent:
        config["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
    return saver.put(config, generate_checkpoint(), generate_metadata(**md), {})


def test_runs_continue_and_recover_run_knows_the_resume_point(
    saver: AgentStateSaver, dsn: str
) -> None:
    thread = str(uuid4())
    first = put(saver, thread, run_id="r1")
    second = put(saver, thread, first, run_id="r1", step=1)
    third = put(saver, thread, second, run_id="r2", step=2)
    with psycopg.connect(dsn) as conn:
        runs = conn.execute(
            "SELECT g.graph_run_id, r.run_id, r.continued_from, r.status"
            " FROM agent_state.graph_runs AS g JOIN agent_state.runs AS r"
            " ON r.runtime_agent_id = g.runtime_agent_id AND r.run_id = g.run_id"
            " WHERE g.runtime_agent_id = %s ORDER BY g.created_at",
            [saver.agent],
        ).fetchall()
    assert [r[0] for r in runs] == ["r1", "r2"]
    assert runs[1][2] == runs[0][1], "the second LangGraph run continues the first"
    assert runs[0][3] == "handed_off"
    recovered = saver.store.recover_run(agent=saver.agent, run=runs[1][1])
    assert recovered["frontier"] == {
        "thread_id": thread, "checkpoint_ns": "",
        "checkpoint_id": third["configurable"]["checkpoint_id"],
    }  # fmt: skip


def test_purges_are_audited_and_the_ledger_stays(saver: AgentStateSaver, dsn: str) -> None:
    thread = str(uuid4())
    a = put(saver, thread, run_id="r1")
    b = put(saver, thread, a, run_id="r1")
    saver.put_writes(b, [("ch", "v")], "task-1")
    with psycopg.connect(dsn) as conn:
        ledger = conn.execute(
            "SELECT count(*) FROM agent_state.checkpoints WHERE runtime_agent_id = %s",
            [saver.agent],
        ).fetchone()
    saver.prune([thread], strategy="keep_latest")
    saver.delete_thread(thread)
    assert list(saver.list(generate_config(thread))) == []
    with psycopg.connect(dsn) as conn:
        purges = conn.execute(
            "SELECT reason, removed, created_by FROM agent_state.graph_purges"
            " WHERE runtime_agent_id = %s ORDER BY purge_id",
            [saver.agent],
        ).fetchall()
        after = conn.execute(
            "SELECT count(*) FROM agent_state.checkpoints WHERE runtime_agent_id = %s",
            [saver.agent],
        ).fetchone()
        assert [p[0] for p in purges] == ["prune keep_latest", "delete_thread"]
        assert purges[0][1]["checkpoints"] == [
            {"checkpoint_ns": "", "checkpoint_id": a["configurable"]["checkpoint_id"]}
        ]
        assert after == ledger, "the run ledger never loses a row"
        # Payloads cannot be removed or changed without a purge, by anyone.
        put(saver, thread, run_id="r3")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "DELETE FROM agent_state.graph_checkpoints WHERE runtime_agent_id = %s",
                [saver.agent],
            )
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "UPDATE agent_state.graph_checkpoints SET metadata = '{}'"
                " WHERE runtime_agent_id = %s",
                [saver.agent],
            )


def test_direct_dml_deletes_only_what_its_purge_lists(saver: AgentStateSaver, dsn: str) -> None:
    """A role other than the owner (here a superuser) that writes a purge record may
    delete the checkpoints it lists, and nothing else of the thread."""
    thread = str(uuid4())
    a = put(saver, thread, run_id="r1")
    b = put(saver, thread, a, run_id="r1")
    listed = {"checkpoint_ns": "", "checkpoint_id": a["configurable"]["checkpoint_id"]}
    role = f"as_purger_{uuid4().hex[:8]}"
    with psycopg.connect(dsn) as conn:  # one transaction, rolled back
        conn.execute(f"CREATE ROLE {role} SUPERUSER")
        conn.execute(f"SET ROLE {role}")
        conn.execute(
            "INSERT INTO agent_state.graph_purges (runtime_agent_id, thread_id, reason, removed)"
            " VALUES (%s, %s, 'by hand', %s)",
            [saver.agent, thread, Jsonb({"checkpoints": [listed]})],
        )
        conn.execute("SAVEPOINT s")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="not listed"):
            conn.execute(
                "DELETE FROM agent_state.graph_checkpoints"
                " WHERE runtime_agent_id = %s AND thread_id = %s AND checkpoint_id = %s",
                [saver.agent, thread, b["configurable"]["checkpoint_id"]],
            )
        conn.execute("ROLLBACK TO SAVEPOINT s")
        deleted = conn.execute(
            "DELETE FROM agent_state.graph_checkpoints"
            " WHERE runtime_agent_id = %s AND thread_id = %s AND checkpoint_id = %s",
            [saver.agent, thread, a["configurable"]["checkpoint_id"]],
        ).rowcount
        assert deleted == 1
        conn.rollback()


def test_a_role_that_may_not_act_for_the_agent_is_refused(
    dsn: str, make_role: Callable[..., TestRole]
) -> None:
    agent = new_agent(dsn)
    stranger = make_role("agent_state_runtime")
    with Store(stranger.dsn(dsn)) as s:
        saver = AgentStateSaver(s, agent=agent)
        with pytest.raises(agent_state.PermissionDenied):
            saver.get_tuple(generate_config())
        with pytest.raises(agent_state.PermissionDenied):
            list(saver.list(None))


def test_a_transaction_pooler_setting(dsn: str) -> None:
    """Behind a transaction pooler: no prepared statements, no session state."""
    conn = psycopg.connect(dsn, autocommit=True, prepare_threshold=None)
    with Store(conn, owned=True) as s:
        saver = AgentStateSaver(s, agent=new_agent(dsn))
        thread = str(uuid4())
        for _ in range(8):  # more than psycopg's default prepare threshold (5)
            put(saver, thread)
            assert saver.get_tuple(generate_config(thread)) is not None
        assert len(list(saver.list(generate_config(thread)))) == 8


@pytest.mark.parametrize(
    "field, value",
    [("checkpoint_ns", "n" * 1001), ("channels", ["c" * 1001]), ("value_types", ["t" * 1001])],
)
def test_overlong_write_keys_are_refused(saver: AgentStateSaver, field: str, value: Any) -> None:
    args: dict[str, Any] = {
        "agent": saver.agent, "thread_id": str(uuid4()), "checkpoint_ns": "",
        "checkpoint_id": "1", "task_id": "t", "task_path": "", "idxs": [0],
        "channels": ["c"], "value_types": ["json"], "writes_values": [b"{}"],
    }  # fmt: skip
    args[field] = value
    with pytest.raises(agent_state.InvalidArgument, match=field.rstrip("s")):
        saver.store.graph_put_writes(**args)


def test_not_json_metadata_is_refused(saver: AgentStateSaver) -> None:
    with pytest.raises(agent_state.InvalidArgument, match=r"metadata\.bad"):
        saver.put(generate_config(), generate_checkpoint(), generate_metadata(bad=object()), {})


def test_checkpoint_ids_order_by_their_bytes_whatever_the_database_collation(
    saver: AgentStateSaver, dsn: str
) -> None:
    """LangGraph orders checkpoint ids as strings of bytes; a linguistic collation
    (en_US and the like ignore '-' at first) would put "1-3" after "12". The id
    columns are COLLATE "C", so the newest first is "12", then "1-3", on any
    cluster; and the primary key reads a thread's latest without sorting it."""
    thread = str(uuid4())
    with psycopg.connect(dsn, autocommit=True) as conn:
        for cid, parent in (("1-3", None), ("12", "1-3")):
            conn.execute(
                "SELECT agent_state.graph_put(%s, %s, '', %s, %s, 'json', '\\x7b7d'::bytea, '{}')",
                [saver.agent, thread, cid, parent],
            )
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT checkpoint_id FROM agent_state.graph_list(%s, %s)", [saver.agent, thread]
            )
        ]
        collations = conn.execute(
            "SELECT a.attrelid::regclass::text, a.attname, c.collname"
            " FROM pg_attribute AS a JOIN pg_collation AS c ON c.oid = a.attcollation"
            " WHERE a.attrelid IN ('agent_state.graph_checkpoints'::regclass,"
            "                      'agent_state.graph_writes'::regclass)"
            "   AND a.attname IN ('checkpoint_id', 'parent_checkpoint_id')"
            " ORDER BY 1, 2"
        ).fetchall()
    assert ids == ["12", "1-3"]
    assert collations == [
        ("agent_state.graph_checkpoints", "checkpoint_id", "C"),
        ("agent_state.graph_checkpoints", "parent_checkpoint_id", "C"),
        ("agent_state.graph_writes", "checkpoint_id", "C"),
    ]
