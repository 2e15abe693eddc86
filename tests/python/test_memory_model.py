"""Memory against an in-memory model: Hypothesis drives random remember, note,
amend, forget, share, unshare and message traffic; after every step the database
and the model agree on each entry's current revision and liveness, and on the
set of entries recall returns for every target conversation (and for none).

Also attacks across transactions that a single pgTAP transaction cannot show:
evidence added to a committed revision, a revision appended without its entry.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from psycopg import sql

ACTORS = ("alice", "bob", "carol", "dave")
# conversation -> (kind, members who may be in an audience)
CONVERSATIONS = {
    "dm_ab": ("direct", ("alice", "bob")),
    "dm_ad": ("direct", ("alice", "dave")),
    "group": ("group", ACTORS),
    "pub": ("public", ACTORS),
    "empty": ("group", ACTORS),
}


@dataclass
class Message:
    id: uuid.UUID
    conversation: str
    audience: frozenset[str] | None  # None = public


@dataclass
class Entry:
    id: uuid.UUID
    revision: int
    live: bool
    visibility: str
    observers: frozenset[str] | None
    conversations: frozenset[str]
    evidence: frozenset[uuid.UUID]


@dataclass
class Model:
    entries: list[Entry] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    latest: dict[str, Message] = field(default_factory=dict)
    grants: set[tuple[uuid.UUID, int, str]] = field(default_factory=set)

    def eligible(self, target: str | None) -> set[uuid.UUID]:
        latest = self.latest.get(target) if target else None
        known = latest is not None
        audience = latest.audience if latest else None
        out = set()
        for e in self.entries:
            if not e.live:
                continue
            audience_ok = e.observers is None or (
                known and audience is not None and audience <= e.observers
            )
            place_ok = e.visibility == "perspective" or (
                known and e.conversations == frozenset({target})
            )
            granted = known and (e.id, e.revision, target) in self.grants
            if (audience_ok and place_ok) or granted:
                out.add(e.id)
        return out


def _as_other_superuser(conn: psycopg.Connection[Any]) -> None:
    """Go on as a superuser that does not own the schema: the owner's own writes
    are the product's and skip the commit-time checks (agent_state._own_write).
    Inside the caller's transaction, so the role goes away with it."""
    name = sql.Identifier(f"t_dba_{uuid.uuid4().hex[:12]}")
    conn.execute(sql.SQL("CREATE ROLE {} SUPERUSER").format(name))
    conn.execute(sql.SQL("SET LOCAL ROLE {}").format(name))


def _scalar(cur: psycopg.Cursor[Any]) -> Any:
    """The first column of the one row a statement returned."""
    row = cur.fetchone()
    assert row is not None
    return row[0]


def sqlstate_of(conn: psycopg.Connection[Any], sql: str, params: Any) -> tuple[str | None, Any]:
    """Run one statement; return (None, first row) or (SQLSTATE, None)."""
    try:
        row = conn.execute(sql, params).fetchone()
        return None, row
    except psycopg.Error as exc:
        return exc.sqlstate, None


class MemoryMachine(RuleBasedStateMachine):
    def __init__(self, dsn: str) -> None:
        super().__init__()
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.model = Model()
        self.agent: uuid.UUID
        self.actor: dict[str, uuid.UUID] = {}
        self.conv: dict[str, uuid.UUID] = {}

    def teardown(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ setup
    @initialize()
    def setup_agent(self) -> None:
        c = self.conn
        self.agent = _scalar(
            c.execute("SELECT agent_state.create_agent(%s)", [f"model-{uuid.uuid4()}"])
        )
        for name in ACTORS:
            self.actor[name] = _scalar(
                c.execute("SELECT agent_state.resolve_actor(%s, 'slack', %s)", [self.agent, name])
            )
        for name, (kind, _) in CONVERSATIONS.items():
            self.conv[name] = _scalar(
                c.execute(
                    "SELECT agent_state.open_conversation(%s, 'slack', %s, %s)",
                    [self.agent, name, kind],
                )
            )
        # One message in every conversation but 'empty'.
        self._record("dm_ab", "alice", frozenset({"alice", "bob"}))
        self._record("dm_ad", "dave", frozenset({"alice", "dave"}))
        self._record("group", "carol", frozenset(ACTORS))
        self._record("pub", "bob", None)

    def _record(self, conversation: str, author: str, audience: frozenset[str] | None) -> None:
        aud = None if audience is None else [self.actor[a] for a in sorted(audience)]
        mid = _scalar(
            self.conn.execute(
                "SELECT agent_state.record_message(%s, %s, %s, %s, %s::uuid[])",
                [self.agent, self.conv[conversation], self.actor[author], "words", aud],
            )
        )
        msg = Message(mid, conversation, audience)
        self.model.messages.append(msg)
        self.model.latest[conversation] = msg

    # ------------------------------------------------------------------ rules
    @rule(
        conversation=st.sampled_from(["dm_ab", "dm_ad", "group", "pub"]),
        data=st.data(),
    )
    def record(self, conversation: str, data: st.DataObject) -> None:
        kind, members = CONVERSATIONS[conversation]
        author = data.draw(st.sampled_from(members))
        if kind == "public" and data.draw(st.booleans()):
            audience: frozenset[str] | None = None
        else:
            others = data.draw(st.sets(st.sampled_from(members)))
            audience = frozenset(others | {author})
        self._record(conversation, author, audience)

    @rule(data=st.data(), visibility=st.sampled_from(["perspective", "conversation"]))
    def remember(self, data: st.DataObject, visibility: str) -> None:
        msg = data.draw(st.sampled_from(self.model.messages))
        err, row = sqlstate_of(
            self.conn,
            "SELECT entry, revision FROM agent_state.remember(%s, %s, %s, NULL, %s)",
            [self.agent, "fact", msg.id, visibility],
        )
        assert err is None, err
        assert row[1] == 1
        self.model.entries.append(
            Entry(
                row[0],
                1,
                True,
                visibility,
                msg.audience,
                frozenset({msg.conversation}),
                frozenset({msg.id}),
            )
        )

    @rule()
    def note(self) -> None:
        row = self.conn.execute(
            "SELECT entry, revision FROM agent_state.note(%s, 'operator fact')", [self.agent]
        ).fetchone()
        assert row is not None
        self.model.entries.append(
            Entry(row[0], 1, True, "perspective", None, frozenset(), frozenset())
        )

    @precondition(lambda self: self.model.entries)
    @rule(
        data=st.data(),
        with_message=st.booleans(),
        visibility=st.sampled_from([None, "perspective", "conversation"]),
        stale=st.booleans(),
    )
    def amend(
        self, data: st.DataObject, with_message: bool, visibility: str | None, stale: bool
    ) -> None:
        e = data.draw(st.sampled_from(self.model.entries))
        msg = data.draw(st.sampled_from(self.model.messages)) if with_message else None
        expected = e.revision - 1 if stale else e.revision
        err, row = sqlstate_of(
            self.conn,
            "SELECT agent_state.amend(%s, %s, 'amended fact', %s, %s, NULL, %s)",
            [self.agent, e.id, expected, msg.id if msg else None, visibility],
        )
        if not e.live:
            assert err == "55000", err
            return
        if stale:
            assert err == "40001", err
            return
        if e.visibility == "conversation" and visibility == "perspective":
            assert err == "22023", err
            return
        assert err is None, err
        assert row[0] == e.revision + 1
        e.revision += 1
        e.visibility = visibility or e.visibility
        if msg is not None:
            e.evidence = e.evidence | {msg.id}
            e.conversations = e.conversations | {msg.conversation}
            if msg.audience is not None:
                e.observers = msg.audience if e.observers is None else e.observers & msg.audience

    @precondition(lambda self: self.model.entries)
    @rule(data=st.data(), mode=st.sampled_from(["current", "stale", "none"]))
    def forget(self, data: st.DataObject, mode: str) -> None:
        e = data.draw(st.sampled_from(self.model.entries))
        expected = {"current": e.revision, "stale": e.revision - 1, "none": None}[mode]
        err, row = sqlstate_of(
            self.conn, "SELECT agent_state.forget(%s, %s, %s)", [self.agent, e.id, expected]
        )
        if not e.live:
            assert err == "55000", err
            return
        if mode == "stale":
            assert err == "40001", err
            return
        assert err is None, err
        assert row[0] == e.revision + 1
        e.revision += 1
        e.live = False

    @precondition(lambda self: self.model.entries)
    @rule(data=st.data(), conversation=st.sampled_from(list(CONVERSATIONS)), older=st.booleans())
    def share(self, data: st.DataObject, conversation: str, older: bool) -> None:
        e = data.draw(st.sampled_from(self.model.entries))
        rev = max(1, e.revision - 1) if older else e.revision
        err, _ = sqlstate_of(
            self.conn,
            "SELECT agent_state.share(%s, %s, %s, %s)",
            [self.agent, e.id, rev, self.conv[conversation]],
        )
        assert err is None, err
        self.model.grants.add((e.id, rev, conversation))

    @precondition(lambda self: self.model.entries)
    @rule(data=st.data(), conversation=st.sampled_from(list(CONVERSATIONS)))
    def unshare(self, data: st.DataObject, conversation: str) -> None:
        e = data.draw(st.sampled_from(self.model.entries))
        rev = data.draw(st.integers(min_value=1, max_value=e.revision))
        err, _ = sqlstate_of(
            self.conn,
            "SELECT agent_state.unshare(%s, %s, %s, %s)",
            [self.agent, e.id, rev, self.conv[conversation]],
        )
        key = (e.id, rev, conversation)
        if key in self.model.grants:
            assert err is None, err
            self.model.grants.discard(key)
        else:
            assert err == "P0002", err

    # ------------------------------------------------------------------ invariants
    @invariant()
    def entries_agree(self) -> None:
        if not self.model.entries:
            return
        rows = {
            r[0]: (r[1], r[2])
            for r in self.conn.execute(
                "SELECT entry_id, current_revision, live FROM agent_state.memory_entries"
                " WHERE runtime_agent_id = %s",
                [self.agent],
            )
        }
        assert rows == {e.id: (e.revision, e.live) for e in self.model.entries}
        for e in self.model.entries:
            got = _scalar(
                self.conn.execute(
                    "SELECT source_messages FROM agent_state.memory_history(%s, %s)"
                    " ORDER BY revision DESC LIMIT 1",
                    [self.agent, e.id],
                )
            )
            assert set(got) == set(e.evidence)

    @invariant()
    def recall_agrees(self) -> None:
        if not hasattr(self, "agent"):
            return
        for target in [None, *CONVERSATIONS]:
            conv = self.conv[target] if target else None
            got = {
                r[0]
                for r in self.conn.execute(
                    "SELECT entry FROM agent_state.recall(%s, NULL, %s, NULL, 1000)",
                    [self.agent, conv],
                )
            }
            assert got == self.model.eligible(target), target
            if conv is not None:
                ctx = {
                    r[0]
                    for r in self.conn.execute(
                        "SELECT entry FROM agent_state.context_for(%s, %s, NULL, 1000)",
                        [self.agent, conv],
                    )
                }
                assert ctx == got, f"context_for disagrees with recall for {target}"


def test_memory_matches_model(module_db_dsn: str) -> None:
    run_state_machine_as_test(  # type: ignore[no-untyped-call]
        lambda: MemoryMachine(module_db_dsn),
        settings=settings(
            max_examples=30,
            stateful_step_count=15,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )


# ---------------------------------------------------------------------- across transactions


@pytest.fixture
def fixture_entry(admin_conn: psycopg.Connection[Any]) -> dict[str, Any]:
    c = admin_conn
    agent = _scalar(c.execute("SELECT agent_state.create_agent(%s)", [f"xact-{uuid.uuid4()}"]))
    alice = _scalar(c.execute("SELECT agent_state.resolve_actor(%s, 'slack', 'alice')", [agent]))
    bob = _scalar(c.execute("SELECT agent_state.resolve_actor(%s, 'slack', 'bob')", [agent]))
    dm = _scalar(
        c.execute("SELECT agent_state.open_conversation(%s, 'slack', 'dm', 'direct')", [agent])
    )
    pub = _scalar(
        c.execute("SELECT agent_state.open_conversation(%s, 'slack', 'p', 'public')", [agent])
    )
    m_dm = _scalar(
        c.execute(
            "SELECT agent_state.record_message(%s, %s, %s, 'secret', ARRAY[%s]::uuid[])",
            [agent, dm, alice, bob],
        )
    )
    m_pub = _scalar(
        c.execute("SELECT agent_state.record_message(%s, %s, %s, 'public')", [agent, pub, alice])
    )
    entry = _scalar(
        c.execute("SELECT entry FROM agent_state.remember(%s, 'Alice secret', %s)", [agent, m_dm])
    )
    return {"agent": agent, "entry": entry, "m_dm": m_dm, "m_pub": m_pub, "pub": pub}


def test_evidence_of_a_committed_revision_is_fixed(
    admin_conn: psycopg.Connection[Any], fixture_entry: dict[str, Any]
) -> None:
    f = fixture_entry
    with pytest.raises(psycopg.Error) as err:
        admin_conn.execute(
            "INSERT INTO agent_state.memory_evidence VALUES (%s, %s, 1, %s)",
            [f["agent"], f["entry"], f["m_pub"]],
        )
    assert err.value.sqlstate == "42501"


def test_revision_without_its_entry_state_fails_at_commit(
    admin_conn: psycopg.Connection[Any], fixture_entry: dict[str, Any]
) -> None:
    f = fixture_entry
    with pytest.raises(psycopg.Error) as err, admin_conn.transaction():
        _as_other_superuser(admin_conn)
        admin_conn.execute(
            "INSERT INTO agent_state.memory_revisions (runtime_agent_id, entry_id, revision,"
            " operation, body, visibility, source_type, evidence_observers, evidence_conversations)"
            " SELECT runtime_agent_id, entry_id, 2, 'amend', 'public now', visibility, 'operator',"
            " evidence_observers, evidence_conversations FROM agent_state.memory_revisions"
            " WHERE entry_id = %s",
            [f["entry"]],
        )
    assert err.value.sqlstate in ("23514", "23503")
    rev = _scalar(
        admin_conn.execute(
            "SELECT current_revision FROM agent_state.memory_entries WHERE entry_id = %s",
            [f["entry"]],
        )
    )
    assert rev == 1


def test_a_committed_private_memory_cannot_be_recalled_publicly(
    admin_conn: psycopg.Connection[Any], fixture_entry: dict[str, Any]
) -> None:
    f = fixture_entry
    hits = admin_conn.execute(
        "SELECT entry FROM agent_state.recall(%s, 'secret', %s)", [f["agent"], f["pub"]]
    ).fetchall()
    assert hits == []
    with pytest.raises(psycopg.Error) as err, admin_conn.transaction():
        _as_other_superuser(admin_conn)
        admin_conn.execute(
            "UPDATE agent_state.memory_entries SET evidence_observers = NULL WHERE entry_id = %s",
            [f["entry"]],
        )
    assert err.value.sqlstate == "23514"
    assert (
        admin_conn.execute(
            "SELECT entry FROM agent_state.recall(%s, 'secret', %s)", [f["agent"], f["pub"]]
        ).fetchall()
        == []
    )
