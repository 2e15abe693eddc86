"""docs/api.md is generated from the catalog; it must match the installed SQL."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_api_docs", ROOT / "scripts" / "gen-api-docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_api_docs"] = module
    spec.loader.exec_module(module)
    return module


def test_api_reference_matches_catalog(admin_dsn: str) -> None:
    gen = _generator()
    with psycopg.connect(admin_dsn) as conn:
        expected = gen.render(conn)
    current = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert current == expected, "docs/api.md is out of date: run `make docs`"


def test_every_public_function_is_documented(admin_dsn: str) -> None:
    with psycopg.connect(admin_dsn) as conn:
        undocumented = conn.execute(
            """
            SELECT p.oid::regprocedure::text
            FROM pg_catalog.pg_proc AS p
            WHERE p.pronamespace = 'agent_state'::regnamespace
              AND p.proname NOT LIKE '\\_%'
              AND coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '') = ''
            """
        ).fetchall()
    assert undocumented == []
