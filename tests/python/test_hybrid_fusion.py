"""Hybrid recall keeps what either ranking alone finds (SPEC section 6, Retrieval):
a memory found only by its rare word (an id) and a memory found only by its
meaning both reach the top 5, among memories that share only a common word with
the question and memories that are merely near it in meaning. Needs a server with
pgvector; skipped elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID, uuid4

import psycopg
import pytest

from agent_state import Store
from conftest import offers_pgvector

MODEL = "manual-3d"
QUESTION = "Where is parcel QZ7781?"
QUERY_VECTOR = [1.0, 0.0, 0.0]


@pytest.fixture(scope="module")
def vector_db(module_db_dsn: str) -> str:
    if not offers_pgvector(module_db_dsn):
        pytest.skip("pgvector is not installed on this server")
    with psycopg.connect(module_db_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return module_db_dsn


@pytest.fixture
def store(vector_db: str) -> Iterator[Store]:
    with Store(vector_db) as s:
        yield s


def memory(s: Store, agent: UUID, body: str, embedding: list[float]) -> UUID:
    entry = s.note(agent=agent, body=body).entry
    s.attach_embedding(agent=agent, entry=entry, revision=1, model=MODEL, embedding=embedding)
    return entry


def scene(s: Store) -> dict[str, UUID]:
    """Written oldest first: the id's memory, then 20 that share only the common
    word 'parcel' (far in meaning), then 60 near in meaning without a word of the
    question, then the one nearest in meaning."""
    agent = s.create_agent(handle=f"fusion-{uuid4()}")
    lexical = memory(s, agent, "Tracking code QZ7781 is on the blue suitcase", [0.0, 0.0, 1.0])
    for i in range(20):
        body = f"A parcel of printer paper, box {i}, arrived at the office"
        memory(s, agent, body, [-1.0, 0.0, 0.0])
    for i in range(60):
        memory(s, agent, f"Weather note {i}: a windy afternoon", [0.9, 0.3 + i / 1000, 0.0])
    meaning = memory(s, agent, "The package was left with the neighbour", [1.0, 0.0, 0.0])
    return {"agent": agent, "lexical": lexical, "meaning": meaning}


def test_hybrid_keeps_a_lexical_only_and_a_meaning_only_hit(store: Store) -> None:
    sc = scene(store)
    agent = sc["agent"]
    hybrid = store.recall(
        agent=agent, query=QUESTION, match="any", max_results=10,
        query_embedding=QUERY_VECTOR, embedding_model=MODEL,
    )  # fmt: skip
    top5 = [h.entry for h in hybrid[:5]]
    assert sc["lexical"] in top5, [h.body for h in hybrid]
    assert sc["meaning"] in top5, [h.body for h in hybrid]
    # Each is found by one ranking only: the id is not among the 50 nearest, and
    # the nearest shares no word with the question.
    vector = store.recall(
        agent=agent, query=None, max_results=10, query_embedding=QUERY_VECTOR,
        embedding_model=MODEL,
    )  # fmt: skip
    assert vector[0].entry == sc["meaning"]
    assert sc["lexical"] not in [h.entry for h in vector]
    lexical = store.recall(agent=agent, query=QUESTION, match="any", max_results=30)
    assert lexical[0].entry == sc["lexical"]  # the rare word outranks the common one
    assert sc["meaning"] not in [h.entry for h in lexical]
    hit = {h.entry: h for h in hybrid}
    assert hit[sc["meaning"]].text_rank == 0
    assert hit[sc["lexical"]].text_rank > max(h.text_rank for h in lexical[1:])


def test_a_question_without_words_ranks_by_meaning_alone(store: Store) -> None:
    sc = scene(store)
    for query in (None, "", "   ", "where is it?"):  # the last: stop words only
        hits = store.recall(
            agent=sc["agent"], query=query, match="any", max_results=5,
            query_embedding=QUERY_VECTOR, embedding_model=MODEL,
        )  # fmt: skip
        assert hits[0].entry == sc["meaning"], query
        assert all(h.text_rank == 0 for h in hits), query
        alone = store.recall(
            agent=sc["agent"], query=None, max_results=5,
            query_embedding=QUERY_VECTOR, embedding_model=MODEL,
        )  # fmt: skip
        assert [h.entry for h in hits] == [h.entry for h in alone], query
