"""Execution state through the wrapper: runs, prompt snapshots, model and tool calls,
checkpoints, budgets, continuation and recovery.

Each test names the SQL functions it needs and is skipped (with their names) while
they are not in the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid4

import pytest

import agent_state
from agent_state import Store
from conftest import Require, new_handle

TURN = ("start_run", "snapshot_prompt", "record_model_call")
TOOLS = ("register_tool", "grant_tool", "record_tool_call", "record_tool_result")


@dataclass
class World:
    agent: UUID
    alice: UUID
    dm: UUID
    question: UUID
    tool: str


@pytest.fixture
def world(store: Store, sql_functions: set[str]) -> World:
    a = store.create_agent(handle=new_handle("exec"))
    store.revise_persona(agent=a, body="You are the execution test agent.")
    alice = store.resolve_actor(agent=a, connector="slack", external_id="U-A")
    dm = store.open_conversation(agent=a, connector="slack", external_ref="D", kind="direct")
    question = store.record_message(
        agent=a, conversation=dm, author=alice, body="what's the weather?", audience=[alice]
    )
    tool = f"wrap.weather.{uuid4().hex[:10]}"
    if {"register_tool", "grant_tool"} <= sql_functions:
        store.register_tool(
            name=tool,
            version="1",
            config_schema={"type": "object", "properties": {"units": {"type": "string"}}},
        )
        store.grant_tool(agent=a, tool=tool, enabled=True, config={"units": "metric"})
    return World(a, alice, dm, question, tool)


def start(store: Store, w: World, budget: dict[str, Any] | None = None) -> tuple[UUID, UUID]:
    """A run and a snapshot for it."""
    run = store.start_run(
        agent=w.agent, conversation=w.dm, trigger_message=w.question, budget=budget
    )
    snap = store.snapshot_prompt(
        agent=w.agent, run=run, prompt="persona\nAlice: what's the weather?", messages=[w.question]
    )
    return run, snap


def test_full_turn(store: Store, world: World, require: Require) -> None:
    require(*TURN, *TOOLS, "checkpoint", "finish_run", "recover_run", "note")
    note = store.note(agent=world.agent, body="Alice lives in Lisbon", subject=world.alice)
    run = store.start_run(
        agent=world.agent,
        conversation=world.dm,
        trigger_message=world.question,
        budget={"tokens": 10_000, "tool_calls": 5},
    )
    assert isinstance(run, UUID)
    persona = store.active_persona(agent=world.agent)
    assert persona is not None
    snap = store.snapshot_prompt(
        agent=world.agent,
        run=run,
        prompt=f"{persona.body}\n- Alice lives in Lisbon\nAlice: what's the weather?",
        persona_revision=persona.revision,
        memory=[{"entry": str(note.entry), "revision": note.revision}],
        messages=[world.question],
    )
    call = store.record_model_call(
        agent=world.agent,
        run=run,
        snapshot=snap,
        provider="test",
        model="m-1",
        request={"messages": 2},
        response={"text": "checking"},
        usage={"tokens": 120, "cost_usd": 0.001},
    )
    assert isinstance(call, UUID)
    tc = store.record_tool_call(
        agent=world.agent, run=run, tool=world.tool, input={"city": "Lisbon"}, model_call=call
    )
    store.record_tool_result(agent=world.agent, tool_call=tc, output={"temp_c": 21}, status="ok")
    assert store.checkpoint(agent=world.agent, run=run, frontier={"step": 1}) == 1
    assert store.checkpoint(agent=world.agent, run=run, frontier={"step": 2}) == 2
    store.finish_run(agent=world.agent, run=run, outcome="succeeded", detail={"answer": "sunny"})

    state = store.recover_run(agent=world.agent, run=run)
    assert isinstance(state, dict)
    assert {"run", "status", "checkpoint", "frontier", "budget", "persona", "tool_grants"} <= set(
        state
    )
    assert "unconfirmed_tool_calls" in state
    assert state["checkpoint"] == 2
    assert state["frontier"] == {"step": 2}
    assert state["budget"]["spent"]["tokens"] == 120
    assert state["budget"]["spent"]["tool_calls"] == 1

    with pytest.raises(agent_state.Retired):
        store.finish_run(agent=world.agent, run=run, outcome="failed")
    with pytest.raises(agent_state.Retired):
        store.record_model_call(
            agent=world.agent, run=run, snapshot=snap, provider="test", model="m-1", request={}
        )


def test_snapshot_sources(store: Store, world: World, require: Require) -> None:
    require("start_run", "snapshot_prompt", "snapshot_sources", "note")
    note = store.note(agent=world.agent, body="a fact")
    run = store.start_run(agent=world.agent, conversation=world.dm)
    snap = store.snapshot_prompt(
        agent=world.agent,
        run=run,
        prompt="p",
        persona_revision=1,
        memory=[{"entry": str(note.entry), "revision": 1}],
        messages=[world.question],
    )
    sources = store.snapshot_sources(agent=world.agent, snapshot=snap)
    assert all(isinstance(s, agent_state.SnapshotSource) for s in sources)
    assert {(s.entry, s.revision) for s in sources if s.entry is not None} == {(note.entry, 1)}
    assert {s.message for s in sources if s.message is not None} == {world.question}


def test_snapshot_sources_must_belong_to_the_agent(
    store: Store, world: World, require: Require
) -> None:
    require("start_run", "snapshot_prompt", "note")
    other = store.create_agent(handle=f"exec other {uuid4().hex[:12]}")
    foreign = store.note(agent=other, body="someone else's memory")
    run = store.start_run(agent=world.agent)
    with pytest.raises((agent_state.CrossPerspectiveReference, agent_state.NotFound)):
        store.snapshot_prompt(
            agent=world.agent,
            run=run,
            prompt="p",
            memory=[{"entry": str(foreign.entry), "revision": 1}],
        )
    with pytest.raises((agent_state.CrossPerspectiveReference, agent_state.NotFound)):
        store.snapshot_prompt(agent=world.agent, run=uuid4(), prompt="p")


def test_model_call_needs_a_snapshot_of_the_same_run(
    store: Store, world: World, require: Require
) -> None:
    require(*TURN)
    run1, snap1 = start(store, world)
    run2, _ = start(store, world)
    with pytest.raises(agent_state.CrossPerspectiveReference) as info:
        store.record_model_call(
            agent=world.agent, run=run2, snapshot=snap1, provider="p", model="m", request={}
        )
    assert info.value.sqlstate == "23503"
    assert isinstance(
        store.record_model_call(
            agent=world.agent, run=run1, snapshot=snap1, provider="p", model="m", request={}
        ),
        UUID,
    )


def test_budget_exhaustion(store: Store, world: World, require: Require) -> None:
    require(*TURN, *TOOLS)
    run, snap = start(store, world, budget={"tokens": 100, "tool_calls": 10})
    # The call that reaches the limit is recorded: it happened.
    store.record_model_call(
        agent=world.agent,
        run=run,
        snapshot=snap,
        provider="p",
        model="m",
        request={},
        usage={"tokens": 150},
    )
    with pytest.raises(agent_state.BudgetExhausted) as info:
        store.record_model_call(
            agent=world.agent, run=run, snapshot=snap, provider="p", model="m", request={}
        )
    assert info.value.sqlstate == "53400"
    with pytest.raises(agent_state.BudgetExhausted):
        store.record_tool_call(agent=world.agent, run=run, tool=world.tool, input={})


def test_tool_calls_budget_and_unconfirmed(store: Store, world: World, require: Require) -> None:
    require(*TURN, *TOOLS, "recover_run")
    run, _ = start(store, world, budget={"tool_calls": 2})
    first = store.record_tool_call(agent=world.agent, run=run, tool=world.tool, input={"n": 1})
    store.record_tool_result(
        agent=world.agent, tool_call=first, output={"sent": "?"}, status="unconfirmed"
    )
    state = store.recover_run(agent=world.agent, run=run)
    unconfirmed = state["unconfirmed_tool_calls"]
    assert isinstance(unconfirmed, list) and len(unconfirmed) == 1
    # Only an explicit later result changes what is believed.
    store.record_tool_result(agent=world.agent, tool_call=first, output={"sent": 1}, status="ok")
    assert store.recover_run(agent=world.agent, run=run)["unconfirmed_tool_calls"] == []
    with pytest.raises(agent_state.InvalidArgument):
        store.record_tool_result(agent=world.agent, tool_call=first, output={}, status="maybe")
    store.record_tool_call(agent=world.agent, run=run, tool=world.tool, input={"n": 2})
    with pytest.raises(agent_state.BudgetExhausted):
        store.record_tool_call(agent=world.agent, run=run, tool=world.tool, input={"n": 3})


def test_tool_call_needs_a_grant(store: Store, world: World, require: Require) -> None:
    require("start_run", "record_tool_call", "register_tool", "grant_tool")
    run = store.start_run(agent=world.agent)
    store.grant_tool(agent=world.agent, tool=world.tool, enabled=False)
    with pytest.raises(agent_state.PermissionDenied):
        store.record_tool_call(agent=world.agent, run=run, tool=world.tool, input={})


def test_continue_run(store: Store, world: World, require: Require) -> None:
    require(*TURN, "continue_run", "recover_run")
    run, snap = start(store, world, budget={"tokens": 1000})
    store.record_model_call(
        agent=world.agent,
        run=run,
        snapshot=snap,
        provider="p",
        model="m",
        request={},
        usage={"tokens": 400},
    )
    nxt = store.continue_run(agent=world.agent, run=run, task_context={"todo": "answer"})
    assert isinstance(nxt, UUID) and nxt != run
    assert store.recover_run(agent=world.agent, run=run)["status"] == "handed_off"
    budget = store.recover_run(agent=world.agent, run=nxt)["budget"]
    assert budget["spent"]["tokens"] == 400  # a continuation never resets spending
    assert budget["limits"]["tokens"] == 1000
    raised = store.continue_run(
        agent=world.agent, run=nxt, task_context={}, budget={"tokens": 5000}
    )
    assert store.recover_run(agent=world.agent, run=raised)["budget"]["limits"]["tokens"] == 5000


def test_unknown_run(store: Store, world: World, require: Require) -> None:
    require("checkpoint", "recover_run", "finish_run")
    with pytest.raises(agent_state.NotFound):
        store.checkpoint(agent=world.agent, run=uuid4(), frontier={})
    with pytest.raises(agent_state.NotFound):
        store.recover_run(agent=world.agent, run=uuid4())
    with pytest.raises(agent_state.NotFound):
        store.finish_run(agent=world.agent, run=uuid4(), outcome="failed")


def test_bad_outcome(store: Store, world: World, require: Require) -> None:
    require("start_run", "finish_run")
    run = store.start_run(agent=world.agent)
    with pytest.raises(agent_state.InvalidArgument):
        store.finish_run(agent=world.agent, run=run, outcome="exploded")
