#!/usr/bin/env python3
"""Crash harness: no acknowledged write is lost, no failed write appears, every
invariant holds after the server is killed at random moments (SPEC section 2).

Four writers (remember, amend, record_message, a whole turn) write concurrently to a
throwaway cluster with fsync on. Every write carries a unique token. A writer marks a
write *acknowledged* when COMMIT returned, *failed* when an error came before COMMIT
was sent, and *unknown* when the connection broke during COMMIT (the one outcome a
client cannot know). A killer sends SIGKILL to the postmaster at random moments; the
cluster then restarts (crash recovery) and the writers reconnect. After the last
cycle:

- every acknowledged write is there, no failed write is there;
- agent_state.verify() reports no violated invariant (entry equals its latest
  revision, revision evidence, budgets equal the sum of their charges, gapless
  checkpoint and result numbers, snapshot sources and hashes, ...) and no broken
  hash chain, and every head taken before a crash still verifies;
- the amend chain is gapless: each acknowledged amend is the revision it expected;
- pg_amcheck (heap and btree, all databases) reports nothing.

Prints the counts and exits non-zero on any loss or violation.

Usage: python3 tests/lifecycle/crash.py [--cycles 20] [--seed N] [--bindir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import psycopg  # noqa: E402

from agent_state.embedded import TemporaryCluster, find_bindir  # noqa: E402

BUNDLE = ROOT / "python" / "agent_state" / "sql" / "agent_state.sql"


@dataclass
class Ledger:
    """What one writer saw."""

    kind: str
    acknowledged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    # amend: (token, revision the write expected to create), acknowledged only
    revisions: list[tuple[str, int]] = field(default_factory=list)


class Writer(threading.Thread):
    def __init__(self, kind: str, dsn: str, ids: dict[str, Any], stop: threading.Event) -> None:
        super().__init__(name=f"writer-{kind}", daemon=True)
        self.kind = kind
        self.dsn = dsn
        self.ids = ids
        self.stop_event = stop
        self.ledger = Ledger(kind)
        self.conn: psycopg.Connection[Any] | None = None
        self.expected_revision: int | None = None
        self.error: BaseException | None = None

    def connect(self) -> psycopg.Connection[Any]:
        while not self.stop_event.is_set():
            try:
                return psycopg.connect(self.dsn, connect_timeout=2)
            except psycopg.OperationalError:
                time.sleep(0.05)
        raise SystemExit

    def run(self) -> None:
        try:
            while not self.stop_event.is_set():
                if self.conn is None or self.conn.closed:
                    self.conn = self.connect()
                    if self.kind == "amend":
                        self.expected_revision = self.current_revision()
                self.one_write()
        except SystemExit:
            pass
        except BaseException as exc:  # reported by the main thread
            self.error = exc
        finally:
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    self.conn.close()

    def current_revision(self) -> int:
        assert self.conn is not None
        row = self.conn.execute(
            "SELECT current_revision FROM agent_state.memory_entries"
            " WHERE runtime_agent_id = %s AND entry_id = %s",
            [self.ids["agent"], self.ids["entry"]],
        ).fetchone()
        self.conn.rollback()
        assert row is not None
        return int(row[0])

    def one_write(self) -> None:
        conn = self.conn
        assert conn is not None
        token = f"{self.kind}-{uuid.uuid4().hex}"
        try:
            self.write(conn, token)
        except psycopg.OperationalError:
            # Before COMMIT was sent: the transaction cannot have committed.
            self.ledger.failed.append(token)
            with contextlib.suppress(Exception):
                conn.close()
            return
        try:
            conn.commit()
        except psycopg.OperationalError:
            self.ledger.unknown.append(token)
            with contextlib.suppress(Exception):
                conn.close()
            return
        self.ledger.acknowledged.append(token)
        if self.kind == "amend":
            assert self.expected_revision is not None
            self.expected_revision += 1
            self.ledger.revisions.append((token, self.expected_revision))

    def write(self, conn: psycopg.Connection[Any], token: str) -> None:
        i = self.ids
        if self.kind == "remember":
            conn.execute(
                "SELECT * FROM agent_state.remember(agent => %s, body => %s,"
                " source_message => %s, subject => %s)",
                [i["agent"], f"Ann said {token}", i["message"], i["ann"]],
            )
        elif self.kind == "amend":
            conn.execute(
                "SELECT agent_state.amend(agent => %s, entry => %s, body => %s,"
                " expected_revision => %s)",
                [i["agent"], i["entry"], f"Ann now says {token}", self.expected_revision],
            )
        elif self.kind == "record_message":
            conn.execute(
                "SELECT agent_state.record_message(agent => %s, conversation => %s, author => %s,"
                " body => %s, audience => %s, external_ref => %s)",
                [i["agent"], i["conv"], i["ann"], f"message {token}", [i["ann"]], token],
            )
        else:  # a whole turn: snapshot, model call, tool call and result, checkpoint
            snap = conn.execute(
                "SELECT agent_state.snapshot_prompt(agent => %s, run => %s, prompt => %s)",
                [i["agent"], i["run"], f"prompt {token} " + "x" * 2000],
            ).fetchone()
            assert snap is not None
            call = conn.execute(
                "SELECT agent_state.record_model_call(agent => %s, run => %s, snapshot => %s,"
                " provider => 'fake', model => 'fake-1', request => %s::jsonb,"
                ' usage => \'{"tokens": 7, "cost_usd": 0.001}\')',
                [i["agent"], i["run"], snap[0], f'{{"token": "{token}"}}'],
            ).fetchone()
            assert call is not None
            tool = conn.execute(
                "SELECT agent_state.record_tool_call(agent => %s, run => %s, tool => 'search',"
                " input => %s::jsonb, model_call => %s)",
                [i["agent"], i["run"], f'{{"token": "{token}"}}', call[0]],
            ).fetchone()
            assert tool is not None
            conn.execute(
                "SELECT agent_state.record_tool_result(agent => %s, tool_call => %s,"
                " output => '{}', status => 'unconfirmed')",
                [i["agent"], tool[0]],
            )
            conn.execute(
                "SELECT agent_state.checkpoint(agent => %s, run => %s, frontier => %s::jsonb)",
                [i["agent"], i["run"], f'{{"token": "{token}"}}'],
            )


# Every token of each kind that is in the database (a token appears once at most).
PRESENT = {
    "remember": "SELECT substr(body, 10) FROM agent_state.memory_revisions"
    " WHERE body LIKE 'Ann said remember-%'",
    "amend": "SELECT substr(body, 14) FROM agent_state.memory_revisions"
    " WHERE body LIKE 'Ann now says amend-%'",
    "record_message": "SELECT external_ref FROM agent_state.messages"
    " WHERE external_ref LIKE 'record_message-%'",
    "turn": "SELECT frontier ->> 'token' FROM agent_state.checkpoints WHERE frontier ? 'token'",
}


def setup(dsn: str) -> dict[str, Any]:
    def one(conn: psycopg.Connection[Any], query: str, params: list[Any] | None = None) -> Any:
        row = conn.execute(query, params).fetchone()
        assert row is not None
        return row[0]

    with psycopg.connect(dsn, autocommit=True) as conn:
        available = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'agent_state'"
        ).fetchone()
        if available:
            conn.execute("CREATE EXTENSION agent_state")
        else:
            with conn.transaction():
                conn.execute(BUNDLE.read_text())
        agent = one(conn, "SELECT agent_state.create_agent(handle => 'crash')")
        ann = one(
            conn,
            "SELECT agent_state.resolve_actor(agent => %s, connector => 'c', external_id => 'ann')",
            [agent],
        )
        conv = one(
            conn,
            "SELECT agent_state.open_conversation(agent => %s, connector => 'c',"
            " external_ref => 'c1', kind => 'direct')",
            [agent],
        )
        message = one(
            conn,
            "SELECT agent_state.record_message(agent => %s, conversation => %s, author => %s,"
            " body => 'hello', audience => ARRAY[%s]::uuid[])",
            [agent, conv, ann, ann],
        )
        entry = one(
            conn,
            "SELECT entry FROM agent_state.remember(agent => %s, body => 'Ann says hello',"
            " source_message => %s)",
            [agent, message],
        )
        conn.execute(
            "SELECT agent_state.register_tool(name => 'search', version => '1',"
            " config_schema => '{}')"
        )
        conn.execute(
            "SELECT agent_state.grant_tool(agent => %s, tool => 'search', enabled => true)",
            [agent],
        )
        run = one(
            conn, "SELECT agent_state.start_run(agent => %s, conversation => %s)", [agent, conv]
        )
    return {"agent": agent, "ann": ann, "conv": conv, "message": message, "entry": entry,
            "run": run}  # fmt: skip


def postmaster_pid(cluster: TemporaryCluster) -> int:
    return int((cluster.datadir / "postmaster.pid").read_text().split("\n", 1)[0])


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def crash(cluster: TemporaryCluster) -> None:
    """SIGKILL the postmaster; its backends exit on their own once they notice (a
    straggler after 10 s is killed too, as a power loss would), then restart."""
    pid = postmaster_pid(cluster)
    kids = children(pid)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.02)
    for k in kids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(k, signal.SIGKILL)
    while any(alive(k) for k in kids):
        time.sleep(0.02)
    cluster._run(
        [str(cluster.bindir / "pg_ctl"), "-D", str(cluster.datadir), "-l", str(cluster.log_path),
         "-w", "-t", "120", "start"]
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cycles", type=int, default=20)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--min-interval", type=float, default=0.3)
    ap.add_argument("--max-interval", type=float, default=1.5)
    ap.add_argument("--bindir", default=os.environ.get("AGENT_STATE_TEST_BINDIR"))
    ap.add_argument(
        "--synchronous-commit",
        default="on",
        help="server setting; 'off' acknowledges commits before their WAL is written, "
        "which shows the harness catching lost writes",
    )
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    bindir = Path(args.bindir) if args.bindir else find_bindir()
    print(f"crash harness: {args.cycles} cycles, seed {seed}, server {bindir}", flush=True)

    settings = {"synchronous_commit": args.synchronous_commit}
    if args.synchronous_commit == "off":
        settings["wal_writer_delay"] = "10000ms"  # make the window wide
    cluster = TemporaryCluster(bindir=bindir, fsync=True, settings=settings)
    cluster.start()
    try:
        with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE crash")
        dsn = cluster.dsn("crash")
        ids = setup(dsn)
        stop = threading.Event()
        writers = [
            Writer(k, dsn, ids, stop) for k in ("remember", "amend", "record_message", "turn")
        ]
        for w in writers:
            w.start()
        started = time.monotonic()
        heads: list[str] = []
        for cycle in range(1, args.cycles + 1):
            time.sleep(rng.uniform(args.min_interval, args.max_interval))
            # A head of the agent the writers write to, taken while they run: it
            # must verify after every later crash (SPEC section 14).
            with psycopg.connect(dsn, autocommit=True) as conn:
                row = conn.execute(
                    "SELECT digest FROM agent_state.chain_head(%s)", [ids["agent"]]
                ).fetchone()
                assert row is not None
                heads.append(str(row[0]))
            crash(cluster)
            done = sum(len(w.ledger.acknowledged) for w in writers)
            print(f"  cycle {cycle:2d}: killed and recovered; {done} writes acknowledged so far",
                  flush=True)  # fmt: skip
        time.sleep(args.min_interval)
        stop.set()
        for w in writers:
            w.join(timeout=60)
        elapsed = time.monotonic() - started
        errors = [f"{w.kind}: {w.error!r}" for w in writers if w.error is not None]
        return report(cluster, dsn, ids, writers, args.cycles, elapsed, errors, heads)
    finally:
        cluster.stop()


def report(
    cluster: TemporaryCluster,
    dsn: str,
    ids: dict[str, Any],
    writers: list[Writer],
    cycles: int,
    elapsed: float,
    errors: list[str],
    heads: list[str],
) -> int:
    lost: list[str] = []
    appeared: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for w in writers:
            present = Counter(str(r[0]) for r in conn.execute(PRESENT[w.kind]).fetchall())
            lost += [t for t in w.ledger.acknowledged if present[t] != 1]
            appeared += [t for t in w.ledger.failed if present[t] != 0]
        violations = conn.execute("SELECT * FROM agent_state.verify()").fetchall()
        for head in heads:
            violations += conn.execute(
                "SELECT * FROM agent_state.verify(%s, %s)", [ids["agent"], head]
            ).fetchall()
        amend = next(w for w in writers if w.kind == "amend")
        for token, revision in amend.ledger.revisions:
            row = conn.execute(
                "SELECT revision FROM agent_state.memory_revisions"
                " WHERE entry_id = %s AND body = 'Ann now says ' || %s",
                [ids["entry"], token],
            ).fetchone()
            if row is None or row[0] != revision:
                violations.append(
                    ("amend chain", token, f"expected revision {revision}, got {row}")
                )
    amcheck = run_amcheck(cluster)
    amcheck_line = "clean" if amcheck is None else ("skipped" if amcheck == SKIPPED else "FAILED")
    if amcheck == SKIPPED:
        print(f"pg_amcheck {SKIPPED}")
        amcheck = None
    acknowledged = sum(len(w.ledger.acknowledged) for w in writers)
    print()
    print(f"cycles                 {cycles} ({elapsed:.0f} s)")
    for w in writers:
        print(f"  {w.kind:<16} acknowledged {len(w.ledger.acknowledged):6d}  failed "
              f"{len(w.ledger.failed):4d}  unknown {len(w.ledger.unknown):3d}")  # fmt: skip
    print(f"acknowledged writes    {acknowledged}")
    print(f"lost                   {len(lost)}")
    print(f"failed but present     {len(appeared)}")
    print(f"invariant violations   {len(violations)}")
    print(f"pg_amcheck             {amcheck_line}")
    for v in violations[:20]:
        print(f"  violation: {v}")
    for token in (lost + appeared)[:20]:
        print(f"  wrong outcome: {token}")
    if amcheck:
        print(amcheck)
    for e in errors:
        print(f"  writer error: {e}")
    ok = not (lost or appeared or violations or amcheck or errors) and acknowledged > 0
    print("result                 " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


SKIPPED = "skipped: the amcheck extension is not installed for this server"


def run_amcheck(cluster: TemporaryCluster) -> str | None:
    """pg_amcheck over every database; None when it reports nothing, SKIPPED when the
    server has no amcheck (the embedded extra's PostgreSQL 18 has no contrib)."""
    program = cluster.bindir / "pg_amcheck"
    if not program.is_file():
        return f"{program} not found"
    with psycopg.connect(cluster.dsn()) as conn:
        found = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'amcheck'")
        if found.fetchone() is None:
            return SKIPPED
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(cluster.env())
    proc = subprocess.run(
        [str(program), "--all", "--install-missing", "--heapallindexed", "--no-dependent-toast"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if proc.returncode == 0 and not proc.stdout.strip():
        return None
    return f"pg_amcheck exited with {proc.returncode}:\n{proc.stdout}{proc.stderr}"


if __name__ == "__main__":
    sys.exit(main())
