"""The README's time-travel and AsyncStore-on-a-pool examples, run as written against a
fresh database.

The block is the ```python fence right after the line ``<!-- example: time-travel -->``
in README.md. It connects with ``agent_state.connect()`` (so ``$AGENT_STATE_DSN``, set
here to a database of its own, where its fixed handles are free) and needs nothing else
from the test. It must leave these names behind, which the assertions read:

``store``    the Store it opened (closed here afterwards)
``agent``    the original agent, restored to ``tuesday``
``trial``    the fork, with Tuesday's persona activated on it
``tuesday``  the known-good moment

The test fails when the marker or the block is gone, when the block raises, and when
the state it leaves is not the one the README describes. The same holds for the block
after ``<!-- example: async-pool -->`` (it runs its own event loop; the state it leaves
is read back by the agent's handle, ``support-bot``).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

import agent_state

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- example: time-travel -->"
ASYNC_MARKER = "<!-- example: async-pool -->"
GOOD = "You are the helpdesk agent. Be brief."
WORSE = "You are the helpdesk agent. Explain everything."


def example_block(text: str, marker: str = MARKER) -> str:
    """The code of the ```python block right after the marker line."""
    if marker not in text:
        pytest.fail(f"README.md has no {marker} block")
    after = text.split(marker, 1)[1]
    m = re.match(r"\s*```python\n(.*?)\n```\s*$", after, re.DOTALL | re.MULTILINE)
    if m is None:
        pytest.fail(f"README.md: no ```python block right after {marker}")
    return m.group(1)


def origin_of(store: agent_state.Store, fork: UUID) -> datetime:
    """When ``fork`` was forked."""
    origin = store.fork_origin(agent=fork)
    assert origin is not None
    return origin.forked_at


def test_example_block_is_found() -> None:
    code = example_block(README.read_text(encoding="utf-8"))
    assert "store.timeline(" in code and "store.restore_agent(" in code
    assert "store.fork_agent(" in code and "store.activate_persona(agent=trial" in code
    with pytest.raises(pytest.fail.Exception):
        example_block("# no example here\n")


def test_readme_time_travel_example(
    fresh_db_dsn: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = example_block(README.read_text(encoding="utf-8"))
    monkeypatch.setenv("AGENT_STATE_DSN", fresh_db_dsn)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    try:
        exec(compile(code, f"{README.name} ({MARKER})", "exec"), namespace)
    finally:
        if isinstance(namespace.get("store"), agent_state.Store):
            namespace["store"].close()
    out = capsys.readouterr().out.splitlines()
    agent, trial, tuesday = namespace["agent"], namespace["trial"], namespace["tuesday"]
    assert isinstance(agent, UUID) and isinstance(trial, UUID) and agent != trial

    with agent_state.connect(fresh_db_dsn) as store:
        # 1. It printed the changes since Tuesday (the restore's came after them).
        since = store.timeline(agent=agent, since=tuesday)
        week = [e for e in since if e.at < origin_of(store, trial)]
        assert [(e.kind, e.operation, e.revision) for e in week] == [
            ("persona", "revise", 2),
            ("persona", "activate", 2),
            ("memory", "amend", 2),
        ]
        assert out[: len(week)] == [
            f"{e.at} {e.kind} {e.object} {e.operation} {e.revision} {e.changed_by}" for e in week
        ]

        # 3. The original is back to Tuesday's persona and memory, by new revisions.
        then = store.active_persona(agent=agent, as_of=tuesday)
        now = store.active_persona(agent=agent)
        assert then is not None and now is not None
        assert (now.revision, now.body) == (then.revision, then.body) == (1, GOOD)
        assert [r.body for r in store.persona_history(agent=agent)] == [GOOD, WORSE]
        assert "persona None activate 1" in out
        assert ("persona", None, "activate", 1) in [
            (e.kind, e.object, e.operation, e.revision) for e in since
        ]
        exported = store.export_markdown(agent=agent)
        assert "Ann prefers short answers." in exported and "every detail" not in exported
        assert out[-2:] == [GOOD, "True"]

        # 2. The fork came from the original, has Tuesday's persona activated on it,
        #    and kept this week's memory: the restore did not touch it.
        origin = store.fork_origin(agent=trial)
        assert origin is not None and origin.origin == agent and origin.as_of > tuesday
        persona = store.active_persona(agent=trial)
        assert persona is not None and (persona.revision, persona.body) == (1, GOOD)
        forked = store.export_markdown(agent=trial)
        assert "Ann wants every detail." in forked and "short answers" not in forked


def test_readme_async_pool_example(
    fresh_db_dsn: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = example_block(README.read_text(encoding="utf-8"), ASYNC_MARKER)
    assert "AsyncConnectionPool(" in code and "agent_state.AsyncStore(pool)" in code
    assert "async with store.transaction():" in code
    monkeypatch.setenv("AGENT_STATE_DSN", fresh_db_dsn)
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(code, f"{README.name} ({ASYNC_MARKER})", "exec"), namespace)
    assert capsys.readouterr().out.splitlines() == ["Refunds take five days."]
    with agent_state.connect(fresh_db_dsn) as store:
        agent = store.find_agent(handle="support-bot")
        persona = store.active_persona(agent=agent)
        assert persona is not None and persona.body == "You are the support bot."
        assert sorted(m.body for m in store.list_memories(agent=agent)) == [
            "Refunds take five days.",
            "The Lisbon office opens at nine.",
            "The Oslo office opens at nine.",
            "The Quito office opens at nine.",
        ]
