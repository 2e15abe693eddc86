"""examples/node/agent_state_example.js, the worked example of docs/clients.md, run
with Node.js and node-postgres against a fresh database.

Skipped, saying why, when ``node`` is not on PATH or the npm package ``pg`` cannot be
resolved from the example's directory (``cd examples/node && npm install``, or
``NODE_PATH`` naming a node_modules that holds it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from uuid import UUID

import pytest
from psycopg.conninfo import conninfo_to_dict

import agent_state

EXAMPLE_DIR = Path(__file__).resolve().parents[2] / "examples" / "node"
EXAMPLE = EXAMPLE_DIR / "agent_state_example.js"
HANDLE = "node 'example' ü"


def node_with_pg() -> str:
    """The node binary, or skip naming what is missing."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    found = subprocess.run(
        [node, "-e", "require.resolve('pg')"],
        cwd=EXAMPLE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if found.returncode != 0:
        pytest.skip("the npm package pg is not installed (cd examples/node && npm install)")
    return node


def libpq_environment(dsn: str) -> dict[str, str]:
    """The test DSN as the PG* variables node-postgres reads (it takes no key=value DSN)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PG") and k not in ("AGENT_STATE_DSN", "DATABASE_URL")
    }
    params = conninfo_to_dict(dsn)
    for key, var in (
        ("host", "PGHOST"),
        ("port", "PGPORT"),
        ("user", "PGUSER"),
        ("password", "PGPASSWORD"),
        ("dbname", "PGDATABASE"),
    ):
        if params.get(key):
            env[var] = str(params[key])
    return env


def run_example(node: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [node, str(EXAMPLE), HANDLE],
        cwd=EXAMPLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def test_node_example_calls_the_api_with_named_notation(fresh_db_dsn: str) -> None:
    node = node_with_pg()
    env = libpq_environment(fresh_db_dsn)

    first = run_example(node, env).splitlines()
    m = re.fullmatch(r"created agent (.+): ([0-9a-f-]{36})", first[0])
    assert m and m[1] == HANDLE, first
    agent = UUID(m[2])
    assert first[1] == "persona revision 1 active; a note remembered"
    assert first[2] == "recall 'office': 1 hit(s)"
    assert re.fullmatch(r"  entry \S+ r1 score 0\.\d{4}: The office opens at nine\.", first[3])
    assert first[4] == (
        "an unknown agent: SQLSTATE P0002: agent: unknown agent "
        "00000000-0000-4000-8000-000000000000"
    )

    # A second run finds the agent by its handle (find_agent) instead of creating one.
    second = run_example(node, env).splitlines()
    assert second[0] == f"found agent {HANDLE}: {agent}"
    assert second[1] == "persona revision 2 active; a note remembered"
    assert second[2] == "recall 'office': 2 hit(s)"

    # What it wrote, read back through the Python wrapper.
    with agent_state.connect(fresh_db_dsn) as store:
        assert store.find_agent(handle=HANDLE) == agent
        persona = store.active_persona(agent=agent)
        assert persona is not None and (persona.revision, persona.body) == (
            2,
            "You answer in one sentence.",
        )
        memories = store.list_memories(agent=agent)
        assert [m.body for m in memories] == ["The office opens at nine."] * 2
