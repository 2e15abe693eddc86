"""AgentStateSession is the OpenAI Agents SDK's Session on a conversation of one agent:
for random sequences of calls it returns what the SDK's own SQLiteSession returns; a
real Runner.run with a model that calls a tool stores the run's items; two agents'
sessions with the same session id stay apart, and a runtime role reaches only the
sessions of the agents it hosts; pop and clear are retractions kept in the history;
reads work in a read-only transaction.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, cast
from uuid import UUID, uuid4

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agent_state
from agent_state import AsyncStore, Store
from conftest import TestRole, new_handle

pytest.importorskip("agents")
from agents import (
    Agent,
    ModelResponse,
    ModelSettings,
    RunConfig,
    Runner,
    SQLiteSession,
    function_tool,
)
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.memory import Session, SessionSettings
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_reasoning_item import Summary

from agent_state.integrations.openai_agents import CONNECTOR, AgentStateSession

# ------------------------------------------------------------------------ setup


@pytest.fixture(scope="module")
def admin(module_db_dsn: str) -> Iterator[Store]:
    with Store(module_db_dsn) as s:
        yield s


def new_agent(admin: Store) -> UUID:
    return admin.create_agent(handle=new_handle("oas"))


@pytest.fixture
def agent(admin: Store) -> UUID:
    return new_agent(admin)


def canon(value: Any) -> Any:
    """A value with its JSON types made explicit (a float 1.0 is not the integer 1, a
    bool not an integer) and objects as key-sorted tuples: two items compare equal
    exactly when they are the same JSON. ``-0.0`` reads as 0.0 (numeric has no sign
    of zero)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", repr(value + 0.0))
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ("object", tuple(sorted((k, canon(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("array", tuple(canon(v) for v in value))
    raise TypeError(type(value))


# ------------------------------------------------------------------ differential

# Text as the SDK's items carry it. U+0000 and lone surrogates are left out: jsonb
# refuses them (test_what_jsonb_refuses), where SQLite stores them.
texts = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"),
    max_size=40,
) | st.sampled_from(["", "héllo wörld", "日本語のテキスト", "🤖🧠 emoji", 'quote " and \\', "e+5"])
ids = st.text(alphabet="abcdef0123456789", min_size=4, max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(texts, children, max_size=4),
    max_leaves=12,
)

messages = st.builds(
    lambda role, content: {"role": role, "content": content},
    st.sampled_from(["user", "system", "developer", "assistant"]),
    texts,
)


def assistant_message(i: str, text: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []}]
    return {"id": f"msg_{i}", "type": "message", "role": "assistant", "status": "completed",
            "content": content}  # fmt: skip


def function_call(i: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": name,
            "arguments": json.dumps(args), "status": "completed"}  # fmt: skip


def function_output(i: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": f"call_{i}", "output": output}


def reasoning_item(i: str, summary: list[str], encrypted: str | None) -> dict[str, Any]:
    item = {"type": "reasoning", "id": f"rs_{i}",
            "summary": [{"type": "summary_text", "text": s} for s in summary]}  # fmt: skip
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


items = (
    messages
    | st.builds(assistant_message, ids, texts)
    | st.builds(
        function_call,
        ids,
        st.sampled_from(["get_weather", "lookup_order", "wétter"]),
        st.dictionaries(texts, json_values, max_size=3),
    )
    | st.builds(function_output, ids, texts)
    | st.builds(reasoning_item, ids, st.lists(texts, max_size=2), st.none() | ids)
    | json_values
)
limits = st.none() | st.integers(min_value=-3, max_value=8) | st.sampled_from([2**31, 2**40])
operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.lists(items, max_size=5)),
        st.tuples(st.just("get"), limits),
        st.tuples(st.just("pop"), st.none()),
        st.tuples(st.just("clear"), st.none()),
    ),
    max_size=14,
)


async def differential(
    ours: AgentStateSession, theirs: SQLiteSession, ops: list[tuple[str, Any]]
) -> None:
    for step, (op, arg) in enumerate(ops):
        got: Any = None
        want: Any = None
        if op == "add":
            await ours.add_items(arg)
            await theirs.add_items(arg)
        elif op == "get":
            got, want = await ours.get_items(arg), await theirs.get_items(arg)
        elif op == "pop":
            got, want = await ours.pop_item(), await theirs.pop_item()
        else:
            await ours.clear_session()
            await theirs.clear_session()
        assert canon(got) == canon(want), f"step {step}: {op}({arg!r})"
    visible = await ours.get_items(-1)
    assert canon(visible) == canon(await theirs.get_items(-1))
    # Nothing was deleted: the history holds every item added, the visible ones
    # exactly those without a retraction.
    history = await ours.item_history()
    added = [i for op, arg in ops if op == "add" for i in arg]
    assert canon([h.item for h in history]) == canon(added)
    assert canon([h.item for h in history if h.retracted is None]) == canon(visible)
    assert {h.retracted for h in history} <= {None, "pop", "clear"}


DIFFERENTIAL = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@DIFFERENTIAL
@given(ops=operations, default_limit=st.none() | st.sampled_from([0, 1, 3, -1]))
def test_every_call_returns_what_sqlite_session_returns(
    module_db_dsn: str, admin: Store, ops: list[tuple[str, Any]], default_limit: int | None
) -> None:
    agent = new_agent(admin)
    session_id = f"s-{uuid4()}"
    session_settings = SessionSettings(limit=default_limit)

    async def scenario() -> None:
        async with AsyncStore(module_db_dsn) as store:
            ours = AgentStateSession(
                session_id, agent=agent, store=store, session_settings=session_settings
            )
            theirs = SQLiteSession(session_id, session_settings=session_settings)
            try:
                await differential(ours, theirs, ops)
            finally:
                theirs.close()

    asyncio.run(scenario())


@settings(max_examples=25, deadline=None)
@given(ops=operations)
def test_a_sync_store_in_a_thread_returns_the_same(
    module_db_dsn: str, admin: Store, ops: list[tuple[str, Any]]
) -> None:
    agent = new_agent(admin)

    async def scenario() -> None:
        ours = AgentStateSession("same id", agent=agent, store=admin)
        theirs = SQLiteSession("same id")
        try:
            await differential(ours, theirs, ops)
        finally:
            theirs.close()

    asyncio.run(scenario())


async def test_floats_with_an_exponent_come_back_as_the_same_floats(
    module_db_dsn: str, agent: UUID
) -> None:
    item = {"x": 1e23, "y": [1e16, -1.7976931348623157e308, 5e-324, 1e-7], "e+": "1e+23"}
    async with AgentStateSession("floats", agent=agent, dsn=module_db_dsn) as session:
        await session.add_items([item])  # type: ignore[list-item]
        [got] = await session.get_items()
    assert canon(got) == canon(item)


async def test_what_jsonb_refuses(module_db_dsn: str, agent: UUID) -> None:
    """PostgreSQL's JSON refuses what is not JSON (NaN, Infinity) and strings jsonb
    cannot hold (U+0000, lone surrogates): the call fails as a whole and writes
    nothing, where SQLite would store them."""
    async with AgentStateSession("refused", agent=agent, dsn=module_db_dsn) as session:
        await session.add_items([{"role": "user", "content": "kept"}])
        for bad in (float("nan"), float("inf"), "nul \x00", "lone \ud800"):
            with pytest.raises(agent_state.InvalidArgument):
                await session.add_items([{"role": "user", "content": "x"}, {"v": bad}])  # type: ignore[list-item]
        assert await session.get_items() == [{"role": "user", "content": "kept"}]


# ------------------------------------------------------------------------ Runner.run


class ScriptedModel(Model):
    """A model that answers from a script (no network): each call returns the next
    response; it records the input it was given."""

    def __init__(self, script: list[list[TResponseOutputItem]]) -> None:
        self.script = list(script)
        self.inputs: list[list[TResponseInputItem]] = []

    async def get_response(
        self, system_instructions: str | None, input: str | list[TResponseInputItem],
        model_settings: ModelSettings, tools: list[Any], output_schema: Any,
        handoffs: list[Any], tracing: Any, *, previous_response_id: str | None,
        conversation_id: str | None, prompt: Any,
    ) -> ModelResponse:  # fmt: skip
        self.inputs.append(list(input) if isinstance(input, list) else [input])  # type: ignore[list-item]
        return ModelResponse(output=self.script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the scripted model does not stream")


def tool_call(city: str, n: int) -> list[TResponseOutputItem]:
    return [
        ResponseReasoningItem(
            id=f"rs_{n}", type="reasoning",
            summary=[Summary(text=f"The user asks about {city}.", type="summary_text")],
        ),
        ResponseFunctionToolCall(
            id=f"fc_{n}", call_id=f"call_{n}", name="get_weather", type="function_call",
            arguments=json.dumps({"city": city}), status="completed",
        ),
    ]  # fmt: skip


def answer(text: str, n: int) -> list[TResponseOutputItem]:
    return [
        ResponseOutputMessage(
            id=f"msg_{n}", type="message", role="assistant", status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )
    ]  # fmt: skip


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: the city's name.
    """
    return f"Sunny in {city}, 21 °C."


async def two_turns(session: Session) -> ScriptedModel:
    model = ScriptedModel(
        [
            tool_call("Zürich", 1),
            answer("It is sunny in Zürich.", 2),
            answer("You asked about Zürich.", 3),
        ]
    )
    agent = Agent(name="weather", instructions="Answer briefly.", model=model, tools=[get_weather])
    config = RunConfig(tracing_disabled=True)
    first = await Runner.run(agent, "Weather in Zürich?", session=session, run_config=config)
    assert first.final_output == "It is sunny in Zürich."
    second = await Runner.run(agent, "What did I ask?", session=session, run_config=config)
    assert second.final_output == "You asked about Zürich."
    return model


async def test_a_run_with_a_tool_call_is_stored(module_db_dsn: str, agent: UUID) -> None:
    async with AgentStateSession("run-1", agent=agent, dsn=module_db_dsn) as session:
        model = await two_turns(session)
        stored = cast("list[dict[str, Any]]", await session.get_items())
        history = await session.item_history()
        conversation = await session.conversation()

    kinds = [i.get("type", "message") for i in stored]
    assert kinds == [
        "message", "reasoning", "function_call", "function_call_output", "message",
        "message", "message",
    ]  # fmt: skip
    assert stored[0] == {"role": "user", "content": "Weather in Zürich?"}
    assert stored[2]["name"] == "get_weather"
    assert json.loads(stored[2]["arguments"]) == {"city": "Zürich"}
    assert stored[3]["output"] == "Sunny in Zürich, 21 °C."
    assert stored[3]["call_id"] == stored[2]["call_id"] == "call_1"
    assert stored[5] == {"role": "user", "content": "What did I ask?"}
    # The second turn's model call saw the first turn, read back from the session.
    assert canon(model.inputs[2][:5]) == canon(stored[:5])
    assert [h.item_no for h in history] == list(range(1, 8))
    assert all(h.retracted is None for h in history)

    # The same two turns on the SDK's own SQLiteSession store the same items.
    theirs = SQLiteSession("run-1")
    await two_turns(theirs)
    assert canon(await theirs.get_items()) == canon(stored)
    theirs.close()

    with Store(module_db_dsn) as admin:
        [conv] = [
            c for c in admin.list_conversations(agent=agent) if c.conversation == conversation
        ]
    assert (conv.connector, conv.external_ref, conv.kind) == (CONNECTOR, "run-1", "direct")


# ----------------------------------------------------------- isolation and history


@pytest.fixture
def runtime(module_db_dsn: str, make_role: Callable[..., TestRole]) -> TestRole:
    return make_role("agent_state_runtime", name=f"oas rt \"ü' {uuid4().hex[:8]}")


async def test_two_agents_with_the_same_session_id_are_kept_apart(
    module_db_dsn: str, admin: Store, runtime: TestRole
) -> None:
    a, b = new_agent(admin), new_agent(admin)
    admin.grant_hosting(agent=a, host=runtime.name)
    admin.grant_hosting(agent=b, host=runtime.name)
    async with AsyncStore(runtime.dsn(module_db_dsn)) as store:
        sa = AgentStateSession("shared-id", agent=a, store=store)
        sb = AgentStateSession("shared-id", agent=b, store=store)
        await sa.add_items([{"role": "user", "content": "for A"}])
        await sb.add_items([{"role": "user", "content": "for B"}])
        assert await sa.conversation() != await sb.conversation()
        assert await sa.get_items() == [{"role": "user", "content": "for A"}]
        assert await sb.get_items() == [{"role": "user", "content": "for B"}]
        await sa.clear_session()
        assert await sa.get_items() == []
        assert await sb.get_items() == [{"role": "user", "content": "for B"}]
        assert await sa.pop_item() is None
        assert await sb.pop_item() == {"role": "user", "content": "for B"}
        history = await sa.item_history()
        assert [(h.item, h.created_by, h.retracted) for h in history] == [
            ({"role": "user", "content": "for A"}, runtime.name, "clear")
        ]


async def test_a_runtime_role_reaches_only_its_hosted_agents_sessions(
    module_db_dsn: str, admin: Store, runtime: TestRole
) -> None:
    mine, other = new_agent(admin), new_agent(admin)
    admin.grant_hosting(agent=mine, host=runtime.name)
    theirs = AgentStateSession("s", agent=other, store=admin)
    await theirs.add_items([{"role": "user", "content": "secret"}])
    conversation = await theirs.conversation()
    async with AsyncStore(runtime.dsn(module_db_dsn)) as store:
        allowed = AgentStateSession("s", agent=mine, store=store)
        await allowed.add_items([{"role": "user", "content": "mine"}])
        assert await allowed.get_items() == [{"role": "user", "content": "mine"}]
        refused = AgentStateSession("s", agent=other, store=store)
        for call in (
            refused.get_items(),
            refused.add_items([{"role": "user", "content": "x"}]),
            refused.pop_item(),
            refused.clear_session(),
            refused.item_history(),
        ):
            with pytest.raises(agent_state.PermissionDenied):
                await call
        # Not through another agent's conversation id either.
        for verb in ("session_get_items", "session_pop_item", "session_clear"):
            with pytest.raises(agent_state.Error) as e:
                await getattr(store, verb)(agent=mine, conversation=conversation)
            assert e.value.sqlstate == "23503", verb
    assert await theirs.get_items() == [{"role": "user", "content": "secret"}]


async def test_pop_and_clear_are_retractions_kept_in_the_history(
    module_db_dsn: str, admin: Store, runtime: TestRole, agent: UUID
) -> None:
    admin.grant_hosting(agent=agent, host=runtime.name)
    items: list[TResponseInputItem] = [{"role": "user", "content": f"m{i}"} for i in range(4)]
    async with AgentStateSession("h", agent=agent, dsn=runtime.dsn(module_db_dsn)) as session:
        await session.add_items(items)
        assert await session.pop_item() == items[3]
        await session.clear_session()
        await session.add_items([{"role": "user", "content": "after"}])
        assert await session.get_items() == [{"role": "user", "content": "after"}]
        history = await session.item_history()
    assert [(h.item_no, h.retracted) for h in history] == [
        (1, "clear"), (2, "clear"), (3, "clear"), (4, "pop"), (5, None)
    ]  # fmt: skip
    assert [h.item for h in history] == [*items, {"role": "user", "content": "after"}]
    assert {h.retracted_by for h in history if h.retracted} == {runtime.name}
    assert all(h.retracted_at is not None and h.retracted_at >= h.created_at
               for h in history if h.retracted)  # fmt: skip
    # Append-only in the database too: no role deletes or updates a session item.
    with psycopg.connect(runtime.dsn(module_db_dsn)) as conn:
        for statement in (
            "DELETE FROM agent_state.session_items",
            "UPDATE agent_state.session_retractions SET kind = 'pop'",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()


async def test_reads_work_in_a_read_only_transaction(module_db_dsn: str, agent: UUID) -> None:
    async with AgentStateSession("ro", agent=agent, dsn=module_db_dsn) as writer:
        await writer.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    read_only = f"{module_db_dsn} options='-c default_transaction_read_only=on'"
    async with AgentStateSession("ro", agent=agent, dsn=read_only) as reader:
        assert await reader.get_items() == [
            {"role": "user", "content": "a"}, {"role": "user", "content": "b"}
        ]  # fmt: skip
        assert await reader.get_items(1) == [{"role": "user", "content": "b"}]
        assert len(await reader.item_history()) == 2
        for call in (reader.add_items([{"role": "user", "content": "c"}]), reader.pop_item()):
            with pytest.raises(agent_state.Error) as e:
                await call
            assert e.value.sqlstate == "25006"
    async with AgentStateSession("never written", agent=agent, dsn=read_only) as unknown:
        assert await unknown.get_items() == []
        with pytest.raises(agent_state.Error):
            await unknown.add_items([{"role": "user", "content": "c"}])


# ------------------------------------------------------------------------ protocol


async def test_it_is_the_sdk_session_protocol(module_db_dsn: str, agent: UUID) -> None:
    session: Session = AgentStateSession("p", agent=agent, dsn=module_db_dsn)
    assert isinstance(session, Session)
    assert session.session_id == "p"
    assert session.session_settings == SessionSettings()
    assert await session.get_items() == []
    assert await session.pop_item() is None
    await session.clear_session()
    await session.add_items([])
    assert isinstance(session, AgentStateSession)
    await session.add_items([{"role": "user", "content": "1"}, {"role": "user", "content": "2"}])
    await session.close()
    async with AgentStateSession(
        "p", agent=agent, dsn=module_db_dsn, session_settings={"limit": 1}
    ) as limited:
        assert limited.session_settings == SessionSettings(limit=1)
        assert await limited.get_items() == [{"role": "user", "content": "2"}]
        assert len(await limited.get_items(-1)) == 2
    with pytest.raises(TypeError):
        AgentStateSession("p", agent=agent, store=Store(module_db_dsn), dsn=module_db_dsn)
    with pytest.raises(agent_state.NotFound):
        await AgentStateSession("p", agent=uuid4(), dsn=module_db_dsn).get_items()


# ------------------------------------------------------------------------ example

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openai_agents_session.py"


def test_the_example_runs(module_db_dsn: str) -> None:
    spec = importlib.util.spec_from_file_location("openai_agents_session_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example
    spec.loader.exec_module(example)
    lines: list[str] = []
    result = example.run(module_db_dsn, say=lines.append)
    assert lines[1] == "assistant: Sunny in Zürich, 21 °C."
    assert [example.kind(i) for i in result["stored"]] == [
        "user", "reasoning", "function_call", "function_call_output", "assistant",
    ]  # fmt: skip
    assert result["recited"] == "Before this you asked: What is the weather in Zürich?"
    assert canon(result["visible"]) == canon(result["stored"])
    assert [h.retracted for h in result["history"]] == [None] * 5 + ["pop", "pop"]
    assert result["other"] == []
