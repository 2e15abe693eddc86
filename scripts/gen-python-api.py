#!/usr/bin/env python3
"""Write the wrapper's function table and Store methods from the installed catalog.

Every public function (one that agent_state_runtime or agent_state_operator may
EXECUTE) becomes an entry of python/agent_state/_functions.py (name, parameters
with their types and which have defaults, result) and a keyword-only, typed method
of StoreAPI and AsyncStoreAPI in python/agent_state/_api.py, with the function's
COMMENT ON FUNCTION as docstring. Store and AsyncStore inherit those methods, so a
signature is written once, in SQL. A test regenerates both files from the test
server's catalog and compares. Usage:

    python3 scripts/gen-python-api.py [--dsn DSN] [--check]

Without --dsn a throwaway cluster is started and the bundle installed into it
(run `make` first). --check exits 1 when a file differs from what it would write.

What the catalog cannot tell is in the tables below: which dataclass a function's
rows become and how many rows it returns, the Python type of each SQL type, the
required parameters that accept None, and functions left out on purpose.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

# The generators' shared part (scripts/catalog_source.py), also when a test loads
# this file by its path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalog_source import MissingBundle, catalog, package_module

ROOT = Path(__file__).resolve().parents[1]

PACKAGE = ROOT / "python" / "agent_state"
FUNCTIONS_FILE = PACKAGE / "_functions.py"
API_FILE = PACKAGE / "_api.py"

# ---------------------------------------------------------------- what the catalog cannot tell

# Functions returning rows: how many (One: exactly one, MaybeOne: at most one, Many: a
# list) and the dataclass of agent_state.results built from them by column name.
ROWS: dict[str, tuple[str, str]] = {
    "active_persona": ("MaybeOne", "ActivePersona"),
    "authorize_tool": ("One", "ToolAuthorization"),
    "chain_head": ("One", "ChainHead"),
    "context_for": ("Many", "RecallHit"),
    "fork_origin": ("MaybeOne", "ForkOrigin"),
    "graph_item_put": ("One", "MemoryRef"),
    "graph_item_search": ("Many", "GraphItem"),
    "graph_list": ("Many", "GraphCheckpoint"),
    "graph_list_namespaces": ("Many", "GraphNamespace"),
    "list_agents": ("Many", "AgentSummary"),
    "list_conversations": ("Many", "ConversationSummary"),
    "list_memories": ("Many", "MemorySummary"),
    "list_runs": ("Many", "RunSummary"),
    "memory_entry": ("MaybeOne", "MemoryState"),
    "memory_history": ("Many", "MemoryRevision"),
    "note": ("One", "MemoryRef"),
    "pending_embeddings": ("Many", "PendingEmbedding"),
    "persona_history": ("Many", "PersonaRevision"),
    "profile_history": ("Many", "ProfileRevision"),
    "recall": ("Many", "RecallHit"),
    "remember": ("One", "MemoryRef"),
    "remember_many": ("Many", "MemoryRef"),
    "restore_agent": ("Many", "RestoreChange"),
    "session_get_items": ("Many", "SessionItem"),
    "session_item_history": ("Many", "SessionItemRevision"),
    "snapshot_sources": ("Many", "SnapshotSource"),
    "timeline": ("Many", "TimelineEvent"),
    "tool_grant_history": ("Many", "ToolGrantRevision"),
    "tool_grants": ("Many", "ToolGrant"),
    "verify": ("Many", "Violation"),
}

# Argument types (Id: a UUID or its text; JSON: anything Jsonb dumps; arrays are sent
# as lists) and scalar results.
ARG_TYPES: dict[str, str] = {
    "boolean": "bool",
    "bytea": "bytes",
    "integer": "int",
    "jsonb": "JSON",
    "real": "float",
    "regrole": "str",
    "text": "str",
    "timestamp with time zone": "datetime",
    "uuid": "Id",
}
RESULT_TYPES: dict[str, str] = {
    "boolean": "bool",
    "integer": "int",
    "jsonb": "dict[str, Any]",
    "text": "str",
    "uuid": "UUID",
    "void": "None",
}

# Required parameters (no SQL default) that take None on purpose.
NULLABLE: dict[str, set[str]] = {
    "graph_put": {"parent_checkpoint_id"},  # the first checkpoint of a thread has no parent
    "recall": {"query"},  # a purely semantic recall (query_embedding only)
}

# Public functions without a method, and why (none today).
OMITTED: dict[str, str] = {}

# ---------------------------------------------------------------- the catalog

QUERY = """
SELECT p.proname,
       coalesce(p.proargnames, '{}'::text[]) AS argnames,
       coalesce(p.proargmodes::text[], '{}'::text[]) AS argmodes,
       ARRAY(SELECT pg_catalog.format_type(t, NULL)
               FROM pg_catalog.unnest(p.proargtypes) WITH ORDINALITY AS a(t, n)
              ORDER BY n) AS argtypes,
       p.pronargs,
       p.pronargdefaults,
       pg_catalog.pg_get_function_result(p.oid) AS result,
       pg_catalog.format_type(p.prorettype, NULL) AS rettype,
       p.proretset,
       p.provolatile = 'v' AS volatile,
       coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '') AS comment
  FROM pg_catalog.pg_proc AS p
 WHERE p.pronamespace = 'agent_state'::regnamespace
   AND p.prokind = 'f'
   AND p.proname NOT LIKE '\\_%'  -- helpers the policies call are granted but not API
   AND (pg_catalog.has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')
        OR pg_catalog.has_function_privilege('agent_state_operator', p.oid, 'EXECUTE'))
 ORDER BY p.proname, p.oid
"""


@dataclass(frozen=True)
class Arg:
    name: str
    sql_type: str
    has_default: bool


@dataclass(frozen=True)
class Proc:
    name: str
    args: list[Arg]
    result: str
    rettype: str
    returns_set: bool
    volatile: bool
    columns: list[str]
    comment: str


class CatalogError(Exception):
    pass


def load(conn: psycopg.Connection[Any]) -> list[Proc]:
    procs: list[Proc] = []
    for row in conn.execute(QUERY).fetchall():
        (
            name,
            argnames,
            argmodes,
            argtypes,
            nargs,
            ndefaults,
            result,
            rettype,
            retset,
            volatile,
            comment,
        ) = row
        if name in OMITTED:
            continue
        if argmodes:
            modes = list(zip(argnames, argmodes, strict=True))
            ins = [n for n, m in modes if m in ("i", "b", "v")]
            outs = [n for n, m in modes if m in ("o", "b", "t")]
        else:
            ins, outs = list(argnames), []
        if len(ins) != nargs or any(not n for n in ins):
            raise CatalogError(f"{name}: every parameter needs a name")
        if not comment.strip():
            raise CatalogError(f"{name}: no COMMENT ON FUNCTION")
        args = [
            Arg(n, t, i >= nargs - ndefaults)
            for i, (n, t) in enumerate(zip(ins, argtypes, strict=True))
        ]
        procs.append(Proc(name, args, result, rettype, retset, volatile, outs, comment))
    names = [p.name for p in procs]
    overloaded = sorted({n for n in names if names.count(n) > 1})
    if overloaded:
        raise CatalogError(f"overloaded functions (the wrapper calls one signature): {overloaded}")
    return procs


# ---------------------------------------------------------------- types and shapes


def arg_type(proc: Proc, arg: Arg) -> str:
    base = arg.sql_type.removesuffix("[]")
    if base not in ARG_TYPES:
        raise CatalogError(f"{proc.name}({arg.name}): no Python type for {arg.sql_type}")
    py = ARG_TYPES[base]
    if arg.sql_type.endswith("[]"):
        py = f"Sequence[{py}]"
    if arg.has_default or arg.name in NULLABLE.get(proc.name, ()):
        py += " | None"
    return py


def shape(proc: Proc) -> tuple[str, str]:
    """The shape expression for the table and the method's return annotation."""
    if proc.returns_set:
        if proc.name not in ROWS:
            raise CatalogError(f"{proc.name} returns rows: add it to ROWS")
        kind, cls = ROWS[proc.name]
        check_columns(proc, cls)
        returns = {"One": cls, "MaybeOne": f"{cls} | None", "Many": f"list[{cls}]"}[kind]
        return f"{kind}({cls})", returns
    if proc.name in ROWS:
        raise CatalogError(f"{proc.name} returns one value: remove it from ROWS")
    if proc.rettype not in RESULT_TYPES:
        raise CatalogError(f"{proc.name}: no Python type for result {proc.rettype}")
    py = RESULT_TYPES[proc.rettype]
    return ("Void()" if py == "None" else f"Scalar[{py}]()"), py


def check_columns(proc: Proc, cls: str) -> None:
    results = package_module("results")
    fields = [f.name for f in dataclasses.fields(getattr(results, cls))]
    if fields != proc.columns:
        raise CatalogError(f"{proc.name}: result columns {proc.columns} but {cls} has {fields}")


# ---------------------------------------------------------------- rendering

GENERATED = (
    "Generated by scripts/gen-python-api.py from the catalog of a fresh install\n"
    "(``make api``); do not edit."
)


def imports(names: set[str], text: str) -> list[str]:
    """Those of ``names`` the generated ``text`` uses (as whole words)."""
    return sorted(n for n in names if re.search(rf"\b{n}\b", text))


def results_import(procs: list[Proc]) -> str:
    used = sorted({ROWS[p.name][1] for p in procs if p.name in ROWS})
    lines = "".join(f"    {n},\n" for n in used)
    return f"from .results import (\n{lines})\n"


def render_functions(procs: list[Proc]) -> str:
    body = []
    for p in procs:
        expr, _ = shape(p)
        if not p.args:
            params = "()"
        elif len(p.args) == 1:
            params = f"({param(p.args[0])},)"
        else:
            params = "(\n" + "".join(f"        {param(a)},\n" for a in p.args) + "    )"
        body.append(
            f"{p.name} = Fn(\n"
            f'    "{p.name}",\n'
            f"    {params},\n"
            f"{result_lines(p.result)}"
            f"    {expr},\n"
            f"{writes_line(p)}"
            ")\n"
        )
    text = "\n".join(body)
    head = [
        '"""Every public stored function: its parameters (types, which have SQL defaults),\n'
        "result type and how its rows become the Python result.\n\n"
        f"{GENERATED}\n"
        '"""\n\n',
        "from __future__ import annotations\n\n",
    ]
    # Any: the annotation of FUNCTIONS below.
    uuid = "from uuid import UUID\n" if imports({"UUID"}, text) else ""
    head.append(f"from typing import Any\n{uuid}\n")
    shapes = imports({"Fn", "Many", "MaybeOne", "One", "Param", "Scalar", "Void"}, text)
    head.append(f"from ._calls import {', '.join(shapes)}\n")
    head.append(results_import(procs))
    tail = (
        "\nFUNCTIONS: dict[str, Fn[Any]] = {\n"
        + "".join(f'    "{p.name}": {p.name},\n' for p in procs)
        + "}\n"
        + '"""Every function the wrapper calls, by name."""\n'
    )
    return "".join(head) + "\n" + text + tail


def writes_line(proc: Proc) -> str:
    """``writes=True`` for a call that may change an agent's history (a volatile
    function with an ``agent`` parameter): the store's witness records a head after it."""
    if proc.volatile and any(a.name == "agent" for a in proc.args):
        return "    writes=True,\n"
    return ""


def result_lines(result: str) -> str:
    """The result type as one string literal, split at commas to fit the line length."""
    parts = textwrap.wrap(result, width=90, break_long_words=False, break_on_hyphens=False)
    literals = [py_str(parts[0])] + [py_str(" " + part) for part in parts[1:]]
    return "".join(f"    {lit}\n" for lit in literals[:-1]) + f"    {literals[-1]},\n"


def param(arg: Arg) -> str:
    default = ", default=True" if arg.has_default else ""
    return f"Param({py_str(arg.name)}, {py_str(arg.sql_type)}{default})"


def py_str(value: str) -> str:
    """A string literal as the formatter writes it: single quotes when that saves escapes."""
    if '"' in value and "'" not in value:
        return "'" + value.replace("\\", "\\\\") + "'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def docstring(text: str, indent: str) -> str:
    text = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text += " "
    width = 100 - len(indent)
    if len(text) + 6 <= width:
        return f'{indent}"""{text}"""\n'
    lines = textwrap.wrap(text, width=width - 3, break_long_words=False, break_on_hyphens=False)
    first, rest = lines[0], " ".join(lines[1:])
    more = textwrap.wrap(rest, width=width, break_long_words=False, break_on_hyphens=False)
    out = f'{indent}"""{first}\n'
    out += "".join(f"{indent}{line}\n" for line in more)
    return out + f'{indent}"""\n'


def method(p: Proc, is_async: bool) -> str:
    _, returns = shape(p)
    notes = [
        f"``{a.name}`` is a role name as in ``pg_roles.rolname`` (the wrapper quotes it)."
        for a in p.args
        if a.sql_type == "regrole"
    ]
    doc = docstring(" ".join([p.comment, *notes]), " " * 8)
    prefix = "async def" if is_async else "def"
    call = "await self._call" if is_async else "self._call"
    if not p.args:
        body = f"        return {call}(F.{p.name})\n"
        return f"    {prefix} {p.name}(self) -> {returns}:\n{doc}{body}"
    sig = "".join(
        f"        {a.name}: {arg_type(p, a)}{' = None' if a.has_default else ''},\n" for a in p.args
    )
    args = "".join(f"            {a.name}={a.name},\n" for a in p.args)
    return (
        f"    {prefix} {p.name}(\n        self,\n        *,\n{sig}    ) -> {returns}:\n{doc}"
        f"        return {call}(\n            F.{p.name},\n{args}        )\n"
    )


CLASS_DOC = {
    False: "One method per public SQL function; :class:`~agent_state.Store` provides ``_call``.",
    True: "The methods of :class:`StoreAPI`, awaitable; :class:`~agent_state.AsyncStore` provides"
    " ``_call``.",
}


def render_api(procs: list[Proc]) -> str:
    classes = []
    for is_async, cls in ((False, "StoreAPI"), (True, "AsyncStoreAPI")):
        prefix = "async def" if is_async else "def"
        methods = "\n".join(method(p, is_async) for p in procs)
        classes.append(
            f"class {cls}:\n"
            + docstring(CLASS_DOC[is_async], "    ")
            + "\n"
            + f"    {prefix} _call(self, fn: Fn[R], **args: object) -> R:\n"
            + "        raise NotImplementedError\n\n"
            + methods
        )
    text = "\n\n".join(classes)
    head = (
        '"""Store methods: one per public ``agent_state`` SQL function, keyword-only and\n'
        "typed, with the function's ``COMMENT ON FUNCTION`` as docstring. An optional\n"
        "argument left as ``None`` is not sent, so the SQL default applies.\n\n"
        f"{GENERATED}\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
    )
    # What the annotations use (docstrings may name anything).
    annotations = " ".join(
        " ".join([shape(p)[1], *(arg_type(p, a) for a in p.args)]) for p in procs
    )
    std = [
        f"from {module} import {name}\n"
        for module, name in (
            ("collections.abc", "Sequence"),
            ("datetime", "datetime"),
            ("typing", "Any"),
            ("uuid", "UUID"),
        )
        if imports({name}, annotations)
    ]
    # isort's order: constants, classes, then the rest.
    calls = ["Fn", *imports({"JSON", "Id"}, annotations), "R"]
    calls.sort(key={"JSON": 0, "Fn": 1, "Id": 2, "R": 3}.__getitem__)
    head += "".join(std) + "\n"
    head += "from . import _functions as F\n"
    head += f"from ._calls import {', '.join(calls)}\n"
    head += results_import(procs)
    head += '\n__all__ = ["AsyncStoreAPI", "StoreAPI"]\n\n\n'
    return head + text


def check_tables(names: set[str]) -> None:
    """The tables above name only functions that exist (a stale entry would hide a change)."""
    for table, keys in (("ROWS", ROWS), ("NULLABLE", NULLABLE)):
        stale = sorted(set(keys) - names)
        if stale:
            raise CatalogError(f"{table} names functions that are not public: {stale}")


def render(conn: psycopg.Connection[Any]) -> dict[Path, str]:
    procs = load(conn)
    check_tables({p.name for p in procs})
    return {FUNCTIONS_FILE: render_functions(procs), API_FILE: render_api(procs)}


def generate(dsn: str | None) -> dict[Path, str]:
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
        files = generate(args.dsn)
    except CatalogError as e:
        print(f"gen-python-api: {e}", file=sys.stderr)
        return 1
    status = 0
    for target, text in files.items():
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if args.check:
            if current != text:
                print(f"{target.relative_to(ROOT)} is out of date: run make api", file=sys.stderr)
                status = 1
        elif current != text:
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
