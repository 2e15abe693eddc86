"""The LangGraph store on agent_state memory (AgentStateStore / AsyncAgentStateStore).

There is no BaseStore conformance suite: a differential test runs random operation
sequences against LangGraph's InMemoryStore and ours and compares the results where
the semantics agree (values, namespaces, unordered search without a query). Then
what only ours does: items are memory entries with revisions and provenance, reads
never write, eligibility holds for a bound conversation, and an unattributed put
never invents evidence. And a LangMem smoke test on our store.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest

import agent_state
from agent_state import AsyncStore, Store
from conftest import TestRole

pytest.importorskip("langgraph.store.memory")
from langgraph.store.base import InvalidNamespaceError
from langgraph.store.memory import InMemoryStore

from agent_state.integrations.langgraph import (
    AgentStateStore,
    AsyncAgentStateStore,
)


def new_agent(dsn: str) -> UUID:
    with Store(dsn) as s:
        return s.create_agent(handle=f"lgs-{uuid4()}")


@pytest.fixture
def ops_store(dsn: str) -> Iterator[AgentStateStore]:
    """A store of an operator (the test superuser): unattributed puts are allowed."""
    with Store(dsn) as s:
        yield AgentStateStore(s, agent=new_agent(dsn))


def live_namespaces(store: Any) -> set[tuple[str, ...]]:
    """Namespaces holding a live item. (InMemoryStore also lists namespaces whose items
    were all deleted, or that a get touched: a quirk of its dict, not of the BaseStore
    contract; PostgresStore and ours list namespaces of stored items.)"""
    return {tuple(i.namespace) for i in store.search((), limit=10_000)}


def snapshot(store: Any, namespaces: list[tuple[str, ...]], keys: list[str]) -> Any:
    items = {}
    for ns in namespaces:
        for key in keys:
            item = store.get(ns, key)
            items[(ns, key)] = None if item is None else item.value
    listed = sorted(
        live_namespaces(store)
        if isinstance(store, InMemoryStore)
        else store.list_namespaces(limit=1000)
    )
    searched = {
        top: sorted(
            (tuple(i.namespace), i.key, json.dumps(i.value, sort_keys=True))
            for i in store.search(top, limit=1000)
        )
        for top in {ns[:1] for ns in namespaces}
    }
    filtered = sorted(
        (tuple(i.namespace), i.key)
        for i in store.search(namespaces[0][:1], filter={"colour": "red"}, limit=1000)
    )
    return items, listed, searched, filtered


@pytest.mark.parametrize("seed", range(6))
def test_differential_against_in_memory_store(ops_store: AgentStateStore, seed: int) -> None:
    rng = random.Random(seed)
    namespaces = [("users", "u1"), ("users", "u2"), ("docs",), ("users", "u1", "notes")]
    keys = ["a", "b", "c"]
    ref = InMemoryStore()
    for step in range(40):
        ns, key = rng.choice(namespaces), rng.choice(keys)
        if rng.random() < 0.7:
            value = {"text": f"item {seed}-{step} about {rng.choice(['tea', 'coffee'])}",
                     "colour": rng.choice(["red", "blue"]), "n": step}  # fmt: skip
            ref.put(ns, key, value)
            ops_store.put(ns, key, value)
        else:
            ref.delete(ns, key)
            ops_store.delete(ns, key)
        if step % 8 == 7:
            assert snapshot(ops_store, namespaces, keys) == snapshot(ref, namespaces, keys)
    assert snapshot(ops_store, namespaces, keys) == snapshot(ref, namespaces, keys)
    live = live_namespaces(ref)
    for max_depth in (1, 2):
        assert sorted(ops_store.list_namespaces(max_depth=max_depth)) == sorted(
            {ns[:max_depth] for ns in live}
        )
    assert sorted(ops_store.list_namespaces(prefix=("users",))) == sorted(
        ns for ns in live if ns[:1] == ("users",)
    )
    assert sorted(ops_store.list_namespaces(suffix=("notes",))) == sorted(
        ns for ns in live if ns[-1:] == ("notes",)
    )
    assert sorted(ops_store.list_namespaces(prefix=("users", "*"))) == sorted(
        ns for ns in live if len(ns) >= 2 and ns[0] == "users"
    )


@pytest.mark.parametrize("namespace", [("",), ("a.b",), ("a\x00b",), ("langgraph", "x"), ()])
def test_bad_namespaces_raise_what_langgraph_raises(
    ops_store: AgentStateStore, namespace: tuple[str, ...]
) -> None:
    with pytest.raises(InvalidNamespaceError):
        InMemoryStore().put(namespace, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        ops_store.put(namespace, "k", {"v": 1})


def test_not_json_values_are_refused_naming_the_key(ops_store: AgentStateStore) -> None:
    with pytest.raises(agent_state.InvalidArgument, match="'k1'"):
        ops_store.put(("ns",), "k1", {"v": object()})
    # Nested deeper than Python's json module goes: the same error, not a
    # RecursionError.
    deep: dict[str, object] = {}
    for _ in range(5000):
        deep = {"v": deep}
    with pytest.raises(agent_state.InvalidArgument, match=r"'k2'.*nested too deeply"):
        ops_store.put(("ns",), "k2", deep)


def test_the_largest_namespace_and_key_fit_and_one_byte_more_is_refused(
    ops_store: AgentStateStore,
) -> None:
    """The limits are bytes, chosen so that every item fits the store's primary key:
    within them nothing surfaces an index error (54000), even for text that does not
    compress; one byte beyond is InvalidArgument naming the argument."""
    rnd = random.Random(8)

    def text(n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz") -> str:
        return "".join(rnd.choice(alphabet) for _ in range(n))

    cjk = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 2000))  # 3 bytes each
    largest = [
        (tuple(text(9) for _ in range(100)), text(1000)),  # most label overhead
        ((*(text(200) for _ in range(4)), text(100)), text(1000)),
        ((*(text(66, cjk) for _ in range(4)), text(36, cjk)), text(333, cjk)),
    ]
    for namespace, key in largest:
        ops_store.put(namespace, key, {"v": len(namespace)})
        item = ops_store.get(namespace, key)
        assert item is not None and item.value == {"v": len(namespace)}
    with pytest.raises(agent_state.InvalidArgument, match="namespace"):
        ops_store.put((*(text(200) for _ in range(4)), text(101)), "k", {"v": 1})
    with pytest.raises(agent_state.InvalidArgument, match="namespace"):
        ops_store.put((text(67, cjk),), "k", {"v": 1})
    with pytest.raises(agent_state.InvalidArgument, match="key"):
        ops_store.put(("n",), text(334, cjk), {"v": 1})
    # What the character limits of 0.2.0 allowed and the index refused (54000).
    with pytest.raises(agent_state.InvalidArgument, match="namespace"):
        ops_store.put(tuple(text(200) for _ in range(100)), "k", {"v": 1})


def test_huge_namespaces_are_refused_from_their_size(ops_store: AgentStateStore) -> None:
    huge = ("a" * 10_000_000,)
    with pytest.raises(agent_state.InvalidArgument, match="namespace"):
        ops_store.put(huge, "k", {"v": 1})
    with pytest.raises(agent_state.InvalidArgument, match="namespace"):
        ops_store.delete(huge, "k")
    with pytest.raises(agent_state.InvalidArgument, match="prefix"):
        ops_store.list_namespaces(prefix=huge)
    with pytest.raises(agent_state.InvalidArgument, match="suffix"):
        ops_store.list_namespaces(suffix=huge)
    with pytest.raises(agent_state.InvalidArgument, match="prefix"):
        ops_store.search(huge)


def test_get_reads_exactly_its_namespace(ops_store: AgentStateStore) -> None:
    # Newer items of the same key in namespaces under it must not hide it (the
    # SQL read once took the newest items under the prefix, then filtered).
    ops_store.put(("users",), "k", {"text": "the one"})
    ops_store.put(("users", "a"), "k", {"text": "below"})
    ops_store.put(("users", "b"), "k", {"text": "below too"})
    item = ops_store.get(("users",), "k")
    assert item is not None and item.value == {"text": "the one"}
    rows = ops_store.store.graph_item_search(
        agent=ops_store.agent, namespace_prefix=["users"], item_key="k", max_results=1
    )
    assert [(tuple(r.namespace), r.key) for r in rows] == [(("users",), "k")]


def _stamps(store: Any, ns: tuple[str, ...], key: str) -> tuple[Any, Any]:
    """(created_at, updated_at) of an item, as get returns them and as search does."""
    item = store.get(ns, key)
    assert item is not None
    (found,) = [i for i in store.search(ns, limit=1000) if i.key == key]
    assert (found.created_at, found.updated_at) == (item.created_at, item.updated_at)
    return item.created_at, item.updated_at


@pytest.mark.parametrize("which", ["in-memory", "agent_state"])
def test_a_new_item_is_not_updated_before_it_is_created(
    ops_store: AgentStateStore, which: str
) -> None:
    store: Any = InMemoryStore() if which == "in-memory" else ops_store
    store.put(("users",), "ann", {"text": "likes tea"})
    created, updated = _stamps(store, ("users",), "ann")
    assert created <= updated


@pytest.mark.parametrize("which", ["in-memory", "agent_state"])
def test_an_update_advances_updated_at(ops_store: AgentStateStore, which: str) -> None:
    store: Any = InMemoryStore() if which == "in-memory" else ops_store
    store.put(("users",), "ann", {"text": "likes tea"})
    created, updated = _stamps(store, ("users",), "ann")
    store.put(("users",), "ann", {"text": "likes green tea"})
    created2, updated2 = _stamps(store, ("users",), "ann")
    assert created <= updated < updated2 and created2 <= updated2
    if which == "agent_state":
        # The item was created once: its created_at stays (Item's "timestamp of item
        # creation", as PostgresStore keeps it; InMemoryStore replaces the whole
        # item on every put and stamps it anew).
        assert created2 == created


@pytest.mark.parametrize("which", ["in-memory", "agent_state"])
def test_a_put_after_a_delete_is_a_new_item(ops_store: AgentStateStore, which: str) -> None:
    store: Any = InMemoryStore() if which == "in-memory" else ops_store
    store.put(("users",), "ann", {"text": "likes tea"})
    created, updated = _stamps(store, ("users",), "ann")
    store.delete(("users",), "ann")
    store.put(("users",), "ann", {"text": "likes coffee"})
    created2, updated2 = _stamps(store, ("users",), "ann")
    # Not the deleted item's created_at: this item was created after that one.
    assert created < created2 and updated < created2 <= updated2


def _only_item_entry(dsn: str, store: AgentStateStore) -> Any:
    """The memory entry of the store's one item (read as the superuser)."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT entry_id FROM agent_state.graph_items WHERE runtime_agent_id = %s",
            [store.agent],
        ).fetchall()
    assert len(rows) == 1, rows
    return rows[0][0]


def test_an_entry_amended_outside_the_store_keeps_its_item(
    ops_store: AgentStateStore, dsn: str
) -> None:
    ops_store.put(("users",), "bob", {"text": "likes coffee"})
    entry = _only_item_entry(dsn, ops_store)
    ops_store.store.amend(
        agent=ops_store.agent, entry=entry, body="likes coffee, black", expected_revision=1
    )
    item = ops_store.get(("users",), "bob")
    assert item is not None and item.value == {"text": "likes coffee"}
    assert [i.key for i in ops_store.search(("users",))] == ["bob"]


def test_items_are_memory_entries_with_history(ops_store: AgentStateStore, dsn: str) -> None:
    ops_store.put(("users",), "alice", {"text": "likes tea"})
    ops_store.put(("users",), "alice", {"text": "likes green tea"})
    ops_store.delete(("users",), "alice")
    entry = _only_item_entry(dsn, ops_store)
    history = ops_store.store.memory_history(agent=ops_store.agent, entry=entry)
    assert [h.operation for h in history] == ["create", "amend", "forget"]
    assert ops_store.get(("users",), "alice") is None
    state = ops_store.store.memory_entry(agent=ops_store.agent, entry=entry)
    assert state is not None and not state.live and state.revision == 3


def test_search_by_words_and_reads_never_write(ops_store: AgentStateStore, dsn: str) -> None:
    ops_store.put(("kb",), "1", {"text": "Alice is allergic to peanuts"})
    ops_store.put(("kb",), "2", {"text": "Bob lives in Lisbon"})
    hits = ops_store.search(("kb",), query="what is alice allergic to?")
    assert [h.key for h in hits] == ["1"]
    assert hits[0].score is not None and hits[0].score > 0
    # In a read-only transaction (as on a standby), every read works.
    conn = psycopg.connect(dsn, autocommit=True, options="-c default_transaction_read_only=on")
    with Store(conn, owned=True) as ro:
        store = AgentStateStore(ro, agent=ops_store.agent)
        assert store.get(("kb",), "2") is not None
        assert len(store.search(("kb",))) == 2
        assert store.list_namespaces() == [("kb",)]
        with pytest.raises(agent_state.Error):
            store.put(("kb",), "3", {"text": "x"})


@pytest.fixture
def scene(dsn: str, make_role: Callable[..., TestRole]) -> dict[str, Any]:
    """A runtime hosting an agent, two conversations with different audiences."""
    runtime = make_role("agent_state_runtime")
    with Store(dsn) as s:
        agent = s.create_agent(handle=f"lgs-{uuid4()}")
        s.grant_hosting(agent=agent, host=runtime.name)
        ann = s.resolve_actor(agent=agent, connector="c", external_id="ann")
        bob = s.resolve_actor(agent=agent, connector="c", external_id="bob")
        dm = s.open_conversation(agent=agent, connector="c", external_ref="dm-ann", kind="direct")
        bob_dm = s.open_conversation(
            agent=agent, connector="c", external_ref="dm-bob", kind="direct"
        )
        msg = s.record_message(agent=agent, conversation=dm, author=ann, body="I like tea",
                               audience=[ann])  # fmt: skip
        s.record_message(agent=agent, conversation=bob_dm, author=bob, body="hi", audience=[bob])
    return {"agent": agent, "runtime": runtime, "ann": ann, "dm": dm, "bob_dm": bob_dm,
            "msg": msg}  # fmt: skip


def test_provenance_comes_from_the_bound_message(scene: dict[str, Any], dsn: str) -> None:
    with Store(scene["runtime"].dsn(dsn)) as s:
        store = AgentStateStore(s, agent=scene["agent"])
        with pytest.raises(agent_state.MissingArgument, match="message"):
            store.put(("prefs",), "ann", {"text": "Ann likes tea"})
        bound = store.bind(conversation=scene["dm"], message=scene["msg"])
        bound.put(("prefs",), "ann", {"text": "Ann likes tea"})
        assert bound.get(("prefs",), "ann") is not None
        hits = s.recall(agent=scene["agent"], query="tea", conversation=scene["dm"])
        assert [h.body for h in hits] == ["Ann likes tea"]
        history = s.memory_history(agent=scene["agent"], entry=hits[0].entry)
        assert history[0].source_actor == scene["ann"]
        assert history[0].source_messages == [scene["msg"]]
        # Bob could not observe Ann's message: not in his conversation.
        in_bobs = store.bind(conversation=scene["bob_dm"])
        assert in_bobs.get(("prefs",), "ann") is None
        assert in_bobs.search(("prefs",)) == []
        assert s.recall(agent=scene["agent"], query="tea", conversation=scene["bob_dm"]) == []


def test_an_unattributed_operator_item_is_recalled_nowhere(
    ops_store: AgentStateStore, dsn: str
) -> None:
    ops_store.put(("kb",), "k", {"text": "the vault code is 1234"})
    with Store(dsn) as s:
        ann = s.resolve_actor(agent=ops_store.agent, connector="c", external_id="ann")
        conv = s.open_conversation(agent=ops_store.agent, connector="c", external_ref="pub",
                                   kind="public")  # fmt: skip
        s.record_message(agent=ops_store.agent, conversation=conv, author=ann, body="vault?")
        assert s.recall(agent=ops_store.agent, query="vault code", match="any") == []
        assert s.recall(agent=ops_store.agent, query="vault", conversation=conv) == []
        assert [h.text_rank for h in s.context_for(agent=ops_store.agent, conversation=conv)] == []
    assert ops_store.get(("kb",), "k") is not None  # reachable through the store only


async def test_async_store(dsn: str) -> None:
    agent = new_agent(dsn)
    async with AsyncStore(dsn) as s:
        store = AsyncAgentStateStore(s, agent=agent)
        await store.aput(("a", "b"), "k", {"text": "hello world"})
        item = await store.aget(("a", "b"), "k")
        assert item is not None and item.value == {"text": "hello world"}
        assert [i.key for i in await store.asearch(("a",), query="hello")] == ["k"]
        assert await store.alist_namespaces() == [("a", "b")]
        await store.adelete(("a", "b"), "k")
        assert await store.aget(("a", "b"), "k") is None


def test_langmem_tools_on_our_store(ops_store: AgentStateStore) -> None:
    langmem = pytest.importorskip("langmem")
    manage = langmem.create_manage_memory_tool(namespace=("memories",), store=ops_store)
    search = langmem.create_search_memory_tool(namespace=("memories",), store=ops_store)
    out = manage.invoke({"content": "The user prefers green tea", "action": "create"})
    assert "created memory" in str(out).lower()
    found = search.invoke({"query": "green tea"})
    assert "green tea" in str(found)
    items = ops_store.search(("memories",))
    assert len(items) == 1 and "green tea" in str(items[0].value)


def test_langmem_memory_store_manager_on_our_store(ops_store: AgentStateStore, dsn: str) -> None:
    """LangMem's background memory manager (a fake chat model that always extracts one
    memory): it searches our store for what it knows, then puts what it extracted; the
    items are memory entries with a revision each."""
    langmem = pytest.importorskip("langmem")
    fake = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    from langchain_core.messages import AIMessage

    class ToolCallingFake(fake.GenericFakeChatModel):  # type: ignore[misc,name-defined]
        def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
            return self

    facts = iter(["The user likes green tea", "The user is allergic to peanuts"])

    def replies() -> Iterator[AIMessage]:
        for fact in facts:
            call = {"name": "Memory", "args": {"content": fact}, "id": str(uuid4()),
                    "type": "tool_call"}  # fmt: skip
            yield AIMessage(content="", tool_calls=[call])

    manager = langmem.create_memory_store_manager(
        ToolCallingFake(messages=replies()), namespace=("memories",), store=ops_store
    )
    manager.invoke({"messages": [{"role": "user", "content": "I love green tea"}]})
    manager.invoke({"messages": [{"role": "user", "content": "Peanuts make me ill"}]})
    items = ops_store.search(("memories",), limit=10)
    contents = sorted(i.value["content"]["content"] for i in items)
    assert contents == ["The user is allergic to peanuts", "The user likes green tea"]
    found = ops_store.search(("memories",), query="peanuts")
    assert [i.value["content"]["content"] for i in found] == ["The user is allergic to peanuts"]
    with psycopg.connect(dsn) as conn:
        n = conn.execute(
            "SELECT count(*) FROM agent_state.graph_items AS i"
            " JOIN agent_state.memory_revisions AS r"
            "   ON r.runtime_agent_id = i.runtime_agent_id AND r.entry_id = i.entry_id"
            " WHERE i.runtime_agent_id = %s",
            [ops_store.agent],
        ).fetchone()
    assert n == (2,)
