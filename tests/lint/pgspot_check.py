#!/usr/bin/env python3
"""Run pgspot over the install bundle, minus inlinable SQL helpers.

Usage: pgspot_check.py BUNDLE [pgspot options...]

pgspot wants every function to pin search_path (PS005) and then checks the
body under that path. A ``LANGUAGE sql`` function with a SET clause can never
be inlined by the planner, so the schema keeps a few internal helpers without
one on purpose (e.g. ``_eligible_memory``, expanded into its SECURITY DEFINER
callers so the per-agent index is usable). Their bodies run under the caller's
pinned search_path, which pgspot cannot know.

Such functions (LANGUAGE sql, not SECURITY DEFINER, no SET clause) are blanked
out, line numbers kept, before pgspot runs; their names are printed. So is one
PL/pgSQL function, ``_restoring()``: it reads the writing session's own
search_path (a restore empties it), which a SET clause would hide. What keeps
the exemption safe is checked in the database by tests/lint/catalog_checks.sql
(``unpinned_callable``): a function without a pinned search_path may not be
executable by any role but its owner, so only the owner's SECURITY DEFINER
functions can reach it.

Needs pglast, which pgspot itself depends on.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from pglast import ast
from pglast.parser import parse_sql

# Functions that must see the caller's search_path (see the module docstring).
CALLER_PATH_READERS = {"agent_state._restoring"}


def inlinable_helpers(source: str) -> list[tuple[str, int, int]]:
    """(name, start, end) character ranges of CREATE FUNCTION statements to exempt.

    pglast reports statement locations in characters, not bytes.
    """
    found: list[tuple[str, int, int]] = []
    for raw in parse_sql(source):
        stmt = raw.stmt
        if not isinstance(stmt, ast.CreateFunctionStmt):
            continue
        opts = {o.defname: o.arg for o in stmt.options or ()}
        language = opts.get("language")
        security = opts.get("security")
        name = ".".join(n.sval for n in stmt.funcname)
        if name in CALLER_PATH_READERS or (
            language is not None
            and getattr(language, "sval", "").lower() == "sql"
            and "set" not in opts
            and not (security is not None and getattr(security, "boolval", False))
        ):
            start = raw.stmt_location or 0
            end = start + raw.stmt_len if raw.stmt_len else len(source)
            found.append((name, start, end))
    return found


def blank(source: str, ranges: list[tuple[str, int, int]]) -> str:
    """Spaces instead of the statements' text; newlines and the terminating
    semicolons stay, so pgspot's line numbers still match the bundle."""
    out = list(source)
    for _name, start, end in ranges:
        for i in range(start, end):
            if out[i] not in ("\n", "\r"):
                out[i] = " "
    return "".join(out)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bundle = Path(argv[0])
    source = bundle.read_text(encoding="utf-8")
    ranges = inlinable_helpers(source)
    for name, _start, _end in ranges:
        print(f"pgspot: not checking {name} (no SET clause on purpose)")
    fd, tmp = tempfile.mkstemp(prefix="pgspot_", suffix=".sql")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(blank(source, ranges))
        return subprocess.run(["pgspot", *argv[1:], tmp], check=False).returncode
    finally:
        os.unlink(tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
