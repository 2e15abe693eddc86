"""agent_state behind agmi's adapter contract (agent-memory-integrity, agmi/adapters/base.py).

Two adapters, one per way agents keep memory here:

* ``AgentStateMemoryAdapter``: memory entries written with ``Store.note``; a record is
  one memory revision (``memory_revisions``), its entry (``memory_entries``, what
  recall reads) kept in step with it as an attacker would.
* ``AgentStateSaverAdapter``: LangGraph checkpoints written with ``AgentStateSaver``; a
  record is one row of ``graph_checkpoints``.

The attacks edit the raw rows as a superuser with every trigger off
(``session_replication_role = replica``). Each adapter's store keeps the agent's head
outside the database, in a witness file (``Store(..., witness=...)``): the attacker
holds the database, not that file. ``verify()`` is the store's own answer: the read
path (recall and memory_history, or the saver's ``list``; ``XX001`` refuses an altered
record) and ``agent_state.verify(agent, expected_head)`` against the newest head in
the witness file. Both adapters model a second context (another agent) for T6 and
take whole-store snapshots of the agent's rows for T9.
"""

from __future__ import annotations

import json
import secrets
import tempfile
import uuid
from pathlib import Path
from typing import Any

import psycopg
from agmi.adapters.base import MemoryAdapter, Record

import agent_state
from agent_state import Store
from agent_state.witness import newest_head

SEED = "agmi-seed-"
OTHER = "agmi-other-"


def _text(value: Any) -> str | None:
    """A raw column as the attacks see it: text, bytes as hex."""
    if value is None:
        return None
    return value.hex() if isinstance(value, bytes) else str(value)


class _AgentStateAdapter(MemoryAdapter):  # type: ignore[misc]
    """What both adapters share: the agents, the witness, raw access, verify."""

    supports_replay = True
    supports_metadata = True
    supports_snapshot = True
    detection_point = "read+verify"
    #: The tables the store writes for one record, snapshot and restored for T9.
    TABLES: tuple[str, ...] = ()

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.agent = uuid.UUID(int=0)  # set by setup()
        self.other = uuid.UUID(int=0)
        self.witness: Path | None = None
        self.store: Store | None = None

    # -- lifecycle -------------------------------------------------------------------
    def setup(self) -> None:
        self.witness = Path(tempfile.mkdtemp(prefix="agmi-witness-")) / "heads.jsonl"
        with agent_state.connect(self.dsn) as admin:
            self.agent = admin.create_agent(handle=f"agmi-{secrets.token_hex(4)}")
            self.other = admin.create_agent(handle=f"agmi-other-{secrets.token_hex(4)}")
        self.reload()

    def teardown(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def reload(self) -> None:
        """A restart: a new connection, the witness file read again at verify."""
        self.teardown()
        self.store = Store(self.dsn, witness=self.witness)

    def verify(self) -> bool:
        assert self.store is not None and self.witness is not None
        try:
            self.read_everything()
            head = newest_head(self.witness, self.agent) if self.witness.exists() else None
            found = self.store.verify(agent=self.agent, expected_head=head)
        except agent_state.Error as e:
            self.verify_detail = f"[{e.sqlstate}] {str(e).splitlines()[0]}"
            return False
        if found:
            self.verify_detail = f"verify: {found[0].check_name}: {found[0].object}"
            return False
        return True

    def read_everything(self) -> None:
        raise NotImplementedError

    # -- raw access, as a superuser with the triggers off -----------------------------
    def _raw(self, statement: str, *args: Any) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.dsn) as conn:
            conn.execute("SET LOCAL session_replication_role = replica")
            cur = conn.execute(statement, list(args))
            return cur.fetchall() if cur.description else []

    def owner_of(self, record: Record) -> str | None:
        return str(record.fields["runtime_agent_id"])

    # -- T9: the agent's rows of every table the store writes -------------------------
    def _columns(self, conn: psycopg.Connection[Any], table: str) -> str:
        rows = conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
            " AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
            [f"agent_state.{table}"],
        ).fetchall()
        return ", ".join(f'"{r[0]}"' for r in rows)

    def snapshot_store(self) -> object:
        snap: dict[str, bytes] = {}
        with psycopg.connect(self.dsn) as conn:
            for t in self.TABLES:
                cols = self._columns(conn, t)
                query = (
                    f"COPY (SELECT {cols} FROM agent_state.{t} WHERE runtime_agent_id IN (%s, %s))"
                    " TO STDOUT (FORMAT BINARY)"
                )
                with conn.cursor().copy(query, [self.agent, self.other]) as cp:
                    snap[t] = b"".join(bytes(b) for b in cp)
        return snap

    def restore_store(self, token: object) -> None:
        assert isinstance(token, dict)
        with psycopg.connect(self.dsn) as conn:
            conn.execute("SET LOCAL session_replication_role = replica")
            for t in reversed(self.TABLES):
                conn.execute(
                    f"DELETE FROM agent_state.{t} WHERE runtime_agent_id IN (%s, %s)",
                    [self.agent, self.other],
                )
            for t in self.TABLES:
                cols = self._columns(conn, t)
                query = f"COPY agent_state.{t} ({cols}) FROM STDIN (FORMAT BINARY)"
                with conn.cursor().copy(query) as cp:
                    cp.write(token[t])


class AgentStateMemoryAdapter(_AgentStateAdapter):
    """Memory entries through the Store API; a record is a memory revision."""

    name = "agent_state (memory)"
    TABLES = ("memory_entries", "memory_revisions")
    COLS = (
        "runtime_agent_id", "entry_id", "revision", "operation", "body", "subject_id",
        "visibility", "source_type", "created_at", "created_by", "chain_at", "chain_xact",
        "chain_digest",
    )  # fmt: skip
    POSITION_KEYS = ("entry_id", "revision", "chain_at", "chain_xact", "chain_digest")

    def _seed(self, agent: uuid.UUID, token: str, n: int) -> None:
        assert self.store is not None
        for i in range(n):
            self.store.note(agent=agent, body=f"{token}{i} the deploy key rotates on day {i}")

    def seed(self, n: int) -> None:
        self._seed(self.agent, SEED, n)

    def seed_other(self, n: int) -> None:
        self._seed(self.other, OTHER, n)

    def append_genuine(self) -> None:
        self._seed(self.agent, SEED + "late-", 1)

    def read_everything(self) -> None:
        assert self.store is not None
        entries = [r.entry for r in self.store.list_memories(agent=self.agent)]
        self.store.recall(agent=self.agent, query=None, max_results=1000)
        for entry in entries:
            self.store.memory_history(agent=self.agent, entry=entry)

    def _read(self, agent: uuid.UUID) -> list[Record]:
        # In the order the entries were made (memory_entries.created_at, which no
        # edit below touches), so a record keeps its place whatever is copied onto it.
        rows = self._raw(
            f"SELECT {', '.join('r.' + c for c in self.COLS)}"
            " FROM agent_state.memory_revisions AS r"
            " JOIN agent_state.memory_entries AS e USING (runtime_agent_id, entry_id)"
            " WHERE r.runtime_agent_id = %s ORDER BY e.created_at, r.entry_id, r.revision",
            agent,
        )
        return [
            Record(seq=i, fields={c: _text(v) for c, v in zip(self.COLS, row, strict=True)})
            for i, row in enumerate(rows)
        ]

    def read_all_raw(self) -> list[Record]:
        return self._read(self.agent)

    def read_other_raw(self) -> list[Record]:
        return self._read(self.other)

    def _slot(self, seq: int) -> tuple[str, str] | None:
        rows = self.read_all_raw()
        if seq >= len(rows):
            return None
        return rows[seq].fields["entry_id"], rows[seq].fields["revision"]

    def _overwrite(self, slot: tuple[str, str], f: dict[str, Any], keys: tuple[str, ...]) -> None:
        sets = ", ".join(f"{k} = %s::bytea" if k == "chain_digest" else f"{k} = %s" for k in keys)
        values = [bytes.fromhex(f[k]) if k == "chain_digest" and f[k] else f[k] for k in keys]
        self._raw(
            f"UPDATE agent_state.memory_revisions SET {sets}"
            " WHERE runtime_agent_id = %s AND entry_id = %s AND revision = %s",
            *values, self.agent, *slot,
        )  # fmt: skip
        if "body" in keys:  # what recall reads, kept in step as an attacker would
            self._raw(
                "UPDATE agent_state.memory_entries SET body = %s"
                " WHERE runtime_agent_id = %s AND entry_id = %s AND current_revision = %s",
                f["body"], self.agent, *slot,
            )  # fmt: skip

    CONTENT = ("body", "subject_id", "visibility", "source_type", "created_at", "created_by",
               "chain_at", "chain_xact", "chain_digest")  # fmt: skip

    def write_raw(self, record: Record) -> None:
        slot = self._slot(record.seq)
        f = record.fields
        if slot is not None:
            self._overwrite(slot, f, self.CONTENT)
            return
        # A forged record: a new entry, its revision carrying a genuine record's stamp.
        self._raw(
            "INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision,"
            " operation, body, visibility, source_type, created_at, created_by, chain_at,"
            " chain_xact, chain_digest) VALUES (%s, %s, 1, 'create', %s, %s, %s, %s, %s, %s, %s,"
            " %s::bytea)",
            self.agent, f["entry_id"], f["body"], f["visibility"], f["source_type"],
            f["created_at"], f["created_by"], f["chain_at"], f["chain_xact"],
            bytes.fromhex(f["chain_digest"]),
        )  # fmt: skip
        self._raw(
            "INSERT INTO agent_state.memory_entries (runtime_agent_id, entry_id, current_revision,"
            " body, visibility, source_type, revised_at) VALUES (%s, %s, 1, %s, %s, %s, now())",
            self.agent, f["entry_id"], f["body"], f["visibility"], f["source_type"],
        )  # fmt: skip

    def forge_record(self, template: Record) -> Record:
        forged = Record(seq=template.seq + 1, fields=dict(template.fields))
        forged.fields["entry_id"] = str(uuid.uuid4())  # a new entry, with the template's stamp
        return self.mutate_payload(forged)

    def mutate_payload(self, record: Record) -> Record:
        body = record.fields["body"]
        record.fields["body"] = (
            body.replace(SEED, "agmi-TAMP-") if SEED in body else body + " [TAMPERED]"
        )
        return record

    def delete_raw(self, seq: int) -> None:
        slot = self._slot(seq)
        assert slot is not None
        self._raw(
            "DELETE FROM agent_state.memory_revisions"
            " WHERE runtime_agent_id = %s AND entry_id = %s",
            self.agent, slot[0],
        )  # fmt: skip
        self._raw(
            "DELETE FROM agent_state.memory_entries WHERE runtime_agent_id = %s AND entry_id = %s",
            self.agent, slot[0],
        )  # fmt: skip

    def replay_onto(self, victim_seq: int, donor: Record) -> None:
        slot = self._slot(victim_seq)
        assert slot is not None
        self._overwrite(slot, donor.fields, ("body", "chain_at", "chain_xact", "chain_digest"))

    META = ("created_by", "created_at", "visibility", "source_type")

    def read_meta(self, seq: int) -> dict[str, Any]:
        f = self.read_all_raw()[seq].fields
        return {k: f[k] for k in self.META}

    def write_meta(self, seq: int, meta: dict[str, Any]) -> None:
        slot = self._slot(seq)
        assert slot is not None
        changed = dict(meta)
        if changed.pop("agmi_meta_tampered", False):
            changed["created_by"] = "agmi_attacker"
        self._overwrite(slot, changed, tuple(k for k in self.META if k in changed))

    def identity_of(self, record: Record) -> str:
        return f"{record.fields['entry_id']}/{record.fields['revision']}"

    def payload_of(self, record: Record) -> str:
        return str(record.fields["body"])


class AgentStateSaverAdapter(_AgentStateAdapter):
    """LangGraph checkpoints through AgentStateSaver; a record is a checkpoint row."""

    name = "agent_state (LangGraph saver)"
    TABLES = ("graph_threads", "graph_checkpoints", "graph_writes")
    THREAD = "agmi-thread"
    COLS = (
        "runtime_agent_id", "thread_id", "checkpoint_ns", "checkpoint_id",
        "parent_checkpoint_id", "run_id", "graph_run_id", "payload_type", "payload", "metadata",
        "chain_at", "chain_xact", "chain_digest",
    )  # fmt: skip

    def _saver(self, agent: uuid.UUID) -> Any:
        from agent_state.integrations.langgraph import AgentStateSaver

        return AgentStateSaver(self.store, agent=agent)

    def _seed(self, agent: uuid.UUID, token: str, n: int, start: int = 0) -> None:
        from langgraph.checkpoint.base import create_checkpoint, empty_checkpoint

        saver = self._saver(agent)
        cfg: Any = {"configurable": {"thread_id": self.THREAD, "checkpoint_ns": ""}}
        tup = saver.get_tuple(cfg)
        cp = tup.checkpoint if tup else empty_checkpoint()
        if tup:
            cfg = tup.config
        for i in range(start, start + n):
            cp = create_checkpoint(cp, {"state": f"{token}{i}"}, i)  # type: ignore[dict-item]
            cp["channel_values"] = {"state": f"{token}{i}"}
            cfg = saver.put(
                cfg, cp, {"source": "loop", "step": i, "writes": {}}, {"state": str(i + 1)}
            )

    def seed(self, n: int) -> None:
        self._seed(self.agent, SEED, n)

    def seed_other(self, n: int) -> None:
        self._seed(self.other, OTHER, n)

    def append_genuine(self) -> None:
        self._seed(self.agent, SEED, 1, start=99)

    def read_everything(self) -> None:
        saver = self._saver(self.agent)
        list(saver.list({"configurable": {"thread_id": self.THREAD}}))

    def _read(self, agent: uuid.UUID) -> list[Record]:
        rows = self._raw(
            f"SELECT {', '.join(self.COLS)} FROM agent_state.graph_checkpoints"
            " WHERE runtime_agent_id = %s ORDER BY checkpoint_id",
            agent,
        )
        out = []
        for i, row in enumerate(rows):
            f = dict(zip(self.COLS, row, strict=True))
            f["payload"] = bytes(f["payload"]).hex()
            f["chain_digest"] = bytes(f["chain_digest"]).hex() if f["chain_digest"] else None
            f["metadata"] = json.dumps(f["metadata"])
            f["chain_at"] = str(f["chain_at"])
            f["chain_xact"] = str(f["chain_xact"])
            f["runtime_agent_id"] = str(f["runtime_agent_id"])
            f["run_id"] = str(f["run_id"])
            out.append(Record(seq=i, fields=f))
        return out

    def read_all_raw(self) -> list[Record]:
        return self._read(self.agent)

    def read_other_raw(self) -> list[Record]:
        return self._read(self.other)

    def _slot(self, seq: int) -> str | None:
        rows = self.read_all_raw()
        return rows[seq].fields["checkpoint_id"] if seq < len(rows) else None

    def _overwrite(self, target: str, f: dict[str, Any], keys: tuple[str, ...]) -> None:
        casts = {"payload": "::bytea", "chain_digest": "::bytea", "metadata": "::jsonb"}
        sets = ", ".join(f"{k} = %s{casts.get(k, '')}" for k in keys)
        values = [
            bytes.fromhex(f[k]) if k in ("payload", "chain_digest") and f[k] else f[k] for k in keys
        ]
        self._raw(
            f"UPDATE agent_state.graph_checkpoints SET {sets}"
            " WHERE runtime_agent_id = %s AND thread_id = %s AND checkpoint_id = %s",
            *values, self.agent, self.THREAD, target,
        )  # fmt: skip

    CONTENT = ("payload_type", "payload", "metadata", "chain_at", "chain_xact", "chain_digest")

    def write_raw(self, record: Record) -> None:
        target = self._slot(record.seq)
        if target is not None:
            self._overwrite(target, record.fields, self.CONTENT)
            return
        f = record.fields
        self._raw(
            "INSERT INTO agent_state.graph_checkpoints (runtime_agent_id, thread_id, checkpoint_ns,"
            " checkpoint_id, parent_checkpoint_id, run_id, graph_run_id, payload_type, payload,"
            " metadata, chain_at, chain_xact, chain_digest) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
            " %s::bytea, %s::jsonb, %s, %s, %s::bytea)",
            self.agent, self.THREAD, f["checkpoint_ns"], f["checkpoint_id"],
            f["parent_checkpoint_id"], f["run_id"], f["graph_run_id"], f["payload_type"],
            bytes.fromhex(f["payload"]),
            f["metadata"], f["chain_at"], f["chain_xact"], bytes.fromhex(f["chain_digest"]),
        )  # fmt: skip

    @staticmethod
    def _later_id(tip_id: str) -> str:
        head, _, tail = tip_id.rpartition("-")
        return f"{head}-{format(int(tail, 16) + 1, '012x')}"

    def forge_record(self, template: Record) -> Record:
        forged = Record(seq=template.seq + 1, fields=dict(template.fields))
        forged.fields["parent_checkpoint_id"] = template.fields["checkpoint_id"]
        forged.fields["checkpoint_id"] = self._later_id(template.fields["checkpoint_id"])
        return self.mutate_payload(forged)

    def mutate_payload(self, record: Record) -> Record:
        payload = bytes.fromhex(record.fields["payload"])
        tampered = payload.replace(SEED.encode(), b"agmi-TAMP-")
        if tampered == payload:
            tampered = payload.replace(b"agmi-", b"AGMI-")
        record.fields["payload"] = tampered.hex()
        return record

    def delete_raw(self, seq: int) -> None:
        target = self._slot(seq)
        self._raw(
            "DELETE FROM agent_state.graph_checkpoints"
            " WHERE runtime_agent_id = %s AND thread_id = %s AND checkpoint_id = %s",
            self.agent, self.THREAD, target,
        )  # fmt: skip

    def replay_onto(self, victim_seq: int, donor: Record) -> None:
        target = self._slot(victim_seq)
        assert target is not None
        self._overwrite(target, donor.fields, self.CONTENT)

    def read_meta(self, seq: int) -> dict[str, Any]:
        meta: dict[str, Any] = json.loads(self.read_all_raw()[seq].fields["metadata"])
        return meta

    def write_meta(self, seq: int, meta: dict[str, Any]) -> None:
        target = self._slot(seq)
        assert target is not None
        self._overwrite(target, {"metadata": json.dumps(meta)}, ("metadata",))

    def identity_of(self, record: Record) -> str:
        return str(record.fields["checkpoint_id"])

    def payload_of(self, record: Record) -> str:
        return str(record.fields["payload"])
