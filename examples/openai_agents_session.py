"""An OpenAI Agents SDK agent whose conversation history lives in agent_state.

    python examples/openai_agents_session.py            # a throwaway PostgreSQL
    python examples/openai_agents_session.py --dsn ...  # a database with agent_state

Needs the ``openai-agents`` extra. The model is a stand-in that decides from its
input (no network, no API key); put a real one in its place (``model="gpt-..."``).
What it shows:

1. ``Runner.run(..., session=AgentStateSession(...))``: every item of a run (the
   user's message, the model's reasoning and tool call, the tool's output, the
   answer) is appended to the agent's conversation for that session id;
2. the next run reads that history back, also from a new process (a new connection);
3. ``pop_item`` (undoing the last exchange) hides items from the model and keeps
   them, with who removed them and when, in ``item_history``;
4. the same session id under another agent is another, separate session.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import uuid4

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from agents import Agent, ModelResponse, ModelSettings, RunConfig, Runner, function_tool
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_reasoning_item import Summary

import agent_state
from agent_state.integrations.openai_agents import AgentStateSession

SESSION = "user-ann"


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: the city's name.
    """
    return f"Sunny in {city}, 21 °C."


class StandInModel(Model):
    """Stands in for a model: calls get_weather when asked about the weather, answers
    with the tool's output after it, and otherwise recites the questions it sees in
    its input (which is how the example shows what the session gave it)."""

    async def get_response(
        self, system_instructions: str | None, input: str | list[TResponseInputItem],
        model_settings: ModelSettings, tools: list[Any], output_schema: Any,
        handoffs: list[Any], tracing: Any, *, previous_response_id: str | None,
        conversation_id: str | None, prompt: Any,
    ) -> ModelResponse:  # fmt: skip
        given = input if isinstance(input, list) else [{"role": "user", "content": input}]
        items: list[dict[str, Any]] = [dict(i) for i in given]
        last = items[-1]
        n = len(items)
        if last.get("type") == "function_call_output":
            return reply(text(f"{last['output']}", n))
        question = str(last.get("content", ""))
        if "weather in" in question:
            city = question.rsplit("weather in", 1)[1].strip(" ?")
            return reply(
                ResponseReasoningItem(
                    id=f"rs_{n}", type="reasoning",
                    summary=[Summary(text="A weather question.", type="summary_text")],
                ),
                ResponseFunctionToolCall(
                    id=f"fc_{n}", call_id=f"call_{n}", type="function_call", status="completed",
                    name="get_weather", arguments=json.dumps({"city": city}, ensure_ascii=False),
                ),
            )  # fmt: skip
        asked = [str(i["content"]) for i in items[:-1] if i.get("role") == "user"]
        return reply(text("Before this you asked: " + (" | ".join(asked) or "nothing"), n))

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the stand-in model does not stream")


def text(answer: str, n: int) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{n}", type="message", role="assistant", status="completed",
        content=[ResponseOutputText(type="output_text", text=answer, annotations=[])],
    )  # fmt: skip


def reply(*output: TResponseOutputItem) -> ModelResponse:
    return ModelResponse(output=list(output), usage=Usage(), response_id=None)


ASSISTANT = Agent(
    name="assistant", instructions="Answer briefly.", model=StandInModel(), tools=[get_weather]
)
CONFIG = RunConfig(tracing_disabled=True)


async def ask(session: AgentStateSession, question: str, say: Any) -> str:
    result = await Runner.run(ASSISTANT, question, session=session, run_config=CONFIG)
    say(f"user: {question}")
    say(f"assistant: {result.final_output}")
    return str(result.final_output)


async def example(dsn: str, say: Any = print) -> dict[str, Any]:
    async with agent_state.AsyncStore(dsn) as store:
        agent = await store.create_agent(handle=f"agents-sdk-example-{uuid4()}")
        other = await store.create_agent(handle=f"agents-sdk-other-{uuid4()}")

    # 1. A run with a tool call: every item is stored in the session.
    async with AgentStateSession(SESSION, agent=agent, dsn=dsn) as session:
        await ask(session, "What is the weather in Zürich?", say)
        stored = await session.get_items()
        say(f"{len(stored)} items stored: " + ", ".join(kind(i) for i in stored))

    # 2. A new process (a new connection): the history is in the database.
    async with AgentStateSession(SESSION, agent=agent, dsn=dsn) as session:
        recited = await ask(session, "What did I ask?", say)

        # 3. Undo the last exchange: the answer, then the question.
        popped = [await session.pop_item(), await session.pop_item()]
        say(f"popped: {', '.join(kind(i) for i in popped if i is not None)}")
        visible = await session.get_items()
        history = await session.item_history()
        say(f"{len(visible)} items visible, {len(history)} in the history:")
        for h in history:
            retracted = f", retracted ({h.retracted}) by {h.retracted_by}" if h.retracted else ""
            say(f"  #{h.item_no} {kind(h.item)} added by {h.created_by}{retracted}")

    # 4. The same session id under another agent: a separate, empty session.
    async with AgentStateSession(SESSION, agent=other, dsn=dsn) as elsewhere:
        separate = await elsewhere.get_items()
        say(f"the other agent's session {SESSION!r}: {len(separate)} items")

    return {"stored": stored, "recited": recited, "visible": visible, "history": history,
            "other": separate}  # fmt: skip


def kind(item: Any) -> str:
    """A short name for an item: its type, or the role of a plain message."""
    return str(item.get("type") if item.get("type") not in (None, "message") else item["role"])


def run(dsn: str, say: Any = print) -> dict[str, Any]:
    return asyncio.run(example(dsn, say))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dsn", help="a database with agent_state (default: a throwaway cluster)")
    args = ap.parse_args(argv)
    if args.dsn:
        run(args.dsn)
        return 0
    from agent_state.embedded import TemporaryCluster

    with TemporaryCluster(fsync=False) as cluster:
        dsn = cluster.dsn()
        agent_state.install(dsn)
        run(dsn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
