"""Tamper evidence over committed history (SPEC section 14): heads taken earlier stay a
prefix of every later history (never a false alarm), a head held outside the database
finds a truncated or rolled-back history, dump/restore and export/import keep every
chain verifiable, and the wrapper's witness keeps heads in a file that
``agent-state verify --witness`` reads back. The attacks on single records are in
tests/pgtap/530_chains.sql."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg.types.json import Jsonb

import agent_state
import lifecycle as lc
from agent_state import ChainHead, Store
from agent_state.cli import main as cli_main
from agent_state.witness import newest_head
from conftest import new_handle


def findings(dsn: str, agent: Any, head: str | None = None) -> list[tuple[str, str, str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [
            tuple(r)
            for r in conn.execute("SELECT * FROM agent_state.verify(%s, %s)", [agent, head])
        ]


def head_of(dsn: str, agent: Any) -> str:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT digest FROM agent_state.chain_head(%s)", [agent]).fetchone()
        assert row is not None
        return str(row[0])


def tamper(dsn: str, statement: str, *args: Any) -> None:
    """Run a statement as a superuser with every trigger off."""
    with psycopg.connect(dsn) as conn:
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(statement, list(args))


def write_some(store: Store, agent: UUID, n: int, word: str) -> list[UUID]:
    return [store.note(agent=agent, body=f"{word} fact number {i}").entry for i in range(n)]


@pytest.fixture
def db(admin_dsn: str) -> Iterator[str]:
    if not lc.extension_available(admin_dsn, lc.control_version()):
        pytest.skip("agent_state extension files are not installed on this server")
    lc.ensure_host_role(admin_dsn)
    with lc.scratch_db(admin_dsn, "chains") as dsn:
        lc.install(dsn, "extension")
        yield dsn


def test_an_older_head_is_a_prefix_of_every_later_history(db: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        entries = write_some(store, agent, 3, "early")
        first = store.chain_head(agent=agent)
        assert first.position > 0
        store.amend(agent=agent, entry=entries[0], body="early fact amended", expected_revision=1)
        store.revise_persona(agent=agent, body="Be brief")
        run = store.start_run(agent=agent)
        store.finish_run(agent=agent, run=run, outcome="succeeded")
        store.redact(agent=agent, entry=entries[1], reason="erasure test")
        second = store.chain_head(agent=agent)
        assert second.position > first.position
        assert store.verify(agent=agent, expected_head=first.digest) == []
        assert store.verify(agent=agent, expected_head=second.digest) == []
        assert store.verify(agent=agent) == []


def test_a_head_taken_while_another_transaction_writes_stays_valid(db: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        write_some(store, agent, 2, "before")
    with psycopg.connect(db) as writer:
        writer.execute("SELECT agent_state.note(%s, 'written while a head was taken')", [agent])
        head = head_of(db, agent)  # the writer has not committed
        writer.commit()
    assert findings(db, agent, head) == []
    later = head_of(db, agent)
    assert later != head
    assert findings(db, agent, later) == []


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_a_head_leaves_out_its_own_transaction(db: str, outcome: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        write_some(store, agent, 1, "committed")
    with psycopg.connect(db) as conn:
        conn.execute("SELECT agent_state.note(%s, 'maybe kept')", [agent])
        row = conn.execute("SELECT position, digest FROM agent_state.chain_head(%s)", [agent])
        position, head = row.fetchone() or (None, None)
        getattr(conn, outcome)()
    assert findings(db, agent, head) == [], f"no false alarm after a {outcome}"
    with psycopg.connect(db, autocommit=True) as conn:
        now = conn.execute("SELECT position FROM agent_state.chain_head(%s)", [agent]).fetchone()
    assert now is not None
    assert (now[0] > position) if outcome == "commit" else (now[0] == position)


def test_truncation_is_found_with_a_held_head(db: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        entries = write_some(store, agent, 4, "kept")
        head = store.chain_head(agent=agent).digest
    # T2: the newest entry removed whole (revision and entry): nothing dangles.
    tamper(db, "DELETE FROM agent_state.memory_revisions WHERE entry_id = %s", entries[-1])
    tamper(db, "DELETE FROM agent_state.memory_entries WHERE entry_id = %s", entries[-1])
    found = findings(db, agent, head)
    assert [f[0] for f in found] == ["chain_head"]
    assert "shorter" in found[0][2]


def test_a_rewritten_history_with_recomputed_digests_is_found_with_a_held_head(db: str) -> None:
    """An attacker who knows the scheme recomputes the digest of what he changed."""
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        entries = write_some(store, agent, 3, "true")
        head = store.chain_head(agent=agent).digest
    tamper(
        db,
        "UPDATE agent_state.memory_revisions SET body = 'a lie' WHERE entry_id = %s",
        entries[1],
    )
    tamper(
        db,
        "UPDATE agent_state.memory_entries SET body = 'a lie' WHERE entry_id = %s",
        entries[1],
    )
    with psycopg.connect(db) as conn:
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("SET LOCAL TimeZone = 'UTC'")
        conn.execute(
            "UPDATE agent_state.memory_revisions AS r SET chain_digest ="
            " agent_state._chain_digest('memory_revisions', to_jsonb(r), '{}', 'body')"
            " WHERE entry_id = %s",
            [entries[1]],
        )
    assert findings(db, agent) == [], "the recomputed digest passes every check in the database"
    assert [f[0] for f in findings(db, agent, head)] == ["chain_head"]


def test_dump_restore_keeps_the_chains_and_a_held_head_finds_a_rollback(
    db: str, admin_dsn: str, tmp_path: Path
) -> None:
    bindir = lc.server_bindir(db)
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        write_some(store, agent, 3, "dumped")
        before = store.chain_head(agent=agent).digest
        lc.run_tool(bindir, "pg_dump", ["-F", "c", "-f", str(tmp_path / "old.dump")], db)
        write_some(store, agent, 1, "after the dump")  # T9: the newest record
        newest = store.chain_head(agent=agent).digest
    with lc.scratch_db(admin_dsn, "chains_restored") as restored:
        lc.run_tool(
            bindir,
            "pg_restore",
            ["--exit-on-error", "--single-transaction", "-d", lc.conninfo_dbname(restored),
             str(tmp_path / "old.dump")],
            restored,
        )  # fmt: skip
        assert findings(restored, agent) == [], "a restore keeps every chain verifiable"
        assert findings(restored, agent, before) == []
        rolled_back = findings(restored, agent, newest)
        assert [f[0] for f in rolled_back] == ["chain_head"], "T9: the rollback is found"
        with agent_state.connect(restored) as store:
            write_some(store, agent, 2, "after the restore")
        assert findings(restored, agent, before) == [], "writes after a restore keep old heads"


def test_export_import_keeps_the_chain_and_its_heads(db: str, admin_dsn: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        entries = write_some(store, agent, 3, "moved")
        store.redact(agent=agent, entry=entries[0], reason="before the move")
        head = store.chain_head(agent=agent).digest
        doc = store.export_agent(agent=agent)
    with lc.scratch_db(admin_dsn, "chains_import") as target:
        lc.install(target, "extension")
        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute("SELECT agent_state.import_agent(%s)", [Jsonb(doc)])
        assert findings(target, agent) == []
        assert findings(target, agent, head) == [], "a head taken at the source holds after a move"
        assert head_of(target, agent).split("/")[-1] == head.split("/")[-1]


def test_a_fork_has_a_chain_of_its_own(db: str) -> None:
    with agent_state.connect(db) as store:
        origin = store.create_agent(handle=new_handle())
        write_some(store, origin, 3, "forked")
        store.revise_persona(agent=origin, body="Origin persona")
        fork = store.fork_agent(agent=origin, handle=new_handle())
        assert store.verify(agent=fork) == []
        assert store.verify(agent=origin) == []
        origin_head = store.chain_head(agent=origin).digest
        found = store.verify(agent=fork, expected_head=origin_head)
        assert [v.check_name for v in found] == ["chain_head"], (
            "the origin's head is not the fork's"
        )


def test_verify_with_a_head_runs_in_a_read_only_transaction(db: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        write_some(store, agent, 2, "read only")
        head = store.chain_head(agent=agent).digest
    with psycopg.connect(db) as conn:
        conn.execute("SET TRANSACTION READ ONLY")
        rows = conn.execute("SELECT * FROM agent_state.verify(%s, %s)", [agent, head]).fetchall()
        assert rows == []


def test_the_witness_keeps_heads_and_the_cli_checks_against_the_newest(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    witness = tmp_path / "heads.jsonl"
    seen: list[tuple[UUID, ChainHead]] = []
    with agent_state.connect(db) as plain:
        agent = plain.create_agent(handle=new_handle())
    with (
        Store(db, witness=witness) as store,
        Store(db, witness=lambda a, h: seen.append((a, h))) as cb,
    ):
        first = store.note(agent=agent, body="the first fact").entry
        store.note(agent=agent, body="the second fact")
        store.recall(agent=agent, query="fact")  # a read records nothing
        cb.note(agent=agent, body="the third fact")
        lines = witness.read_text().splitlines()
        assert len(lines) == 2
        assert [a for a, _ in seen] == [agent]
        assert isinstance(seen[0][1], ChainHead)
        newest = newest_head(witness, agent)
        assert newest is not None and newest in lines[-1]
        assert store.verify(agent=agent, expected_head=newest) == []
        assert newest_head(witness, UUID(int=0)) is None
    assert cli_main(["verify", "--dsn", db, "--agent", str(agent), "--witness", str(witness)]) == 0
    tamper(db, "DELETE FROM agent_state.memory_revisions WHERE entry_id = %s", first)
    tamper(db, "DELETE FROM agent_state.memory_entries WHERE entry_id = %s", first)
    capsys.readouterr()
    assert cli_main(["verify", "--dsn", db, "--agent", str(agent), "--witness", str(witness)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("chain_head\t")
    assert "problem(s) found up to the held head" in err
    assert cli_main(["verify", "--dsn", db, "--witness", str(witness)]) == 1
    assert "--witness needs --agent" in capsys.readouterr().err


def test_the_async_store_keeps_heads_too(db: str) -> None:
    seen: list[tuple[UUID, ChainHead]] = []

    async def flow() -> UUID:
        async with agent_state.AsyncStore(db, witness=lambda a, h: seen.append((a, h))) as store:
            agent = await store.create_agent(handle=new_handle())
            await store.note(agent=agent, body="an async fact")
            await store.recall(agent=agent, query="fact")  # a read records nothing
            return agent

    agent = asyncio.run(flow())
    assert [a for a, _ in seen] == [agent]
    with agent_state.connect(db) as store:
        assert store.verify(agent=agent, expected_head=seen[0][1].digest) == []
        store.note(agent=agent, body="a later fact")
        assert store.verify(agent=agent, expected_head=seen[0][1].digest) == []
    tamper(db, "UPDATE agent_state.memory_revisions SET body = 'changed' WHERE body = %s",
           "an async fact")  # fmt: skip
    with agent_state.connect(db) as store:
        assert store.verify(agent=agent, expected_head=seen[0][1].digest) != []


def test_a_tampered_record_raises_tampered_in_the_wrapper(db: str) -> None:
    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        entry = store.note(agent=agent, body="the launch is in May").entry
        tamper(
            db,
            "UPDATE agent_state.memory_revisions SET body = 'no launch' WHERE entry_id = %s",
            entry,
        )
        with pytest.raises(agent_state.Tampered) as raised:
            store.memory_history(agent=agent, entry=entry)
        assert raised.value.sqlstate == "XX001"
        assert str(entry) in str(raised.value)


def test_a_langgraph_purge_keeps_older_heads_valid(db: str) -> None:
    """delete_thread removes checkpoints an older head covers; the purge record keeps
    their links (graph_purges.chain_removed), so that head still verifies."""
    from langgraph.checkpoint.base import create_checkpoint, empty_checkpoint

    from agent_state.integrations.langgraph import AgentStateSaver

    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        saver = AgentStateSaver(store, agent=agent)
        cfg: Any = {"configurable": {"thread_id": "purged", "checkpoint_ns": ""}}
        cp = empty_checkpoint()
        for i in range(3):
            cp = create_checkpoint(cp, {"state": i}, i)  # type: ignore[dict-item]
            cfg = saver.put(cfg, cp, {"source": "loop", "step": i}, {})
        head = store.chain_head(agent=agent).digest
        saver.delete_thread("purged")
        assert saver.get_tuple({"configurable": {"thread_id": "purged"}}) is None
        assert store.verify(agent=agent, expected_head=head) == []
        assert store.verify(agent=agent) == []


def test_a_direct_purge_keeps_older_heads_valid_too(db: str) -> None:
    """An operator's own purge (a purge record, then the DELETE it allows) records
    the links of what it removes by the same rule, whatever the writer gives:
    heads taken before it still verify."""
    from langgraph.checkpoint.base import create_checkpoint, empty_checkpoint

    from agent_state.integrations.langgraph import AgentStateSaver

    with agent_state.connect(db) as store:
        agent = store.create_agent(handle=new_handle())
        saver = AgentStateSaver(store, agent=agent)
        cfg: Any = {"configurable": {"thread_id": "by-hand", "checkpoint_ns": ""}}
        cp = empty_checkpoint()
        for i in range(2):
            cp = create_checkpoint(cp, {"state": i}, i)  # type: ignore[dict-item]
            cfg = saver.put(cfg, cp, {"source": "loop", "step": i}, {})
        gone = cfg["configurable"]["checkpoint_id"]
        head = store.chain_head(agent=agent).digest
    with psycopg.connect(db) as conn:  # one transaction: the purge and its delete
        conn.execute(
            "INSERT INTO agent_state.graph_purges"
            " (runtime_agent_id, thread_id, reason, removed, chain_removed)"
            " VALUES (%s, 'by-hand', 'by hand', %s, '[]')",
            [agent, Jsonb({"checkpoints": [{"checkpoint_ns": "", "checkpoint_id": gone}]})],
        )
        conn.execute(
            "DELETE FROM agent_state.graph_checkpoints"
            " WHERE runtime_agent_id = %s AND thread_id = 'by-hand' AND checkpoint_id = %s",
            [agent, gone],
        )
    with agent_state.connect(db) as store:
        assert store.verify(agent=agent, expected_head=head) == []
        assert store.verify(agent=agent) == []
