"""The semantic axis through the wrapper: attach_embedding, pending_embeddings, recall
with a query embedding, and the embedder hook (Store(..., embedder=...)) that fills
pending_embeddings with the runtime's own model. Needs a server with pgvector (the
embedded extra's PostgreSQL 18); skipped elsewhere, where pgTAP checks the 0A000
path.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any
from uuid import uuid4

import psycopg
import pytest

import agent_state
from agent_state import AsyncStore, Store
from conftest import _create_db, _drop_db, offers_pgvector, with_dbname


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
    if not offers_pgvector(module_db_dsn):
        pytest.skip("pgvector is not installed on this server")
    with psycopg.connect(module_db_dsn, autocommit=True) as conn:
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
    vstore.attach_embedding(
        agent=sc["agent"], entry=pending[0].entry, revision=1, model="manual", embedding=[1.0, 0.0]
    )
    # The first embedding fixed the model's dimension in this agent.
    with pytest.raises(agent_state.InvalidArgument, match="dimensions"):
        vstore.attach_embedding(
            agent=sc["agent"],
            entry=pending[1].entry,
            revision=1,
            model="manual",
            embedding=[1, 0, 0],
        )
    vstore.attach_embedding(
        agent=sc["agent"], entry=pending[1].entry, revision=1, model="manual", embedding=[0.0, 1.0]
    )
    assert vstore.pending_embeddings(agent=sc["agent"], model="manual") == []
    # One per revision and model, whatever the second one's dimension.
    for again in ([1, 0], [1, 0, 0]):
        with pytest.raises(agent_state.Duplicate):
            vstore.attach_embedding(
                agent=sc["agent"], entry=pending[0].entry, revision=1, model="manual",
                embedding=again,
            )  # fmt: skip
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


def test_a_failing_batch_leaves_its_revisions_pending(vector_db: str) -> None:
    # One transaction per batch: the second embedding is refused (NaN, 22023),
    # so the first of the batch is not attached either.
    def second_bad(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0]] + [[float("nan"), 0.0]] * (len(texts) - 1)

    with Store(vector_db, embedder=second_bad, embedding_model="fake") as vstore:
        sc = scene(vstore)
        with pytest.raises(agent_state.InvalidArgument):
            vstore.embed_pending(agent=sc["agent"])
        assert len(vstore.pending_embeddings(agent=sc["agent"], model="fake")) == 2


def test_the_embedder_hook_fills_pending_embeddings(vector_db: str) -> None:
    calls: list[list[str]] = []

    def counting(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return fake_embedder(texts)

    with Store(vector_db, embedder=counting, embedding_model="fake") as vstore:
        sc = scene(vstore)
        assert vstore.embed_pending(agent=sc["agent"]) == 2
        assert vstore.pending_embeddings(agent=sc["agent"], model="fake") == []
        assert vstore.embed_pending(agent=sc["agent"]) == 0
        # recall and context_for embed the query with the store's embedder and
        # default model when none is given: the vector axis ranks a memory that
        # shares no word with the query.
        calls.clear()
        hits = vstore.recall(agent=sc["agent"], query="Lisbon", conversation=sc["dm"], match="any")
        assert calls == [["Lisbon"]]
        assert hits[0].body == "Alice lives in Lisbon"
        vector_only = [h for h in hits if h.text_rank == 0]
        assert vector_only and all(h.score > 0 for h in vector_only), hits
        # context_for takes the store's default model with a given query embedding.
        context = vstore.context_for(
            agent=sc["agent"], conversation=sc["dm"], query_embedding=fake_embedder(["Lisbon"])[0]
        )
        assert {h.body for h in context if h.score > 0} == {
            "Alice lives in Lisbon",
            "Alice is allergic to peanuts",
        }, context


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
    loop_thread = threading.get_ident()
    threads: list[int] = []
    running = [0, 0]  # now, most at once

    def embedder(texts: list[str]) -> list[list[float]]:
        threads.append(threading.get_ident())
        running[0] += 1
        running[1] = max(running[1], running[0])
        time.sleep(0.02)
        running[0] -= 1
        return fake_embedder(texts)

    async with AsyncStore(vector_db, embedder=embedder, embedding_model="fake") as a:
        assert await a.embed_pending(agent=sc["agent"]) == 2
        hits = await a.recall(
            agent=sc["agent"], query="peanuts", conversation=sc["dm"], match="any"
        )
        assert hits[0].body == "Alice is allergic to peanuts"
        # The other memory shares no word with the query: only the embedding ranks it.
        assert any(h.text_rank == 0 and h.score > 0 for h in hits), hits
        # Concurrent calls: the embedder still runs one call at a time.
        many = await asyncio.gather(
            *(
                a.recall(agent=sc["agent"], query="peanuts", conversation=sc["dm"], match="any")
                for _ in range(4)
            )
        )
        # (the same rows; scores and ages move with each call's now())
        assert all([h.body for h in m] == [h.body for h in hits] for m in many)
    # The blocking embedder ran off the event loop's thread (for the batch and
    # for each query), never two calls at once.
    assert len(threads) == 6 and loop_thread not in threads, (loop_thread, threads)
    assert running[1] == 1, running


def test_pgvector_created_before_agent_state(admin_dsn: str) -> None:
    """A database where vector existed before agent_state was installed."""
    if not offers_pgvector(admin_dsn):
        pytest.skip("pgvector is not installed on this server")
    name = _create_db(admin_dsn, "template0", "sem_before")
    try:
        db = with_dbname(admin_dsn, name)
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        agent_state.install(db)
        with Store(db, embedder=fake_embedder, embedding_model="fake") as s:
            sc = scene(s)
            assert s.embed_pending(agent=sc["agent"]) == 2
    finally:
        _drop_db(admin_dsn, name)


# ----------------------------------------------------------------- the HNSW index


def ann_scene(s: Store, model: str) -> dict[str, Any]:
    """One eligible memory behind 60 ineligible ones nearer to the query [1, 0, ...]
    (visibility conversation, from another conversation than the target), and 59
    eligible ones farther away: enough eligible neighbours (50) for the index path
    to answer without falling back to the exact scan."""
    agent = s.create_agent(handle=f"ann-{uuid4()}")
    alice = s.resolve_actor(agent=agent, connector="c", external_id="alice", display_name="Alice")
    room = s.open_conversation(agent=agent, connector="c", external_ref="room", kind="group")
    dm = s.open_conversation(agent=agent, connector="c", external_ref="dm", kind="direct")
    in_room = s.record_message(
        agent=agent, conversation=room, author=alice, body="in the room", audience=[alice]
    )
    in_dm = s.record_message(
        agent=agent, conversation=dm, author=alice, body="in private", audience=[alice]
    )
    vectors: dict[str, list[float]] = {}
    for k in range(60):
        body = f"room secret {k}"
        s.remember(agent=agent, body=body, source_message=in_room, visibility="conversation")
        vectors[body] = [1.0, 0.001 * (k + 1)] + [0.0] * 6
    s.remember(agent=agent, body="the one", source_message=in_dm)
    vectors["the one"] = [1.0, 0.2] + [0.0] * 6
    for k in range(59):
        body = f"farther {k}"
        s.remember(agent=agent, body=body, source_message=in_dm)
        vectors[body] = [1.0, 0.5 + 0.01 * k, 0.3] + [0.0] * 5
    for p in s.pending_embeddings(agent=agent, model=model, max_results=1000):
        s.attach_embedding(
            agent=agent, entry=p.entry, revision=p.revision, model=model, embedding=vectors[p.body]
        )
    return {"agent": agent, "room": room, "dm": dm}


RECALL = (
    "SELECT entry, revision, body FROM agent_state.recall(agent => %s, query => %s, "
    "conversation => %s, max_results => %s, query_embedding => %s::real[], "
    "embedding_model => %s)"
)


def test_index_embeddings_keeps_eligibility_before_the_neighbours(
    vstore: Store, vector_db: str
) -> None:
    model = f"ann-{uuid4()}"
    sc = ann_scene(vstore, model)
    query = [1.0] + [0.0] * 7
    with psycopg.connect(vector_db, autocommit=True) as conn:
        name = conn.execute("SELECT agent_state.index_embeddings(%s, 8)", [model]).fetchone()[0]  # type: ignore[index]
        # Idempotent: the same index, once.
        again = conn.execute("SELECT agent_state.index_embeddings(%s, 8)", [model]).fetchone()[0]  # type: ignore[index]
        assert again == name
        assert conn.execute(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = 'agent_state' AND indexname = %s",
            [name],
        ).fetchone() == (1,)
        index_oid = conn.execute("SELECT %s::regclass::oid", [f"agent_state.{name}"]).fetchone()[0]  # type: ignore[index]

        def ask(threshold: int, text: str | None, n: int) -> tuple[list[tuple[Any, ...]], int]:
            with conn.transaction():
                conn.execute(f"SET LOCAL agent_state.hnsw_min_embeddings = {threshold}")
                # A few rows: the planner would sort them rather than walk the
                # index, which it prefers at the agent sizes the threshold is for.
                conn.execute("SET LOCAL enable_sort = off")
                before = conn.execute(
                    "SELECT pg_stat_get_xact_tuples_returned(%s)", [index_oid]
                ).fetchone()[0]  # type: ignore[index]
                rows = conn.execute(RECALL, [sc["agent"], text, sc["dm"], n, query, model])
                got = rows.fetchall()
                after = conn.execute(
                    "SELECT pg_stat_get_xact_tuples_returned(%s)", [index_oid]
                ).fetchone()[0]  # type: ignore[index]
            return got, int(after) - int(before)

        # Above the threshold: through the index; the 60 nearer ineligible
        # revisions do not hide the eligible one.
        got, scans = ask(1, None, 1)
        assert scans > 0
        assert [r[2] for r in got] == ["the one"]
        # The same answers as the exact scan, with and without query text.
        for text, n in ((None, 10), ("farther the one", 20), ("secret", 5)):
            indexed, scans = ask(1, text, n)
            exact, exact_scans = ask(999999999, text, n)
            assert scans > 0 and exact_scans == 0
            assert indexed == exact
            assert not any(r[2].startswith("room secret") for r in indexed)
        # Where the index holds too few eligible neighbours (a target that admits
        # only "farther" and "the one" but asks for more): the exact scan answers.
        got, _ = ask(1, None, 100)
        assert len(got) == 60 and not any(r[2].startswith("room secret") for r in got)
        # The caller's settings are left as they were.
        assert conn.execute("SHOW hnsw.iterative_scan").fetchone() == ("off",)


def test_an_agents_own_index_comes_first(vstore: Store, vector_db: str) -> None:
    """index_embeddings(model, dimensions, agent) indexes one agent's embeddings. Where
    both exist, recall takes that agent's neighbours from its own index, never the
    shared one, with the exact scan's answer and eligibility kept; an agent without
    its own index still uses the shared one."""
    model = f"ann-own-{uuid4()}"
    sc = ann_scene(vstore, model)
    other = ann_scene(vstore, model)
    query = [1.0] + [0.0] * 7
    with psycopg.connect(vector_db, autocommit=True) as conn:

        def index(*args: Any) -> str:
            placeholders = ", ".join(["%s"] * len(args))
            row = conn.execute(f"SELECT agent_state.index_embeddings({placeholders})", args)
            return str(row.fetchone()[0])  # type: ignore[index]

        shared = index(model, 8)
        own = index(model, 8, sc["agent"])
        assert own != shared and index(model, 8, sc["agent"]) == own
        predicate = conn.execute(
            "SELECT pg_get_expr(indpred, indrelid) FROM pg_index WHERE indexrelid = %s::regclass",
            [f"agent_state.{own}"],
        ).fetchone()[0]  # type: ignore[index]
        assert str(sc["agent"]) in predicate
        oids = {
            n: conn.execute("SELECT %s::regclass::oid", [f"agent_state.{n}"]).fetchone()[0]  # type: ignore[index]
            for n in (shared, own)
        }

        def ask(scene: dict[str, Any], threshold: int) -> tuple[list[Any], dict[str, int]]:
            with conn.transaction():
                conn.execute(f"SET LOCAL agent_state.hnsw_min_embeddings = {threshold}")
                conn.execute("SET LOCAL enable_sort = off")
                probe = "SELECT pg_stat_get_xact_tuples_returned(%s)"
                before = {n: conn.execute(probe, [o]).fetchone()[0] for n, o in oids.items()}  # type: ignore[index]
                got = conn.execute(
                    RECALL, [scene["agent"], None, scene["dm"], 10, query, model]
                ).fetchall()
                after = {n: conn.execute(probe, [o]).fetchone()[0] for n, o in oids.items()}  # type: ignore[index]
            return got, {n: int(after[n]) - int(before[n]) for n in oids}

        for scene, used, unused in ((sc, own, shared), (other, shared, own)):
            got, scanned = ask(scene, 1)
            exact, exact_scanned = ask(scene, 999999999)
            assert scanned[used] > 0 and scanned[unused] == 0, scanned
            assert exact_scanned == {shared: 0, own: 0}
            assert got == exact and [r[2] for r in got][:1] == ["the one"]
            assert not any(r[2].startswith("room secret") for r in got)
        with pytest.raises(psycopg.errors.NoDataFound, match="agent"):
            index(model, 8, uuid4())


def test_hnsw_ef_search_is_the_index_scans(vstore: Store, vector_db: str) -> None:
    """agent_state.hnsw_ef_search is the candidate list of the index scan. With the
    caller's hnsw.max_scan_tuples at 1 the scan ends after its first search, whose
    size ef_search sets: the default (1000) holds the whole small index, and the
    index answers, past the 60 nearer ineligible room secrets; at 1 the scan ends
    early, with fewer than 50 eligible neighbours, and the exact scan answers."""
    model = f"ann-ef-{uuid4()}"
    sc = ann_scene(vstore, model)
    query = [1.0] + [0.0] * 7
    with psycopg.connect(vector_db, autocommit=True) as conn:
        name = conn.execute("SELECT agent_state.index_embeddings(%s, 8)", [model]).fetchone()[0]  # type: ignore[index]
        index_oid = conn.execute("SELECT %s::regclass::oid", [f"agent_state.{name}"]).fetchone()[0]  # type: ignore[index]

        def ask(ef: str | None) -> tuple[list[tuple[Any, ...]], int]:
            with conn.transaction():
                conn.execute("SET LOCAL agent_state.hnsw_min_embeddings = 1")
                conn.execute("SET LOCAL enable_sort = off")
                conn.execute("SET LOCAL hnsw.max_scan_tuples = 1")
                if ef is not None:
                    conn.execute("SELECT set_config('agent_state.hnsw_ef_search', %s, true)", [ef])
                before = conn.execute(
                    "SELECT pg_stat_get_xact_tuples_returned(%s)", [index_oid]
                ).fetchone()[0]  # type: ignore[index]
                got = conn.execute(RECALL, [sc["agent"], None, sc["dm"], 10, query, model])
                rows = got.fetchall()
                after = conn.execute(
                    "SELECT pg_stat_get_xact_tuples_returned(%s)", [index_oid]
                ).fetchone()[0]  # type: ignore[index]
            return rows, int(after) - int(before)

        with conn.transaction():
            conn.execute("SET LOCAL agent_state.hnsw_min_embeddings = 999999999")
            exact = conn.execute(RECALL, [sc["agent"], None, sc["dm"], 10, query, model]).fetchall()
        assert [r[2] for r in exact][:1] == ["the one"]
        got, scanned_default = ask(None)
        assert got == exact and scanned_default > 60
        got, scanned = ask("1")
        assert got == exact and 0 < scanned < scanned_default
        got, _ = ask(" 1000 ")
        assert got == exact
        for bad in ("0", "1001", "many"):
            with pytest.raises(psycopg.errors.InvalidParameterValue):
                ask(bad)


def test_index_embeddings_is_for_operators(vector_db: str, make_role: Any) -> None:
    role = make_role("agent_state_runtime")
    with (
        psycopg.connect(role.dsn(vector_db), autocommit=True) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("SELECT agent_state.index_embeddings('m', 8)")


def test_index_embeddings_needs_pgvector(fresh_db_dsn: str) -> None:
    with psycopg.connect(fresh_db_dsn, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
            pytest.skip("the template has pgvector")
        with pytest.raises(psycopg.errors.FeatureNotSupported, match="pgvector"):
            conn.execute("SELECT agent_state.index_embeddings('m', 8)")


def test_a_fork_carries_the_embeddings_of_its_revisions(vstore: Store) -> None:
    """fork_agent copies the embeddings of the revisions it copies (SPEC section 13):
    the fork ranks by meaning as the origin does, with nothing left pending; a
    redaction in the fork erases the origin's embeddings too."""
    sc = scene(vstore)
    agent = sc["agent"]
    vstore.embed_pending(agent=agent)
    fork = vstore.fork_agent(agent=agent, handle=f"sem-fork-{uuid4()}")
    assert vstore.pending_embeddings(agent=fork, model="fake") == []
    question = "what is Alice allergic to?"

    def ranked(a: Any) -> list[tuple[Any, int, str]]:
        return [
            (h.entry, h.revision, h.body)
            for h in vstore.recall(
                agent=a, query=None, conversation=sc["dm"],
                query_embedding=fake_embedder([question])[0], embedding_model="fake",
            )
        ]  # fmt: skip

    assert ranked(fork) == ranked(agent) != []
    vstore.redact(agent=fork, entry=sc["peanuts"].entry, reason="erase everywhere")
    assert [e[0] for e in ranked(agent)] == [sc["lisbon"].entry]
    assert ranked(fork) == ranked(agent)


def test_an_agent_moves_with_its_embeddings(vstore: Store, admin_dsn: str) -> None:
    """export_agent/import_agent carry the embeddings exactly (float4 values and the
    model's dimension): the moved agent ranks by meaning as the source does."""
    sc = scene(vstore)
    agent = sc["agent"]
    vstore.embed_pending(agent=agent)
    doc = vstore.export_agent(agent=agent)
    assert len(doc["tables"]["memory_embeddings"]) == 2
    name = _create_db(admin_dsn, "template0", "sem_move")
    try:
        db = with_dbname(admin_dsn, name)
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        agent_state.install(db)
        with Store(db) as target:
            assert target.import_agent(document=doc) == agent
            assert target.export_agent(agent=agent) == doc
            assert target.verify() == []
            query = fake_embedder(["what is Alice allergic to?"])[0]

            def ranked(s: Store) -> list[tuple[Any, str]]:
                return [
                    (h.entry, h.body)
                    for h in s.recall(
                        agent=agent, query=None, conversation=sc["dm"],
                        query_embedding=query, embedding_model="fake",
                    )
                ]  # fmt: skip

            assert ranked(target) == ranked(vstore) != []
    finally:
        _drop_db(admin_dsn, name)
