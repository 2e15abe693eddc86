"""The semantic axis through the wrapper: attach_embedding, pending_embeddings, recall
with a query embedding, and the embedder hook (Store(..., embedder=...)) that fills
pending_embeddings with the runtime's own model. Needs a server with pgvector (the
embedded extra's PostgreSQL 18); skipped elsewhere, where pgTAP checks the 0A000
path.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest

import agent_state
from agent_state import AsyncStore, Store
from conftest import with_dbname


def fake_embedder(texts: list[str]) -> list[list[float]]:
    """A deterministic bag-of-words embedding (8 dimensions): texts that share words
    are near. Enough for the mechanics; bench/quality.py uses a real model."""
    out = []
    for text in texts:
        v = [0.0] * 8
        for word in text.lower().replace("?", " ").replace(".", " ").split():
            h = hashlib.sha256(word.rstrip("s").encode()).digest()
            v[h[0] % 8] += 1.0
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        out.append([x / norm if norm else 0.0 for x in v] if any(v) else [1.0] + [0.0] * 7)
    return out


@pytest.fixture(scope="module")
def vector_db(module_db_dsn: str) -> str:
    with psycopg.connect(module_db_dsn, autocommit=True) as conn:
        if (
            conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            is None
        ):
            pytest.skip("pgvector is not installed on this server")
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return module_db_dsn


@pytest.fixture
def vstore(vector_db: str) -> Iterator[Store]:
    with Store(vector_db, embedder=fake_embedder, embedding_model="fake") as s:
        yield s


def scene(s: Store) -> dict[str, Any]:
    agent = s.create_agent(handle=f"sem-{uuid4()}")
    alice = s.resolve_actor(agent=agent, connector="c", external_id="alice", display_name="Alice")
    dm = s.open_conversation(agent=agent, connector="c", external_ref="dm", kind="direct")
    msg = s.record_message(
        agent=agent,
        conversation=dm,
        author=alice,
        body="I am allergic to peanuts",
        audience=[alice],
    )
    peanuts = s.remember(
        agent=agent, body="Alice is allergic to peanuts", source_message=msg, subject=alice
    )
    lisbon = s.remember(agent=agent, body="Alice lives in Lisbon", source_message=msg)
    return {"agent": agent, "alice": alice, "dm": dm, "peanuts": peanuts, "lisbon": lisbon}


def test_attach_pending_and_recall(vstore: Store) -> None:
    sc = scene(vstore)
    pending = vstore.pending_embeddings(agent=sc["agent"], model="manual")
    assert [p.body for p in pending] == ["Alice is allergic to peanuts", "Alice lives in Lisbon"]
    assert isinstance(pending[0], agent_state.PendingEmbedding)
    for p, vector in zip(pending, ([1.0, 0.0], [0.0, 1.0]), strict=True):
        vstore.attach_embedding(
            agent=sc["agent"], entry=p.entry, revision=p.revision, model="manual", embedding=vector
        )
    assert vstore.pending_embeddings(agent=sc["agent"], model="manual") == []
    with pytest.raises(agent_state.Duplicate):
        vstore.attach_embedding(
            agent=sc["agent"], entry=pending[0].entry, revision=1, model="manual", embedding=[1, 0]
        )
    with pytest.raises(agent_state.InvalidArgument, match="dimensions"):
        vstore.attach_embedding(
            agent=sc["agent"],
            entry=pending[0].entry,
            revision=1,
            model="manual",
            embedding=[1, 0, 0],
        )
    with pytest.raises(agent_state.InvalidArgument, match="finite"):
        vstore.attach_embedding(
            agent=sc["agent"], entry=pending[1].entry, revision=1, model="other",
            embedding=[float("nan"), 1.0],
        )  # fmt: skip
    hits = vstore.recall(
        agent=sc["agent"], query="a snack for the flight", conversation=sc["dm"],
        query_embedding=[0.9, 0.1], embedding_model="manual",
    )  # fmt: skip
    assert [h.body for h in hits] == ["Alice is allergic to peanuts", "Alice lives in Lisbon"]
    hits = vstore.context_for(
        agent=sc["agent"], conversation=sc["dm"], query_embedding=[0.1, 0.9],
        embedding_model="manual", max_results=1,
    )  # fmt: skip
    assert [h.body for h in hits] == ["Alice is allergic to peanuts"]  # its words win


def test_the_embedder_hook_fills_pending_embeddings(vstore: Store) -> None:
    sc = scene(vstore)
    assert vstore.embed_pending(agent=sc["agent"]) == 2
    assert vstore.pending_embeddings(agent=sc["agent"], model="fake") == []
    assert vstore.embed_pending(agent=sc["agent"]) == 0
    # recall embeds the query with the store's model when none is given.
    hits = vstore.recall(agent=sc["agent"], query="where does Alice live?", conversation=sc["dm"])
    assert hits[0].body == "Alice lives in Lisbon"
    assert hits[0].text_rank > 0 or hits[0].score > 0


def test_a_wrong_embedder_is_refused(vector_db: str) -> None:
    def broken(texts: list[str]) -> Sequence[Sequence[float]]:
        return [[1.0, 0.0]]

    with Store(vector_db, embedder=broken, embedding_model="broken") as s:
        sc = scene(s)
        with pytest.raises(ValueError, match="returned 1 vectors for 2 texts"):
            s.embed_pending(agent=sc["agent"])
    with Store(vector_db) as s, pytest.raises(ValueError, match="embedder"):
        s.embed_pending(agent=sc["agent"], model="x")


async def test_async_store_has_the_hook(vector_db: str) -> None:
    with Store(vector_db) as s:
        sc = scene(s)
    async with AsyncStore(vector_db, embedder=fake_embedder, embedding_model="fake") as a:
        assert await a.embed_pending(agent=sc["agent"]) == 2
        hits = await a.recall(agent=sc["agent"], query="peanuts", conversation=sc["dm"])
        assert hits[0].body == "Alice is allergic to peanuts"


def test_pgvector_created_before_agent_state(admin_dsn: str) -> None:
    """A database where vector existed before agent_state was installed."""
    name = f"as_sem_before_{UUID(int=1).hex[:6]}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        if (
            admin.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            is None
        ):
            pytest.skip("pgvector is not installed on this server")
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    try:
        db = with_dbname(admin_dsn, name)
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        agent_state.install(db)
        with Store(db, embedder=fake_embedder, embedding_model="fake") as s:
            sc = scene(s)
            assert s.embed_pending(agent=sc["agent"]) == 2
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
