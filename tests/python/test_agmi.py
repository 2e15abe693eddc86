"""The external tamper suite (agent-memory-integrity, agmi 0.6.3): its nine at-rest
attacks (T1 content tamper ... T9 snapshot rollback) against agent_state's memory
entries and its LangGraph checkpointer, and, measured in the same run on the same
server, against LangGraph's own PostgresSaver through agmi's own adapter.

Every cell of ours must be "safe" (the store noticed: a read refused the record with
XX001, or verify() reported it, T2 and T9 with the head the witness kept outside the
database). PostgresSaver's row is recorded, not judged. The scorecard is printed and
written to $AGMI_SCORECARD when set (docs/security.md has one such run).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

agmi = pytest.importorskip(
    "agmi", reason="agent-memory-integrity (the test extra) is not installed"
)

from agmi.attacks.at_rest import AT_REST_ATTACKS_WITH_SNAPSHOT  # noqa: E402
from agmi.runner import format_scorecard, run_matrix  # noqa: E402

import lifecycle as lc  # noqa: E402
from agmi_adapters import AgentStateMemoryAdapter, AgentStateSaverAdapter  # noqa: E402

pytest.importorskip("langgraph.checkpoint.base", reason="langgraph is not installed")


@pytest.fixture(scope="module")
def db(admin_dsn: str) -> Any:
    if not lc.extension_available(admin_dsn, lc.control_version()):
        pytest.skip("agent_state extension files are not installed on this server")
    lc.ensure_host_role(admin_dsn)
    with lc.scratch_db(admin_dsn, "agmi") as dsn:
        lc.install(dsn, "extension")
        yield dsn


def scorecard(adapters: list[Any]) -> tuple[list[Any], str]:
    attacks = [cls() for cls in AT_REST_ATTACKS_WITH_SNAPSHOT]
    results = run_matrix(adapters, attacks)
    text = format_scorecard(results, attacks)
    notes = [
        f"{r.tool} / {r.attack}: {r.status} {r.detail or r.error or r.guard or ''}" for r in results
    ]
    return results, text + "\n\n" + "\n".join(notes)


@pytest.mark.parametrize("adapter", [AgentStateMemoryAdapter, AgentStateSaverAdapter])
def test_every_attack_is_noticed(db: str, adapter: type[Any]) -> None:
    results, text = scorecard([adapter(db)])
    print(text)
    assert len(results) == 9
    wrong = [
        f"{r.attack}: {r.status} {r.error or r.guard or r.detail}"
        for r in results
        if r.status != "safe"
    ]
    assert wrong == [], text


def test_the_scorecard_beside_langgraph_postgres_saver(db: str) -> None:
    """The whole table of one run: our two adapters and agmi's own PostgresSaver adapter."""
    pytest.importorskip(
        "langgraph.checkpoint.postgres", reason="langgraph-checkpoint-postgres is not installed"
    )
    from agmi.adapters.langgraph_postgres import LangGraphPostgresAdapter

    peer = LangGraphPostgresAdapter(uri=db)
    results, text = scorecard([AgentStateMemoryAdapter(db), AgentStateSaverAdapter(db), peer])
    print(text)
    out = os.environ.get("AGMI_SCORECARD")
    if out:
        Path(out).write_text(text + "\n")
    ours = [r for r in results if r.tool.startswith("agent_state")]
    assert len(ours) == 18 and all(r.status == "safe" for r in ours), text
    theirs = [r for r in results if r.tool == peer.name]
    assert len(theirs) == 9 and all(r.status in ("safe", "VULNERABLE") for r in theirs), text
