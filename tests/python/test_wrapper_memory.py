"""Memory functions through the wrapper: remember, note, amend, forget, history, share,
redact, recall, context_for.

Each test names the SQL functions it needs and is skipped (with their names) while
they are not in the database, so the tests start running once the SQL lands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID, uuid4

import pytest

import agent_state
from agent_state import Store
from conftest import Require, RuntimeRole, new_handle


@dataclass
class World:
    """One agent with Alice and Bob, a DM with Alice and a group with both."""

    agent: UUID
    alice: UUID
    bob: UUID
    me: UUID
    dm: UUID
    group: UUID
    dm_msg: UUID
    group_msg: UUID


@pytest.fixture
def world(store: Store) -> World:
    a = store.create_agent(handle=new_handle("mem"))
    alice = store.resolve_actor(agent=a, connector="slack", external_id="U-A", display_name="A")
    bob = store.resolve_actor(agent=a, connector="slack", external_id="U-B", display_name="B")
    me = store.resolve_actor(agent=a, connector="slack", external_id="U-ME", kind="agent")
    dm = store.open_conversation(agent=a, connector="slack", external_ref="D", kind="direct")
    group = store.open_conversation(agent=a, connector="slack", external_ref="G")
    dm_msg = store.record_message(
        agent=a,
        conversation=dm,
        author=alice,
        body="I am allergic to peanuts",
        audience=[alice, me],
    )
    group_msg = store.record_message(
        agent=a,
        conversation=group,
        author=bob,
        body="lunch on friday?",
        audience=[alice, bob, me],
    )
    return World(a, alice, bob, me, dm, group, dm_msg, group_msg)


def test_remember_and_history(store: Store, world: World, require: Require) -> None:
    require("remember", "memory_history")
    ref = store.remember(
        agent=world.agent,
        body="Alice is allergic to peanuts",
        source_message=world.dm_msg,
        subject=world.alice,
    )
    assert isinstance(ref, agent_state.MemoryRef)
    assert isinstance(ref.entry, UUID) and ref.revision == 1
    (rev,) = store.memory_history(agent=world.agent, entry=ref.entry)
    assert isinstance(rev, agent_state.MemoryRevision)
    assert rev.revision == 1 and rev.operation == "create"
    assert rev.body == "Alice is allergic to peanuts"
    assert rev.subject == world.alice
    assert rev.visibility == "perspective"
    assert rev.source_type == "agent"
    assert rev.source_actor == world.alice  # the message's author, not an argument
    assert rev.source_messages == [world.dm_msg]


def test_remember_needs_a_source_message(store: Store, world: World, require: Require) -> None:
    require("remember")
    with pytest.raises(agent_state.MissingArgument):
        store.remember(agent=world.agent, body="x", source_message=None)  # type: ignore[arg-type]
    with pytest.raises(agent_state.NotFound):
        store.remember(agent=world.agent, body="x", source_message=uuid4())
    with pytest.raises(agent_state.InvalidArgument):
        store.remember(
            agent=world.agent, body="x", source_message=world.dm_msg, visibility="everyone"
        )


def test_note_is_operator_authored(store: Store, world: World, require: Require) -> None:
    require("note", "memory_history")
    ref = store.note(agent=world.agent, body="Office closes at 6pm")
    (rev,) = store.memory_history(agent=world.agent, entry=ref.entry)
    assert rev.source_type == "operator"
    assert rev.subject is None


def test_amend_forget(store: Store, world: World, require: Require) -> None:
    require("remember", "amend", "forget", "memory_history")
    ref = store.remember(agent=world.agent, body="likes tea", source_message=world.dm_msg)
    r2 = store.amend(
        agent=world.agent,
        entry=ref.entry,
        body="likes green tea",
        expected_revision=1,
        source_message=world.group_msg,
        subject=world.alice,
    )
    assert r2 == 2
    with pytest.raises(agent_state.RevisionConflict) as info:
        store.amend(agent=world.agent, entry=ref.entry, body="stale", expected_revision=1)
    assert info.value.sqlstate == "40001"
    # Visibility may narrow (perspective -> conversation), never widen.
    r3 = store.amend(
        agent=world.agent,
        entry=ref.entry,
        body="likes green tea, said in the DM",
        expected_revision=2,
        visibility="conversation",
    )
    assert r3 == 3
    with pytest.raises(agent_state.InvalidArgument):
        store.amend(
            agent=world.agent,
            entry=ref.entry,
            body="widened",
            expected_revision=r3,
            visibility="perspective",
        )
    history = store.memory_history(agent=world.agent, entry=ref.entry)
    last = history[-1]
    assert [h.operation for h in history] == ["create", "amend", "amend"]
    assert last.visibility == "conversation"
    assert set(last.source_messages or []) >= {world.dm_msg, world.group_msg}
    assert last.subject == world.alice

    current = last.revision
    forgotten = store.forget(
        agent=world.agent, entry=ref.entry, expected_revision=current, reason="asked to"
    )
    assert forgotten == current + 1
    assert store.memory_history(agent=world.agent, entry=ref.entry)[-1].operation == "forget"
    with pytest.raises(agent_state.Retired):
        store.amend(agent=world.agent, entry=ref.entry, body="again", expected_revision=forgotten)
    with pytest.raises(agent_state.Retired):
        store.forget(agent=world.agent, entry=ref.entry)


def test_body_limit(store: Store, world: World, require: Require) -> None:
    require("note")
    store.note(agent=world.agent, body="x" * 100_000)
    with pytest.raises(agent_state.InvalidArgument):
        store.note(agent=world.agent, body="x" * 100_001)


def test_recall_respects_the_audience(store: Store, world: World, require: Require) -> None:
    require("remember", "recall")
    ref = store.remember(
        agent=world.agent,
        body="Alice is allergic to peanuts",
        source_message=world.dm_msg,
        subject=world.alice,
    )
    hits = store.recall(
        agent=world.agent, query="peanuts", conversation=world.dm, current_subject=world.alice
    )
    assert [h.entry for h in hits] == [ref.entry]
    hit = hits[0]
    assert isinstance(hit, agent_state.RecallHit)
    assert hit.revision == 1 and hit.subject == world.alice and hit.subject_match
    assert isinstance(hit.score, float) and hit.score > 0
    assert isinstance(hit.text_rank, float)
    assert isinstance(hit.age, timedelta)
    # Bob is in the group's audience and never saw the DM.
    assert store.recall(agent=world.agent, query="peanuts", conversation=world.group) == []
    # No target conversation: only operator notes and public evidence.
    assert store.recall(agent=world.agent, query="peanuts") == []
    # Empty and null queries rank by subject and recency.
    assert [h.entry for h in store.recall(agent=world.agent, query="", conversation=world.dm)] == [
        ref.entry
    ]
    assert [
        h.entry for h in store.recall(agent=world.agent, query=None, conversation=world.dm)
    ] == [ref.entry]


def test_recall_max_results_and_as_of(store: Store, world: World, require: Require) -> None:
    require("note", "recall", "memory_history")
    refs = [store.note(agent=world.agent, body=f"fact number {i} about cats") for i in range(5)]
    assert len(store.recall(agent=world.agent, query="cats")) == 5
    assert len(store.recall(agent=world.agent, query="cats", max_results=2)) == 2
    created = store.memory_history(agent=world.agent, entry=refs[0].entry)[0].created_at
    assert store.recall(agent=world.agent, query="cats", as_of=created - timedelta(days=1)) == []


def test_context_for(store: Store, world: World, require: Require) -> None:
    require("remember", "note", "context_for")
    ref = store.remember(
        agent=world.agent,
        body="Alice is allergic to peanuts",
        source_message=world.dm_msg,
        subject=world.alice,
    )
    other = store.note(agent=world.agent, body="The office has a kitchen")
    question = store.record_message(
        agent=world.agent,
        conversation=world.dm,
        author=world.alice,
        body="any peanuts in the snacks?",
        audience=[world.alice, world.me],
    )
    hits = store.context_for(agent=world.agent, conversation=world.dm, message=question)
    assert [h.entry for h in hits][:1] == [ref.entry]
    assert {h.entry for h in hits} == {ref.entry, other.entry}
    assert len(store.context_for(agent=world.agent, conversation=world.dm, max_results=1)) == 1
    group_hits = store.context_for(agent=world.agent, conversation=world.group)
    assert ref.entry not in {h.entry for h in group_hits}


def test_share_and_unshare(store: Store, world: World, require: Require) -> None:
    require("remember", "recall", "share", "unshare", "amend")
    ref = store.remember(agent=world.agent, body="Alice loves sushi", source_message=world.dm_msg)
    assert store.recall(agent=world.agent, query="sushi", conversation=world.group) == []
    store.share(agent=world.agent, entry=ref.entry, revision=1, conversation=world.group)
    hits = store.recall(agent=world.agent, query="sushi", conversation=world.group)
    assert [h.entry for h in hits] == [ref.entry]
    store.unshare(agent=world.agent, entry=ref.entry, revision=1, conversation=world.group)
    assert store.recall(agent=world.agent, query="sushi", conversation=world.group) == []
    # Grants are revision-specific.
    store.share(agent=world.agent, entry=ref.entry, revision=1, conversation=world.group)
    store.amend(
        agent=world.agent, entry=ref.entry, body="Alice loves sushi a lot", expected_revision=1
    )
    assert store.recall(agent=world.agent, query="sushi", conversation=world.group) == []
    with pytest.raises(agent_state.NotFound):
        store.share(agent=world.agent, entry=ref.entry, revision=9, conversation=world.group)


def test_redact(store: Store, world: World, require: Require) -> None:
    require("remember", "amend", "redact", "memory_history", "recall")
    ref = store.remember(
        agent=world.agent, body="Alice's phone is 555-0100", source_message=world.dm_msg
    )
    store.amend(
        agent=world.agent, entry=ref.entry, body="Alice's phone is 555-0199", expected_revision=1
    )
    store.redact(agent=world.agent, entry=ref.entry, reason="erasure request")
    history = store.memory_history(agent=world.agent, entry=ref.entry)
    assert len(history) >= 2
    assert all("555" not in h.body for h in history)
    assert store.recall(agent=world.agent, query="phone", conversation=world.dm) == []
    with pytest.raises(agent_state.Retired):
        store.redact(agent=world.agent, entry=ref.entry, reason="again")


def test_unknown_entry(store: Store, world: World, require: Require) -> None:
    require("memory_history", "amend")
    with pytest.raises(agent_state.NotFound):
        store.memory_history(agent=world.agent, entry=uuid4())
    with pytest.raises(agent_state.NotFound):
        store.amend(agent=world.agent, entry=uuid4(), body="x", expected_revision=1)


def test_entries_of_another_perspective(store: Store, world: World, require: Require) -> None:
    require("note", "memory_history")
    ref = store.note(agent=world.agent, body="private to the first agent")
    other = store.create_agent(handle=f"mem other {uuid4().hex[:12]}")
    with pytest.raises((agent_state.NotFound, agent_state.CrossPerspectiveReference)):
        store.memory_history(agent=other, entry=ref.entry)


@pytest.fixture
def runtime_dsn(store: Store, world: World, runtime_role: RuntimeRole) -> str:
    """A LOGIN role in agent_state_runtime hosting the world's agent."""
    store.grant_hosting(agent=world.agent, host=runtime_role.name)
    runtime_role.hosted.append(world.agent)
    return runtime_role.dsn


def test_runtime_remembers_but_may_not_author(
    store: Store, world: World, runtime_dsn: str, require: Require
) -> None:
    require("remember", "note", "share", "redact", "recall", "memory_history")
    other = store.create_agent(handle=f"mem not hosted {uuid4().hex[:12]}")
    with agent_state.connect(runtime_dsn) as rt:
        ref = rt.remember(
            agent=world.agent,
            body="Alice takes the 8:15 train",
            source_message=world.dm_msg,
            subject=world.alice,
        )
        (rev,) = rt.memory_history(agent=world.agent, entry=ref.entry)
        assert rev.source_type == "agent" and rev.source_actor == world.alice
        hits = rt.recall(agent=world.agent, query="train", conversation=world.dm)
        assert [h.entry for h in hits] == [ref.entry]
        with pytest.raises(agent_state.PermissionDenied):
            rt.note(agent=world.agent, body="operators only")
        with pytest.raises(agent_state.PermissionDenied):
            rt.share(agent=world.agent, entry=ref.entry, revision=1, conversation=world.group)
        with pytest.raises(agent_state.PermissionDenied):
            rt.redact(agent=world.agent, entry=ref.entry, reason="operators only")
        with pytest.raises(agent_state.PermissionDenied):
            rt.recall(agent=other, query="train")
