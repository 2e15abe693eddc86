"""A LangGraph agent on agent_state: checkpointer and store, three turns, a crash, a resume.

    python examples/langgraph_agent.py            # a throwaway PostgreSQL
    python examples/langgraph_agent.py --dsn ...  # an existing database (agent_state installed)

Needs the ``langgraph`` extra. The chat model is a fake that answers from a script,
so the example runs offline; put a real one in its place. What it shows:

1. each turn is recorded as a message of the thread's conversation, and the store
   is bound to it, so the memory the graph writes has provenance (who said it, who
   could observe it);
2. the third turn crashes inside a node, after LangGraph checkpointed its input;
3. a new process (a new connection and saver) resumes the thread from the last
   checkpoint, and ``recover_run`` tells where it stood and what is unconfirmed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore

import agent_state
from agent_state.integrations.langgraph import AgentStateSaver, AgentStateStore

THREAD = "support-42"


class Crash(RuntimeError):
    """The simulated process crash of turn 3."""


def fake_model(*replies: str) -> GenericFakeChatModel:
    """Stands in for a chat model: answers with the scripted replies, in order."""
    return GenericFakeChatModel(messages=iter([AIMessage(r) for r in replies]))


def build(saver: AgentStateSaver, store: AgentStateStore, model: Any, crash_on: str | None) -> Any:

    def remember(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
        last = state["messages"][-1]
        if "allergic" in str(last.content):
            store.put(("users", "ann"), "allergy", {"text": str(last.content)})
        return {}

    def answer(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
        if crash_on and crash_on in str(state["messages"][-1].content):
            raise Crash("the process died here")
        facts = [i.value["text"] for i in store.search(("users", "ann"))]
        reply = model.invoke(state["messages"])
        return {"messages": [AIMessage(f"{reply.content} (known: {'; '.join(facts)})")]}

    builder = StateGraph(MessagesState)
    builder.add_node("remember", remember)
    builder.add_node("answer", answer)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "answer")
    return builder.compile(checkpointer=saver, store=store)


def turn(store: agent_state.Store, agent: UUID, ann: UUID, text: str) -> AgentStateStore:
    """Record the user's message in the thread's conversation and bind the store to it."""
    conv = store.open_conversation(agent=agent, connector="langgraph", external_ref=THREAD)
    msg = store.record_message(agent=agent, conversation=conv, author=ann, body=text,
                               audience=[ann])  # fmt: skip
    return AgentStateStore(store, agent=agent).bind(conversation=conv, message=msg)


def run(dsn: str, say: Any = print) -> dict[str, Any]:
    with agent_state.Store(dsn) as s:
        agent = s.create_agent(handle=f"langgraph-example-{uuid4()}")
        ann = s.resolve_actor(agent=agent, connector="langgraph", external_id="ann",
                              display_name="Ann")  # fmt: skip
        saver = AgentStateSaver(s, agent=agent)
        model = fake_model("Noted: you are allergic to peanuts.", "A peanut-free snack, then.")
        config = {"configurable": {"thread_id": THREAD}}
        said = ["I am allergic to peanuts.", "Can you suggest a snack for my flight?",
                "Make it a list, please."]  # fmt: skip
        for n, text in enumerate(said, 1):
            graph = build(saver, turn(s, agent, ann, text), model, crash_on="list")
            try:
                out = graph.invoke({"messages": [HumanMessage(text)]}, config)
                say(f"turn {n}: {out['messages'][-1].content}")
            except Crash as e:
                say(f"turn {n}: crashed ({e})")

    # A new process: new connection, new saver; the thread resumes from its last
    # checkpoint (the crashed node runs again).
    with agent_state.Store(dsn) as s:
        saver = AgentStateSaver(s, agent=agent)
        state = saver.get_tuple({"configurable": {"thread_id": THREAD}})
        assert state is not None
        say(f"resuming from checkpoint {state.config['configurable']['checkpoint_id']}"
            f" (step {state.metadata.get('step')})")  # fmt: skip
        store = AgentStateStore(s, agent=agent)
        graph = build(saver, store, fake_model("Here is a peanut-free snack list."), crash_on=None)
        out = graph.invoke(None, {"configurable": {"thread_id": THREAD}})
        reply = str(out["messages"][-1].content)
        say(f"turn 3 (resumed): {reply}")
        conv = s.open_conversation(agent=agent, connector="langgraph", external_ref=THREAD)
        runs = list(s.recall(agent=agent, query="peanuts", conversation=conv))
        say(f"memory with provenance: {[r.body for r in runs]}")
        latest = s.graph_list(agent=agent, thread=THREAD, max_results=1)[0]
        recovered = s.recover_run(agent=agent, run=latest.run_id)
        say(f"recover_run: status {recovered['status']}, resume at {recovered['frontier']}")
        history = list(saver.list({"configurable": {"thread_id": THREAD}}))
        say(f"{len(history)} checkpoints in the thread")
        return {"reply": reply, "memories": [r.body for r in runs], "checkpoints": len(history),
                "agent": agent}  # fmt: skip


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
