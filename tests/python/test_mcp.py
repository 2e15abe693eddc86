"""``agent-state mcp`` through the ``mcp`` SDK's own client (``ClientSession``), over
stdio (the server spawned with ``stdio_client``) and over streamable HTTP: the tools and
their schemas, evidence recorded in the same transaction as the memory, tool errors
with a SQLSTATE, isolation by the DSN's role, the bearer token, two clients writing at
once, a restart, and the example client configuration."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import httpx2
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

import agent_state
from agent_state import Store
from conftest import RuntimeRole, TestRole, new_handle, offers_pgvector

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLE = ROOT / "examples" / "mcp_config.json"
DOCS = ROOT / "docs" / "integrations.md"
PACKAGE_DIR = Path(agent_state.__file__).resolve().parents[1]
TOKEN = "test-token-" + uuid4().hex
TIMEOUT = 60

TOOLS = {"remember", "recall", "context", "amend", "forget", "memory_history", "active_persona"}


# --------------------------------------------------------------------- helpers


def _env(**extra: str) -> dict[str, str]:
    """The server's environment: this checkout's package, no DSN but the --dsn given."""
    env = {k: v for k, v in os.environ.items() if k not in ("AGENT_STATE_DSN", "DATABASE_URL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_DIR), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def _argv(dsn: str, agent: object, *more: str, user: str = "mcp:alice") -> list[str]:
    return ["mcp", "--dsn", dsn, "--agent", str(agent), "--user", user, *more]


def stdio_params(
    dsn: str, agent: object, *more: str, user: str = "mcp:alice"
) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_state", *_argv(dsn, agent, *more, user=user)],
        env=_env(),
    )


@asynccontextmanager
async def stdio_session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@contextmanager
def http_server(dsn: str, agent: object, *more: str, token: str = TOKEN) -> Iterator[str]:
    """An ``agent-state mcp --http 127.0.0.1:0`` process; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_state", *_argv(dsn, agent, "--http", "127.0.0.1:0", *more)],
        env=_env(AGENT_STATE_MCP_TOKEN=token),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                url.append(m.group(1))
                found.set()
        found.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        found.wait(TIMEOUT)
        assert url, f"the server did not start: {''.join(lines)}"
        yield url[0]
    finally:
        proc.terminate()
        try:
            proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_session(url: str, token: str = TOKEN) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT) as h,
        streamable_http_client(url, http_client=h) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """An exception and, for a group (anyio task groups raise them), its members."""
    yield exc
    for inner in getattr(exc, "exceptions", ()):
        yield from _leaves(inner)


async def call(session: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    return await session.call_tool(tool, arguments)


async def ok(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a call that must succeed."""
    result = await call(session, tool, **arguments)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert not result.is_error, f"{tool} failed: {text}"
    data: dict[str, Any] | None = result.structured_content
    assert data is not None
    assert json.loads(text) == data
    return data


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The SQLSTATE of a call that must fail with a tool error (the text carries it too)."""
    result = await call(session, tool, **arguments)
    assert result.is_error, f"{tool} should have failed: {result.structured_content}"
    failure = result.structured_content
    assert failure is not None and failure["message"], result
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert text.startswith(f"SQLSTATE {failure['sqlstate']}: "), text
    assert failure["message"] in text
    return str(failure["sqlstate"])


def run_server(
    argv: Sequence[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Start a server that must refuse to start (it gets no client)."""
    return subprocess.run(
        [sys.executable, "-m", "agent_state", *argv],
        env=env or _env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


# --------------------------------------------------------------------- fixtures


class Scene:
    """An agent with a persona and an operator note, hosted by a runtime role."""

    def __init__(self, store: Store, admin_dsn: str, runtime: RuntimeRole) -> None:
        self.admin = store
        self.admin_dsn = admin_dsn
        self.handle = new_handle("mcp")
        self.agent = store.create_agent(handle=self.handle)
        store.revise_persona(agent=self.agent, body="You are the support bot of Example Inc.")
        self.note = store.note(agent=self.agent, body="Opening hours are nine to five.").entry
        store.grant_hosting(agent=self.agent, host=runtime.name)
        runtime.hosted.append(self.agent)
        self.dsn = runtime.dsn

    def user(self, external_id: str = "alice") -> UUID:
        return self.admin.resolve_actor(agent=self.agent, connector="mcp", external_id=external_id)


@pytest.fixture
def scene(store: Store, dsn: str, runtime_role: RuntimeRole) -> Scene:
    return Scene(store, dsn, runtime_role)


# --------------------------------------------------------------------- the tools


async def test_tools_are_listed_with_schemas_a_model_can_follow(scene: Scene) -> None:
    async with stdio_session(stdio_params(scene.dsn, scene.agent)) as s:
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert set(listed) == TOOLS
        for tool in listed.values():
            assert tool.description and len(tool.description) > 40, tool.name
            assert tool.output_schema is not None, tool.name
            for name, prop in tool.input_schema.get("properties", {}).items():
                assert prop.get("description"), f"{tool.name}.{name} has no description"
        required = {n: set(t.input_schema.get("required", [])) for n, t in listed.items()}
        assert required["remember"] == {"body", "user_message"}
        assert required["amend"] == {"entry", "body", "expected_revision"}
        assert required["recall"] == {"query"}
        assert required["forget"] == required["memory_history"] == {"entry"}
        assert required["active_persona"] == set()
        recall = listed["recall"].input_schema["properties"]
        assert recall["match"]["default"] == "any"
        assert listed["memory_history"].annotations is not None
        assert listed["memory_history"].annotations.read_only_hint is True
        assert listed["forget"].annotations is not None
        assert listed["forget"].annotations.destructive_hint is True
        # no tool takes the agent: the server is bound to one at start
        for tool in listed.values():
            assert "agent" not in tool.input_schema.get("properties", {})
        resources = (await s.list_resources()).resources
        assert [str(r.uri) for r in resources] == ["agent-state://persona"]


async def test_remember_records_the_users_words_as_evidence(scene: Scene) -> None:
    async with stdio_session(stdio_params(scene.dsn, scene.agent)) as s:
        got = await ok(
            s,
            "remember",
            body="Alice is allergic to peanuts.",
            user_message="I'm allergic to peanuts, by the way",
            about_user=True,
        )
        assert got["revision"] == 1
        again = await ok(
            s,
            "remember",
            body="Alice travels on Friday.",
            user_message="I fly out on Friday",
        )
        assert again["conversation"] == got["conversation"]  # one conversation per session
        assert again["message"] != got["message"]
    alice = scene.user()
    (conversation,) = scene.admin.list_conversations(agent=scene.agent)
    assert conversation.connector == "mcp" and conversation.kind == "direct"
    assert str(conversation.conversation) == got["conversation"]
    (first, *_) = scene.admin.memory_history(agent=scene.agent, entry=got["entry"])
    assert first.source_type == "agent"
    assert first.source_actor == alice
    assert first.subject == alice
    assert [str(m) for m in first.source_messages or []] == [got["message"]]
    with psycopg.connect(scene.admin_dsn) as conn:  # a superuser reads the message itself
        row = conn.execute(
            "SELECT author_id, body, audience FROM agent_state.messages WHERE message_id = %s",
            (got["message"],),
        ).fetchone()
    assert row == (alice, "I'm allergic to peanuts, by the way", [alice])


async def test_each_tool(scene: Scene) -> None:
    async with stdio_session(stdio_params(scene.dsn, scene.agent)) as s:
        persona = await ok(s, "active_persona")
        assert persona["revision"] == 1
        assert persona["body"] == "You are the support bot of Example Inc."
        (contents,) = (await s.read_resource("agent-state://persona")).contents
        assert getattr(contents, "text", None) == persona["body"]

        # Before any of the user's words are recorded, only notes are eligible.
        before = await ok(s, "recall", query="what are the opening hours")
        assert [m["body"] for m in before["memories"]] == ["Opening hours are nine to five."]
        assert before["conversation"] is None

        mem = await ok(
            s,
            "remember",
            body="Alice prefers tea over coffee.",
            user_message="tea for me, never coffee",
            about_user=True,
        )
        entry = mem["entry"]
        # match 'any' by default: a question shares a word with the memory
        hits = await ok(s, "recall", query="which drink would alice like, coffee?")
        assert [m["entry"] for m in hits["memories"]][:1] == [entry]
        assert hits["memories"][0]["about_user"] is True
        assert hits["conversation"] == mem["conversation"]
        strict = await ok(s, "recall", query="which drink would alice like", match="all")
        assert strict["memories"] == []

        amended = await ok(
            s,
            "amend",
            entry=entry,
            body="Alice prefers green tea.",
            expected_revision=1,
            user_message="green tea, actually",
        )
        assert amended["revision"] == 2
        assert await refused(s, "amend", entry=entry, body="stale", expected_revision=1) == "40001"

        history = await ok(s, "memory_history", entry=entry)
        assert [r["operation"] for r in history["revisions"]] == ["create", "amend"]
        assert history["revisions"][1]["body"] == "Alice prefers green tea."
        assert len(history["revisions"][1]["source_messages"]) == 2  # earlier evidence kept
        assert amended["message"] in history["revisions"][1]["source_messages"]

        context = await ok(s, "context", user_message="could I get a green tea?")
        assert context["memories"][0]["entry"] == entry
        assert context["conversation"] == mem["conversation"]

        assert await refused(s, "forget", entry=entry, expected_revision=1) == "40001"
        gone = await ok(s, "forget", entry=entry, expected_revision=2, reason="asked to")
        assert gone["revision"] == 3
        assert (await ok(s, "recall", query="green tea"))["memories"] == []
        assert await refused(s, "amend", entry=entry, body="x", expected_revision=3) == "55000"
        assert await refused(s, "forget", entry=entry) == "55000"
        history = await ok(s, "memory_history", entry=entry)
        assert [r["operation"] for r in history["revisions"]] == ["create", "amend", "forget"]


async def test_a_failing_call_writes_nothing(scene: Scene) -> None:
    async with stdio_session(stdio_params(scene.dsn, scene.agent)) as s:
        # The words are recorded first; the memory verb then fails: nothing stays.
        assert await refused(s, "remember", body="x" * 100_001, user_message="hello") == "22023"
        assert await refused(s, "remember", body="", user_message="hello") == "22023"
        assert (
            await refused(s, "remember", body="ok", user_message="hi", visibility="public")
            == "22023"
        )
        assert await refused(
            s, "amend", entry=str(uuid4()), body="b", expected_revision=1, user_message="hello"
        ) in ("P0002", "23503")
    assert scene.admin.list_conversations(agent=scene.agent) == []
    assert [m.body for m in scene.admin.list_memories(agent=scene.agent)] == [
        "Opening hours are nine to five."
    ]


async def test_bad_input_is_a_tool_error_with_a_sqlstate_and_the_server_serves_on(
    scene: Scene,
) -> None:
    async with stdio_session(stdio_params(scene.dsn, scene.agent)) as s:
        assert await refused(s, "memory_history", entry="not-a-uuid") == "22P02"
        assert await refused(s, "memory_history", entry=str(uuid4())) == "P0002"
        assert await refused(s, "amend", entry=str(uuid4()), body="b") == "22004"
        assert await refused(s, "recall", query="x", max_results=0) == "22023"
        assert await refused(s, "recall", query="x", match="some") == "22023"
        assert await refused(s, "recall", query="x", as_of="yesterday") == "22023"
        assert await refused(s, "remember", body="b", user_message="") == "22023"
        assert await refused(s, "remember", body="nul \x00", user_message="w") == "22023"
        assert await refused(s, "recall", query="x" * 10_001) == "22023"
        unknown = await call(s, "no_such_tool")
        assert unknown.is_error
        # still serving, and nothing of the above was written
        assert (await ok(s, "active_persona"))["revision"] == 1
        mem = await ok(s, "remember", body="Still here.", user_message="are you still here?")
        assert mem["revision"] == 1
    assert len(scene.admin.list_memories(agent=scene.agent)) == 2


# --------------------------------------------------------------------- isolation


async def test_a_server_bound_to_one_agent_cannot_reach_another(scene: Scene, store: Store) -> None:
    """The runtime hosts A only; B's entry ids, passed as arguments, reach nothing."""
    other = store.create_agent(handle=new_handle("mcp-b"))
    bob = store.resolve_actor(agent=other, connector="mcp", external_id="alice")
    conv = store.open_conversation(agent=other, connector="mcp", external_ref="b", kind="direct")
    msg = store.record_message(
        agent=other, conversation=conv, author=bob, body="my locker code is 4711", audience=[bob]
    )
    secret = store.remember(agent=other, body="Locker code 4711.", source_message=msg)
    history_before = store.memory_history(agent=other, entry=secret.entry)

    async with stdio_session(stdio_params(scene.dsn, scene.agent)) as s:
        await ok(s, "remember", body="A's own memory.", user_message="remember this for A")
        b_entry = str(secret.entry)
        # 23503: a reference across perspectives, refused before anything is read
        assert await refused(s, "memory_history", entry=b_entry) == "23503"
        assert (
            await refused(s, "amend", entry=b_entry, body="mine now", expected_revision=1)
            == "23503"
        )
        assert await refused(s, "forget", entry=b_entry) == "23503"
        for query in ("locker code 4711", "4711"):
            hits = await ok(s, "recall", query=query, user_message="what is my locker code")
            assert all(m["entry"] != b_entry for m in hits["memories"])
            assert all("4711" not in m["body"] for m in hits["memories"])
        # an extra argument naming B is not a way in
        sneaky = await call(s, "memory_history", entry=b_entry, agent=str(other))
        assert sneaky.is_error
        sneaky = await call(s, "recall", query="4711", agent=str(other))
        assert "4711" not in json.dumps(sneaky.structured_content)
    assert store.memory_history(agent=other, entry=secret.entry) == history_before
    assert [c.conversation for c in store.list_conversations(agent=other)] == [conv]


def test_a_role_that_may_not_act_for_the_agent_is_refused_at_start(
    scene: Scene, store: Store, make_role: Callable[..., TestRole], dsn: str
) -> None:
    handle = new_handle("mcp-b")
    other = store.create_agent(handle=handle)
    done = run_server(_argv(scene.dsn, other))
    assert done.returncode == 1, done.stderr
    assert "may not act for agent" in done.stderr and "[42501]" in done.stderr
    # by handle: the role cannot even find it
    done = run_server(_argv(scene.dsn, handle))
    assert done.returncode == 1
    assert "[P0002]" in done.stderr
    # a role in neither group role
    stranger = make_role()
    done = run_server(_argv(stranger.dsn(dsn), scene.agent))
    assert done.returncode == 1
    assert "[42501]" in done.stderr
    # an unknown --conversation
    done = run_server(_argv(scene.dsn, scene.agent, "--conversation", str(uuid4())))
    assert done.returncode == 1
    assert "[P0002]" in done.stderr and "--conversation" in done.stderr


# --------------------------------------------------------------------- HTTP


def test_http_needs_a_token_to_start(scene: Scene) -> None:
    env = _env()
    env.pop("AGENT_STATE_MCP_TOKEN", None)
    done = run_server(_argv(scene.dsn, scene.agent, "--http", "127.0.0.1:0"), env)
    assert done.returncode == 1
    assert "AGENT_STATE_MCP_TOKEN" in done.stderr
    done = run_server(
        _argv(scene.dsn, scene.agent, "--http", "0"), _env(AGENT_STATE_MCP_TOKEN="  ")
    )
    assert done.returncode == 1


async def test_http_without_the_token_gets_401(scene: Scene) -> None:
    with http_server(scene.dsn, scene.agent) as url:
        assert url.startswith("http://127.0.0.1:")  # loopback by default
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(timeout=TIMEOUT) as h:
            for auth in (None, "Bearer wrong", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN):
                sent = headers if auth is None else {**headers, "Authorization": auth}
                r = await h.post(url, json=initialize, headers=sent)
                assert r.status_code == 401, auth
                assert r.headers["www-authenticate"].startswith("Bearer")
            r = await h.get(url, headers=headers)
            assert r.status_code == 401
            r = await h.post(
                url, json=initialize, headers={**headers, "Authorization": f"Bearer {TOKEN}"}
            )
            assert r.status_code == 200
        with pytest.raises(Exception) as caught:
            async with http_session(url, token="wrong"):
                pass
        assert any(isinstance(e, MCPError) for e in _leaves(caught.value)), caught.value
        async with http_session(url) as s:
            assert (await ok(s, "active_persona"))["revision"] == 1


async def test_two_clients_at_once_lose_no_write(scene: Scene) -> None:
    with http_server(scene.dsn, scene.agent) as url:
        async with http_session(url) as one, http_session(url) as two:

            async def writes(s: ClientSession, who: str) -> list[dict[str, Any]]:
                return list(
                    await asyncio.gather(
                        *(
                            ok(
                                s,
                                "remember",
                                body=f"{who} fact {i}.",
                                user_message=f"{who} says fact {i}",
                            )
                            for i in range(8)
                        )
                    )
                )

            a, b = await asyncio.gather(writes(one, "one"), writes(two, "two"))
            assert {m["conversation"] for m in a} != {m["conversation"] for m in b}
            assert len({m["conversation"] for m in a}) == 1
            entries = {m["entry"] for m in a + b}
            assert len(entries) == 16

            # both amend one entry from the same revision: one wins, one is refused
            target = a[0]["entry"]
            results = await asyncio.gather(
                call(one, "amend", entry=target, body="one's version", expected_revision=1),
                call(two, "amend", entry=target, body="two's version", expected_revision=1),
            )
            assert sorted(r.is_error for r in results) == [False, True]
            loser = next(r for r in results if r.is_error)
            assert loser.structured_content is not None
            assert loser.structured_content["sqlstate"] == "40001"
    memories = scene.admin.list_memories(agent=scene.agent, max_results=100)
    assert {str(m.entry) for m in memories} == entries | {str(scene.note)}
    history = scene.admin.memory_history(agent=scene.agent, entry=target)
    assert [r.revision for r in history] == [1, 2]


# --------------------------------------------------------------------- restart


async def test_a_restarted_server_finds_what_the_last_one_wrote(scene: Scene) -> None:
    params = stdio_params(scene.dsn, scene.agent)
    async with stdio_session(params) as s:
        mem = await ok(
            s,
            "remember",
            body="Alice's dog is called Rex.",
            user_message="my dog Rex says hi",
            about_user=True,
        )
    async with stdio_session(params) as s:  # a new process: nothing kept in memory
        history = await ok(s, "memory_history", entry=mem["entry"])
        assert history["revisions"][0]["body"] == "Alice's dog is called Rex."
        hits = await ok(
            s, "recall", query="what is my dog called", user_message="what is my dog called?"
        )
        assert hits["memories"][0]["entry"] == mem["entry"]
        assert hits["conversation"] != mem["conversation"]  # a new session
        amended = await ok(
            s, "amend", entry=mem["entry"], body="Alice's dog is Rex, a pug.", expected_revision=1
        )
        assert amended["revision"] == 2


async def test_a_given_conversation_is_used_by_every_session(scene: Scene) -> None:
    alice = scene.user()
    conv = scene.admin.open_conversation(
        agent=scene.agent, connector="slack", external_ref="D1", kind="direct"
    )
    scene.admin.record_message(
        agent=scene.agent, conversation=conv, author=alice, body="hi from slack", audience=[alice]
    )
    params = stdio_params(scene.dsn, scene.agent, "--conversation", str(conv))
    async with stdio_session(params) as s:
        first = await ok(s, "remember", body="Alice uses Slack.", user_message="on slack now")
        assert first["conversation"] == str(conv)
        seen = await ok(s, "recall", query="slack")
        assert seen["conversation"] == str(conv)
        assert seen["memories"][0]["entry"] == first["entry"]
    async with stdio_session(params) as s:
        again = await ok(s, "remember", body="Alice said it twice.", user_message="on slack now")
        assert again["message"] == first["message"]  # the same words: the same message
    assert [c.conversation for c in scene.admin.list_conversations(agent=scene.agent)] == [conv]


# --------------------------------------------------------------------- an embedder


def toy_embedder(texts: list[str]) -> list[list[float]]:
    """A deterministic bag-of-words embedder (8 dimensions, never the zero vector), for
    ``--embedder test_mcp:toy_embedder``."""
    vectors = []
    for text in texts:
        vector = [0.01] + [0.0] * 7
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 8] += 1.0
        vectors.append(vector)
    return vectors


def _runtime_scene(admin_dsn: str, runtime: TestRole) -> UUID:
    with Store(admin_dsn) as admin:
        agent = admin.create_agent(handle=new_handle("mcp-e"))
        admin.grant_hosting(agent=agent, host=runtime.name)
    return agent


def test_an_embedder_needs_pgvector_at_start(
    fresh_db_dsn: str, make_role: Callable[..., TestRole]
) -> None:
    with psycopg.connect(fresh_db_dsn) as conn:
        row = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'")
        if row.fetchone() != (0,):
            pytest.skip("the template database has pgvector")
    runtime = make_role("agent_state_runtime")
    agent = _runtime_scene(fresh_db_dsn, runtime)
    argv = _argv(runtime.dsn(fresh_db_dsn), agent, "--embedder", f"{__name__}:toy_embedder")
    done = run_server(
        [*argv, "--model", "toy"],
        _env(PYTHONPATH=os.pathsep.join([str(PACKAGE_DIR), str(HERE)])),
    )
    assert done.returncode == 1
    assert "[0A000]" in done.stderr and "pgvector" in done.stderr


async def test_with_an_embedder_every_revision_written_is_embedded(
    fresh_db_dsn: str, make_role: Callable[..., TestRole]
) -> None:
    if not offers_pgvector(fresh_db_dsn):
        pytest.skip("pgvector is not installed on this server")
    with psycopg.connect(fresh_db_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    runtime = make_role("agent_state_runtime")
    agent = _runtime_scene(fresh_db_dsn, runtime)
    argv = _argv(runtime.dsn(fresh_db_dsn), agent, "--embedder", f"{__name__}:toy_embedder")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_state", *argv, "--model", "toy"],
        env=_env(PYTHONPATH=os.pathsep.join([str(PACKAGE_DIR), str(HERE)])),
    )
    async with stdio_session(params) as s:
        mem = await ok(
            s, "remember", body="Alice is allergic to peanuts.", user_message="peanuts make me ill"
        )
        hits = await ok(s, "recall", query="what may alice not eat", match="all")
        # no memory has every word: found on the embedding axis
        assert [m["entry"] for m in hits["memories"]] == [mem["entry"]]
        await ok(
            s, "amend", entry=mem["entry"], body="Alice is allergic to nuts.", expected_revision=1
        )
    with Store(fresh_db_dsn) as admin:
        assert admin.pending_embeddings(agent=agent, model="toy") == []
        admin.revoke_hosting(agent=agent, host=runtime.name)


# --------------------------------------------------------------------- the example


def test_the_example_config_starts_the_server(
    fresh_db_dsn: str, make_role: Callable[..., TestRole]
) -> None:
    config = json.loads(EXAMPLE.read_text())
    (entry,) = config["mcpServers"].values()
    args: list[str] = list(entry["args"])
    handle = args[args.index("--agent") + 1]
    runtime = make_role("agent_state_runtime")
    with Store(fresh_db_dsn) as admin:
        agent = admin.create_agent(handle=handle)
        admin.revise_persona(agent=agent, body="Example persona.")
        admin.grant_hosting(agent=agent, host=runtime.name)
    command = shutil.which(entry["command"])
    argv = [command] if command else [sys.executable, "-m", "agent_state"]
    env = {**entry["env"], "AGENT_STATE_DSN": runtime.dsn(fresh_db_dsn)}
    params = StdioServerParameters(command=argv[0], args=[*argv[1:], *args], env=_env(**env))

    async def session() -> None:
        async with stdio_session(params) as s:
            assert (await ok(s, "active_persona"))["body"] == "Example persona."
            await ok(s, "remember", body="From the example.", user_message="example words")

    asyncio.run(session())
    with Store(fresh_db_dsn) as admin:
        (memory,) = admin.list_memories(agent=agent)
        assert memory.body == "From the example."
        with Store(runtime.dsn(fresh_db_dsn)) as as_runtime:
            assert as_runtime.list_agents()[0].agent == agent
        admin.revoke_hosting(agent=agent, host=runtime.name)


def test_the_docs_show_the_example_config() -> None:
    text = DOCS.read_text()
    section = text[text.index("## MCP server") :]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None
    assert json.loads(block.group(1)) == json.loads(EXAMPLE.read_text())
