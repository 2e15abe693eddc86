"""The asyncio wrapper: the same calls, errors and transactions as the sync one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

import agent_state
from agent_state import AsyncStore
from conftest import new_handle


@pytest.fixture
async def astore(dsn: str) -> AsyncIterator[AsyncStore]:
    conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    try:
        yield AsyncStore(conn)
    finally:
        await conn.close()


async def test_version_and_foundation(astore: AsyncStore) -> None:
    assert await astore.version() == agent_state.__version__
    a = await astore.create_agent(handle=new_handle(), settings={"subject_boost": 1.5})
    assert isinstance(a, UUID)
    alice = await astore.resolve_actor(agent=a, connector="slack", external_id="U-A")
    await astore.link_identity(agent=a, actor=alice, connector="github", external_id="a")
    assert await astore.resolve_actor(agent=a, connector="github", external_id="a") == alice
    conv = await astore.open_conversation(
        agent=a, connector="slack", external_ref="D", kind="direct"
    )
    m = await astore.record_message(
        agent=a, conversation=conv, author=alice, body="hello", audience=[alice]
    )
    assert isinstance(m, UUID)


async def test_persona(astore: AsyncStore) -> None:
    a = await astore.create_agent(handle=new_handle())
    assert await astore.active_persona(agent=a) is None
    assert await astore.revise_persona(agent=a, body="one") == 1
    assert await astore.revise_persona(agent=a, body="two") == 2
    await astore.activate_persona(agent=a, revision=1)
    history = await astore.persona_history(agent=a)
    assert [(h.revision, h.is_active) for h in history] == [(1, True), (2, False)]
    active = await astore.active_persona(agent=a)
    assert active is not None and active.body == "one"
    at = await astore.active_persona(agent=a, as_of=active.activated_at)
    assert at is not None and at.revision == 1


async def test_errors_are_mapped(astore: AsyncStore) -> None:
    with pytest.raises(agent_state.NotFound) as info:
        await astore.persona_history(agent=uuid4())
    assert info.value.sqlstate == "P0002"
    assert isinstance(info.value.__cause__, psycopg.Error)
    with pytest.raises(agent_state.MissingArgument):
        await astore.create_agent(handle=None)  # type: ignore[arg-type]
    handle = new_handle()
    await astore.create_agent(handle=handle)
    with pytest.raises(agent_state.Duplicate):
        await astore.create_agent(handle=handle)


async def test_transaction_rolls_back(astore: AsyncStore) -> None:
    handle = new_handle()
    with pytest.raises(RuntimeError):
        async with astore.transaction() as tx:
            assert tx is astore
            await astore.create_agent(handle=handle)
            raise RuntimeError("roll back")
    a = await astore.create_agent(handle=handle)
    async with astore.transaction():
        await astore.revise_persona(agent=a, body="x")
        await astore.revise_persona(agent=a, body="y")
    assert len(await astore.persona_history(agent=a)) == 2


async def test_store_from_dsn_connects_lazily(dsn: str) -> None:
    s = AsyncStore(dsn)
    before = s.connection
    assert before is None
    assert await s.version() == agent_state.__version__
    conn = s.connection
    assert conn is not None and conn.autocommit
    await s.close()
    assert conn.closed

    async with AsyncStore(dsn) as s2:
        assert s2.connection is not None
        await s2.create_agent(handle=new_handle())


async def test_connect_async(dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_STATE_DSN", dsn)
    s = await agent_state.connect_async()
    try:
        assert await s.version() == agent_state.__version__
    finally:
        await s.close()


async def test_connect_async_takes_the_embedder(dsn: str) -> None:
    texts: list[str] = []

    def embedder(batch: list[str]) -> list[list[float]]:
        texts.extend(batch)
        return [[1.0, 0.0] for _ in batch]

    s = await agent_state.connect_async(dsn, embedder=embedder, embedding_model="m")
    try:
        agent = await s.create_agent(handle=f"async-embed-{uuid4()}")
        # recall embeds its query with the store's embedder before calling SQL
        # (which, on a server without pgvector, then refuses the embedding).
        with contextlib.suppress(agent_state.Error):
            await s.recall(agent=agent, query="where does Alice live?")
        assert texts == ["where does Alice live?"]
    finally:
        await s.close()


async def test_connect_async_failure_is_an_agent_state_error() -> None:
    with pytest.raises(agent_state.Error) as info:
        await agent_state.connect_async("host=127.0.0.1 port=1 connect_timeout=2")
    assert isinstance(info.value.__cause__, psycopg.OperationalError)


async def test_pool_and_concurrent_calls(dsn: str) -> None:
    async with AsyncConnectionPool(dsn, min_size=1, max_size=4, open=False) as pool:
        s = AsyncStore(pool)
        assert s.pool is pool
        agents = await asyncio.gather(*(s.create_agent(handle=new_handle()) for _ in range(8)))
        assert len(set(agents)) == 8
        revisions = await asyncio.gather(
            *(s.revise_persona(agent=a, body=f"persona {i}") for i, a in enumerate(agents))
        )
        assert revisions == [1] * 8

        handle = new_handle()
        with pytest.raises(RuntimeError):
            async with s.transaction():
                await s.create_agent(handle=handle)
                raise RuntimeError("roll back")
        await s.create_agent(handle=handle)

        with pytest.raises(agent_state.NotFound):
            await s.persona_history(agent=uuid4())


async def test_async_store_rejects_other_sources() -> None:
    with pytest.raises(TypeError):
        AsyncStore(42)  # type: ignore[arg-type]
