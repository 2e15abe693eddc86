"""Finding agents and what they hold through the wrapper (SPEC section 3,
discovery): typed rows, handles resolved, and a runtime shown only what it hosts."""

from __future__ import annotations

from decimal import Decimal

import pytest

import agent_state
from agent_state import Store
from conftest import Require, RuntimeRole, new_handle


def test_an_operator_finds_and_lists(store: Store, require: Require) -> None:
    require("list_agents", "find_agent", "list_conversations", "list_runs", "list_memories")
    handle = new_handle("disc")
    agent = store.create_agent(handle=handle, display_name="Discoverable")
    assert store.find_agent(handle=handle) == agent
    listed = {a.agent: a for a in store.list_agents()}
    assert isinstance(listed[agent], agent_state.AgentSummary)
    assert (listed[agent].handle, listed[agent].display_name) == (handle, "Discoverable")
    with pytest.raises(agent_state.NotFound):
        store.find_agent(handle=new_handle("nobody"))

    conv = store.open_conversation(agent=agent, connector="c", external_ref="r")
    run = store.start_run(agent=agent, conversation=conv, budget={"tokens": 10})
    kept = store.note(agent=agent, body="kept")
    gone = store.note(agent=agent, body="gone")
    store.forget(agent=agent, entry=gone.entry)
    assert [c.conversation for c in store.list_conversations(agent=agent)] == [conv]
    (r,) = store.list_runs(agent=agent)
    assert (r.run, r.conversation, r.status, r.spent_tokens) == (run, conv, "open", Decimal(0))
    assert [m.entry for m in store.list_memories(agent=agent)] == [kept.entry]
    everything = store.list_memories(agent=agent, include_forgotten=True)
    assert [(m.entry, m.live) for m in everything] == [(gone.entry, False), (kept.entry, True)]
    with pytest.raises(agent_state.InvalidArgument, match="max_results"):
        store.list_memories(agent=agent, max_results=0)


def test_a_runtime_sees_only_what_it_hosts(
    store: Store, runtime_role: RuntimeRole, require: Require
) -> None:
    require("list_agents", "find_agent")
    hosted = store.create_agent(handle=new_handle("disc-h"))
    other_handle = new_handle("disc-o")
    other = store.create_agent(handle=other_handle)
    store.grant_hosting(agent=hosted, host=runtime_role.name)
    runtime_role.hosted.append(hosted)
    with agent_state.connect(runtime_role.dsn) as rt:
        assert [a.agent for a in rt.list_agents()] == [hosted]
        with pytest.raises(agent_state.NotFound):
            rt.find_agent(handle=other_handle)  # exists, not hosted: the same as unknown
        with pytest.raises(agent_state.PermissionDenied):
            rt.list_memories(agent=other)
