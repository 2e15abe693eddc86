"""A router over several agent_state shards with PL/Proxy (SPEC section 15).

The router database holds functions with the same names, parameters and results as
agent_state's API (``api.sql``, generated from the catalog by ``scripts/gen-router.py``),
a directory of agents and shards, and the functions that place agents, reach every
shard, move agents (``move_agent``) and compare the shards (``shard_check``), written
by hand in ``router.sql``. Clients (``agent_state.Store``, the adapters, any SQL
client) connect to the router as they would to one server. See docs/scaling.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import psycopg

__all__ = ["add_shards", "install", "installed", "move", "router_sql"]


def router_sql() -> list[str]:
    """The router's scripts, in load order (hand-written, then generated)."""
    base = resources.files(__name__)
    names = ("router.sql", "api.sql", "privileges.sql")
    return [base.joinpath(name).read_text(encoding="utf-8") for name in names]


def installed(conn: psycopg.Connection[Any]) -> bool:
    """Does this database hold a router already?"""
    row = conn.execute(
        "SELECT pg_catalog.to_regclass('agent_state_router.directory') IS NOT NULL"
    ).fetchone()
    return bool(row and row[0])


def install(conn: psycopg.Connection[Any]) -> bool:
    """Create the router in the connection's database (one transaction; needs a
    superuser, for PL/Proxy). Returns False when one is there already. Refused when
    the database holds agent_state itself: a shard is never its own router."""
    if installed(conn):
        return False
    shard = conn.execute("SELECT pg_catalog.to_regnamespace('agent_state') IS NOT NULL")
    if shard.fetchone() == (True,):
        raise psycopg.errors.DuplicateSchema(
            "router: this database has a schema agent_state (a shard?): use a database of its own"
        )
    with conn.transaction():
        conn.execute("CREATE EXTENSION IF NOT EXISTS plproxy")
        for script in router_sql():
            conn.execute(script)
    return True


def add_shards(conn: psycopg.Connection[Any], shards: Mapping[str, str]) -> dict[str, int]:
    """Add shards (name -> connection string without user or password) to the router;
    returns how many agents each holds (entered in the directory)."""
    counts: dict[str, int] = {}
    with conn.transaction():
        for name, dsn in shards.items():
            row = conn.execute("SELECT agent_state.add_shard(%s, %s)", (name, dsn)).fetchone()
            counts[name] = int(row[0]) if row else 0
    return counts


def move(conn: psycopg.Connection[Any], agent: str, shard: str) -> dict[str, Any]:
    """``agent_state.move_agent(agent, shard)`` in a transaction of its own."""
    with conn.transaction():
        row = conn.execute(
            "SELECT agent_state.move_agent(agent => %s::uuid, shard => %s)", (agent, shard)
        ).fetchone()
    assert row is not None
    result: dict[str, Any] = row[0]
    return result
