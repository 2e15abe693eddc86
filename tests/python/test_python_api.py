"""The wrapper is generated from the SQL and must stay current.

``agent_state._functions`` (the table of functions) and ``agent_state._api`` (the
methods of ``Store`` and ``AsyncStore``) are written by ``scripts/gen-python-api.py``
from the catalog of a fresh install. These tests regenerate both from the test
server's catalog and compare, check that the few hand-written overrides keep the
generated signatures, and that ``import agent_state`` loads only the runtime.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
import pytest

import agent_state
from agent_state import _functions as F
from agent_state._api import AsyncStoreAPI, StoreAPI

ROOT = Path(__file__).resolve().parents[2]

# Store methods written by hand on top of the generated ones (they use the store's
# embedder); any other override of a generated method would be a second copy of a
# signature.
OVERRIDDEN = {"context_for", "recall"}

# uuid arguments (as text: sent as given, cast server-side)
A, C, E, U = (f"{n}0000000-0000-4000-8000-000000000000" for n in "1234")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_python_api", ROOT / "scripts" / "gen-python-api.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_python_api"] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- against the catalog


def test_generated_api_matches_catalog(admin_dsn: str) -> None:
    gen = _generator()
    with psycopg.connect(admin_dsn) as conn:
        files = gen.render(conn)
    assert set(files) == {gen.FUNCTIONS_FILE, gen.API_FILE}
    for path, expected in files.items():
        current = path.read_text(encoding="utf-8")
        assert current == expected, f"{path.name} is out of date: run `make api`"


def test_every_public_function_has_a_method(admin_dsn: str) -> None:
    gen = _generator()
    with psycopg.connect(admin_dsn) as conn:
        public = {
            name
            for (name,) in conn.execute(
                """
                SELECT p.proname
                  FROM pg_catalog.pg_proc AS p
                 WHERE p.pronamespace = 'agent_state'::regnamespace
                   AND p.proname NOT LIKE '\\_%'
                """
            )
        }
    assert public - set(gen.OMITTED) == set(F.FUNCTIONS)
    for name in F.FUNCTIONS:
        assert callable(getattr(agent_state.Store, name, None)), f"Store.{name}"
        amethod = getattr(agent_state.AsyncStore, name, None)
        assert inspect.iscoroutinefunction(amethod), f"AsyncStore.{name} is not async"


# ---------------------------------------------------------------- without a database


def test_generator_refuses_stale_mappings() -> None:
    gen = _generator()
    gen.check_tables(set(F.FUNCTIONS))
    with pytest.raises(gen.CatalogError, match="ROWS"):
        gen.check_tables(set(F.FUNCTIONS) - {"recall"})
    with pytest.raises(gen.CatalogError, match="NULLABLE"):
        gen.check_tables(set(F.FUNCTIONS) - {"graph_put"})


def test_overrides_are_deliberate() -> None:
    for cls in (agent_state.Store, agent_state.AsyncStore):
        assert set(vars(cls)) & set(F.FUNCTIONS) == OVERRIDDEN, cls.__name__


@pytest.mark.parametrize("name", sorted(F.FUNCTIONS))
def test_methods_keep_the_generated_signature(name: str) -> None:
    generated = inspect.signature(getattr(StoreAPI, name))
    assert inspect.signature(getattr(agent_state.Store, name)) == generated
    assert inspect.signature(getattr(AsyncStoreAPI, name)) == generated
    assert inspect.signature(getattr(agent_state.AsyncStore, name)) == generated
    params = list(generated.parameters.values())[1:]
    assert [p.name for p in params] == [p.name for p in F.FUNCTIONS[name].params]
    for p, sql_param in zip(params, F.FUNCTIONS[name].params, strict=True):
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{name}({p.name}) must be keyword-only"
        assert (p.default is None) == sql_param.default, f"{name}({p.name}): default"


@pytest.mark.parametrize("name", sorted(F.FUNCTIONS))
def test_agent_comes_first(name: str) -> None:
    fn = F.FUNCTIONS[name]
    if fn.params and fn.params[0].type == "uuid":
        assert fn.params[0].name == "agent", f"{name}: agent must be the first parameter"


def test_query_uses_named_notation_and_casts() -> None:
    query, params = F.record_message.build(
        {"agent": A, "conversation": C, "author": U, "body": "b", "audience": None}
    )
    text = query.as_string(None)
    assert text == (
        'SELECT * FROM "agent_state"."record_message"('
        '"agent" => %s::uuid, "conversation" => %s::uuid, "author" => %s::uuid, '
        '"body" => %s::text)'
    )
    assert params == [A, C, U, "b"]
    # A required argument given as None is sent (as NULL), so the SQL raises 22004.
    query, params = F.revise_persona.build({"agent": None, "body": None, "activate": False})
    assert params == [None, None, False]
    with pytest.raises(TypeError):
        F.version.build({"nope": 1})


def test_array_arguments_are_sent_as_lists() -> None:
    # psycopg dumps lists as arrays, not tuples or other sequences.
    _, params = F.graph_item_put.build(
        {"agent": A, "namespace": ("n", "m"), "key": "k", "value": {}, "body": "b"}
    )
    assert params[1] == ["n", "m"]
    _, params = F.attach_embedding.build(
        {"agent": A, "entry": E, "revision": 1, "model": "m", "embedding": (0.5, 1.0)}
    )
    assert params[-1] == "{0.5,1.0}"


def test_embeddings_are_sent_as_array_text(admin_conn: psycopg.Connection[Any]) -> None:
    # An embedding goes as the text of a real[] (a list is dumped element by
    # element, slowly): the server must read back exactly what a list gives,
    # NaN, infinities and nulls included (attach_embedding refuses those itself).
    vector = [
        0.1,
        -2.5e-7,
        3.0,
        1e30,
        1 + 2**-24,
        1 + 3 * 2**-24,
        1e-45,
        float("nan"),
        float("inf"),
        float("-inf"),
        None,
    ]
    _, params = F.attach_embedding.build(
        {"agent": A, "entry": E, "revision": 1, "model": "m", "embedding": vector}
    )
    assert isinstance(params[-1], str)
    as_text = admin_conn.execute("SELECT %s::real[]::text", [params[-1]]).fetchone()
    as_list = admin_conn.execute("SELECT %s::real[]::text", [vector]).fetchone()
    assert as_text == as_list
    # Integers too (psycopg cannot dump a list mixing int and float).
    _, params = F.attach_embedding.build(
        {"agent": A, "entry": E, "revision": 1, "model": "m", "embedding": [1, 2.5]}
    )
    assert params[-1] == "{1.0,2.5}"
    # Not numbers, booleans, values beyond float4: sent as the list (all of it,
    # a generator included), so the server refuses them as before.
    for bad in (["x"], [True, 0.5], [1e39]):
        _, params = F.attach_embedding.build(
            {"agent": A, "entry": E, "revision": 1, "model": "m", "embedding": bad}
        )
        assert params[-1] == bad
    _, params = F.attach_embedding.build(
        {
            "agent": A,
            "entry": E,
            "revision": 1,
            "model": "m",
            "embedding": (v for v in [1.0, "x", 2.0]),
        }
    )
    assert params[-1] == [1.0, "x", 2.0]


@pytest.mark.parametrize("value", ["users", b"users"])
def test_a_string_is_not_taken_for_an_array(value: object) -> None:
    # A str is a Sequence[str]: sent as a list it would be an array of characters.
    with pytest.raises(TypeError, match="namespace"):
        F.graph_item_put.build(
            {"agent": A, "namespace": value, "key": "k", "value": {}, "body": "b"}
        )


# ---------------------------------------------------------------- the runtime import path


def _loaded_after(statement: str) -> list[str]:
    """The agent_state modules a fresh interpreter has loaded after ``statement``."""
    code = (
        f"import sys; {statement}\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('agent_state'))))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), *sys.path])}
    return subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    ).stdout.split()


def test_import_loads_only_the_runtime() -> None:
    loaded = _loaded_after("import agent_state")
    assert "agent_state.store" in loaded and "agent_state.aio" in loaded
    for tool in ("agent_state.cli", "agent_state.embedded", "agent_state._demo"):
        assert tool not in loaded, f"import agent_state imports {tool}"


def test_cli_loads_the_demo_and_the_cluster_launcher_only_when_used() -> None:
    # The command line imports them lazily: a command against a DSN needs neither.
    loaded = _loaded_after("import agent_state.cli")
    assert "agent_state.embedded" not in loaded
    assert "agent_state._demo" not in loaded
