#!/usr/bin/env python3
"""Write the router's generated API (python/agent_state/router/api.sql) from the catalog.

A router database (SPEC section 15) holds functions with the same names, parameters
and results as agent_state's public API; each runs the call on the shard that holds
the call's agent, through PL/Proxy. This script reads every public function (one
that agent_state_runtime or agent_state_operator may EXECUTE) from an installed
catalog and writes:

* for each function, agent_state_router._on_NAME(server text, <its parameters>):
  the call on one named shard (what the hand-written router functions use);
* for each function whose first parameter is ``agent uuid``, agent_state.NAME with
  the same signature, routed by the directory (agent_state_router._route);
* the shard's COMMENT ON FUNCTION for each routed function, and each API
  function's grants as on the shard (the router's own functions' grants are in
  router/privileges.sql, loaded last).

The functions that do not route by their first parameter (they place agents, reach
every shard or take no agent) are written by hand in router/router.sql; a function
of neither kind stops the script, so the router cannot silently lack one. A test
regenerates the file and compares, and another compares the router's catalog with a
shard's. Usage:

    python3 scripts/gen-router.py [--dsn DSN] [--check]

Without --dsn a throwaway cluster is started and the bundle installed into it (run
`make` first). --check exits 1 when the file differs from what it would write.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import psycopg

# The generators' shared part (scripts/catalog_source.py), also when a test loads
# this file by its path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalog_source import MissingBundle, catalog

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "agent_state"
API_FILE = PACKAGE / "router" / "api.sql"

# Written by hand in router.sql: they place agents (create_agent, fork_agent,
# import_agent), find one by handle, or reach every shard.
HAND = frozenset(
    {
        "create_agent",
        "fork_agent",
        "import_agent",
        "find_agent",
        "list_agents",
        "verify",
        "index_embeddings",
        "version",
        "shard_inventory",
        "register_tool",
    }
)

CATALOG = """
SELECT p.proname::text AS name,
       pg_catalog.pg_get_function_arguments(p.oid) AS args,
       pg_catalog.pg_get_function_identity_arguments(p.oid) AS identity,
       pg_catalog.pg_get_function_result(p.oid) AS result,
       coalesce(p.proargnames, '{}') AS argnames,
       p.proargtypes::regtype[]::text[] AS argtypes,
       p.proretset AS retset,
       pg_catalog.obj_description(p.oid, 'pg_proc') AS comment,
       pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE') AS runtime
FROM pg_catalog.pg_proc AS p
WHERE p.pronamespace = 'agent_state'::regnamespace
  AND p.proname !~ '^_'
  AND (pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')
       OR pg_catalog.has_function_privilege('agent_state_operator', p.oid, 'EXECUTE'))
ORDER BY p.proname, p.oid
"""


class CatalogError(Exception):
    pass


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def render(conn: psycopg.Connection[Any]) -> str:
    rows = conn.execute(CATALOG).fetchall()
    out = [
        "-- agent_state router: the API functions, generated from the catalog by",
        "-- scripts/gen-router.py (make router); do not edit. Loaded after router.sql.",
        "SET LOCAL search_path = pg_catalog, pg_temp;",
        "SET LOCAL check_function_bodies = off;",
        "",
    ]
    names = [r[0] for r in rows]
    if len(set(names)) != len(names):
        raise CatalogError("an overloaded public function: the router routes by name")
    routed: list[str] = []
    grants: list[str] = []
    for name, args, identity, result, argnames, argtypes, retset, comment, runtime in rows:
        roles = "agent_state_operator, agent_state_runtime" if runtime else "agent_state_operator"
        grants += [
            f"REVOKE ALL ON FUNCTION agent_state.{name}({identity}) FROM PUBLIC;",
            f"GRANT EXECUTE ON FUNCTION agent_state.{name}({identity}) TO {roles};",
        ]
        argnames = list(argnames)[: len(argtypes)]
        returns_table = result.startswith("TABLE(") or retset
        call_args = ", ".join(argnames)
        if result == "void":
            select = f"SELECT agent_state.{name}({call_args})"
        elif returns_table:
            select = f"SELECT * FROM agent_state.{name}({call_args})"
        else:
            select = f"SELECT agent_state.{name}({call_args})"
        plain = ", ".join(f"{n} {t}" for n, t in zip(argnames, argtypes, strict=True))
        on_args = "server text" + (", " + plain if plain else "")
        out += [
            f"CREATE FUNCTION agent_state_router._on_{name}({on_args})",
            f"RETURNS {result}",
            "LANGUAGE plproxy",
            "SET search_path = pg_catalog, pg_temp",
            "AS $$",
            "    CLUSTER agent_state_router._named(server);",
            "    RUN ON 0;",
            f"    {select};",
            "$$;",
            "",
        ]
        if name in HAND:
            continue
        if not (argnames and argnames[0] == "agent" and argtypes[0] == "uuid"):
            raise CatalogError(
                f"{name}({identity}) takes no agent first: write its router function "
                "in python/agent_state/router/router.sql and add it to HAND"
            )
        out += [
            f"CREATE FUNCTION agent_state.{name}({args})",
            f"RETURNS {result}",
            "LANGUAGE plproxy",
            "SET search_path = pg_catalog, pg_temp",
            "AS $$",
            "    CLUSTER agent_state_router._route(agent);",
            "    RUN ON 0;",
            "$$;",
            "",
        ]
        routed.append(name)
        if comment:
            out += [
                f"COMMENT ON FUNCTION agent_state.{name}({identity}) IS",
                quote_literal(comment) + ";",
                "",
            ]
    out += [
        "-- Who may execute each API function: as on a shard (a runtime refused here gets",
        "-- the same 42501 as from one server). The _on_ functions: privileges.sql.",
        *grants,
    ]
    return "\n".join(out) + "\n"


def generate(dsn: str | None) -> str:
    try:
        with catalog(dsn) as conn:
            return render(conn)
    except MissingBundle as e:
        raise CatalogError(str(e)) from e


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dsn")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    try:
        text = generate(args.dsn)
    except CatalogError as e:
        print(f"gen-router: {e}", file=sys.stderr)
        return 1
    current = API_FILE.read_text(encoding="utf-8") if API_FILE.is_file() else None
    if args.check:
        if current != text:
            print(
                f"gen-router: {API_FILE.relative_to(ROOT)} is out of date (make router)",
                file=sys.stderr,
            )
            return 1
        return 0
    if current != text:
        API_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {API_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
