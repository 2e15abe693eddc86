"""The wrapper and the SQL must not drift apart.

Compares every public method of ``Store`` and ``AsyncStore`` and the wrapper's function
table with ``pg_proc`` for schema ``agent_state``: names, parameter names and order,
which parameters have defaults, argument types, result type and result columns.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

import agent_state
from agent_state import _functions as F


def public_methods(cls: type) -> dict[str, Any]:
    """Methods of ``cls`` that stand for SQL functions (everything public and callable)."""
    names = {
        name
        for name, value in vars(cls).items()
        if not name.startswith("_") and inspect.isfunction(value)
    }
    # Lifecycle and transaction helpers of the store itself, and the embedding hook
    # (which calls pending_embeddings and attach_embedding), not SQL functions.
    names -= {"close", "transaction", "connect", "embed_pending"}
    return {name: getattr(cls, name) for name in sorted(names)}


@dataclass(frozen=True)
class Proc:
    name: str
    arg_names: list[str]
    arg_types: list[str]
    n_defaults: int
    result: str
    out_columns: list[str]
    returns_set: bool


CATALOG_QUERY = """
SELECT p.proname,
       coalesce(p.proargnames, '{}'::text[]) AS argnames,
       coalesce(p.proargmodes::text[], '{}'::text[]) AS argmodes,
       ARRAY(SELECT pg_catalog.format_type(t, NULL)
               FROM pg_catalog.unnest(p.proargtypes) WITH ORDINALITY AS a(t, n)
              ORDER BY n) AS argtypes,
       p.pronargs,
       p.pronargdefaults,
       pg_catalog.pg_get_function_result(p.oid) AS result,
       p.proretset
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'agent_state'
   AND p.prokind = 'f'
   AND left(p.proname, 1) <> '_'
 ORDER BY p.proname, p.oid
"""


def load_catalog(conn: psycopg.Connection[Any]) -> dict[str, list[Proc]]:
    procs: dict[str, list[Proc]] = {}
    for name, argnames, argmodes, argtypes, nargs, ndefaults, result, retset in conn.execute(
        CATALOG_QUERY
    ).fetchall():
        if argmodes:
            ins = [n for n, m in zip(argnames, argmodes, strict=True) if m in ("i", "b", "v")]
            outs = [n for n, m in zip(argnames, argmodes, strict=True) if m in ("o", "b", "t")]
        else:
            ins, outs = list(argnames), []
        assert len(ins) == nargs or not argnames, f"{name}: unnamed arguments"
        procs.setdefault(name, []).append(
            Proc(name, ins, list(argtypes), ndefaults, result, outs, retset)
        )
    return procs


@pytest.fixture(scope="module")
def catalog() -> Iterator[dict[str, list[Proc]]]:
    dsn = os.environ.get("AGENT_STATE_TEST_DSN")
    if not dsn:
        pytest.skip("AGENT_STATE_TEST_DSN is not set")
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield load_catalog(conn)


def proc(catalog: dict[str, list[Proc]], name: str) -> Proc:
    found = catalog.get(name)
    assert found, f"Store.{name} calls agent_state.{name}, which is not in the database"
    assert len(found) == 1, f"agent_state.{name} is overloaded; the wrapper calls one signature"
    return found[0]


STORE_METHODS = public_methods(agent_state.Store)
ASYNC_METHODS = public_methods(agent_state.AsyncStore)


# ---------------------------------------------------------------- without a database


def test_function_table_matches_store_methods() -> None:
    assert set(STORE_METHODS) == set(F.FUNCTIONS)


def test_async_store_has_the_same_methods() -> None:
    assert set(ASYNC_METHODS) == set(STORE_METHODS)
    for name, method in STORE_METHODS.items():
        amethod = ASYNC_METHODS[name]
        assert inspect.iscoroutinefunction(amethod), f"AsyncStore.{name} is not async"
        sync_sig = inspect.signature(method)
        async_sig = inspect.signature(amethod)
        assert list(sync_sig.parameters.values()) == list(async_sig.parameters.values()), name
        assert sync_sig.return_annotation == async_sig.return_annotation, name


@pytest.mark.parametrize("name", sorted(F.FUNCTIONS))
def test_method_signature_matches_function_table(name: str) -> None:
    fn = F.FUNCTIONS[name]
    params = list(inspect.signature(STORE_METHODS[name]).parameters.values())
    assert params[0].name == "self"
    params = params[1:]
    assert [p.name for p in params] == [p.name for p in fn.params]
    for p, sql_param in zip(params, fn.params, strict=True):
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}({p.name}) must be keyword-only"
        if sql_param.default:
            assert p.default is None, f"{name}({p.name}): SQL default, so Python default None"
        else:
            assert p.default is inspect.Parameter.empty, f"{name}({p.name}) has no SQL default"
    if fn.params and fn.params[0].type == "uuid" and name != "register_tool":
        assert fn.params[0].name == "agent", f"{name}: agent must be the first parameter"


def test_query_uses_named_notation_and_casts() -> None:
    query, params = F.record_message.build(
        {"agent": "a", "conversation": "c", "author": "u", "body": "b", "audience": None}
    )
    text = query.as_string(None)
    assert text == (
        'SELECT * FROM "agent_state"."record_message"('
        '"agent" => %s::uuid, "conversation" => %s::uuid, "author" => %s::uuid, '
        '"body" => %s::text)'
    )
    assert params == ["a", "c", "u", "b"]
    # A required argument given as None is sent (as NULL), so the SQL raises 22004.
    query, params = F.revise_persona.build({"agent": None, "body": None, "activate": False})
    assert params == [None, None, False]
    with pytest.raises(TypeError):
        F.version.build({"nope": 1})


# ---------------------------------------------------------------- against pg_proc


def test_every_sql_function_has_a_method(catalog: dict[str, list[Proc]]) -> None:
    missing = sorted(set(catalog) - set(STORE_METHODS))
    assert not missing, f"SQL functions without a Store method: {missing}"


@pytest.mark.parametrize("name", sorted(F.FUNCTIONS))
def test_method_matches_pg_proc(catalog: dict[str, list[Proc]], name: str) -> None:
    p = proc(catalog, name)
    fn = F.FUNCTIONS[name]
    assert [x.name for x in fn.params] == p.arg_names, f"{name}: parameter names/order"
    assert [x.type for x in fn.params] == p.arg_types, f"{name}: parameter types"
    with_default = [x.name for x in fn.params if x.default]
    sql_with_default = p.arg_names[len(p.arg_names) - p.n_defaults :] if p.n_defaults else []
    assert with_default == sql_with_default, f"{name}: which parameters have defaults"
    assert fn.result == p.result, f"{name}: result type"

    shape = fn.shape
    if isinstance(shape, (F.Many, F.One, F.MaybeOne)):
        assert p.returns_set, f"{name}: wrapper expects rows"
        fields = [f.name for f in dataclasses.fields(shape.cls)]
        assert fields == p.out_columns, f"{name}: result columns vs {shape.cls.__name__}"
    elif isinstance(shape, F.Void):
        assert p.result == "void"
    else:
        assert not p.returns_set, f"{name}: wrapper expects one value"
        assert p.result != "void"


@pytest.mark.parametrize("name", sorted(F.FUNCTIONS))
def test_async_method_matches_pg_proc(catalog: dict[str, list[Proc]], name: str) -> None:
    p = proc(catalog, name)
    params = list(inspect.signature(ASYNC_METHODS[name]).parameters)[1:]
    assert params == p.arg_names
