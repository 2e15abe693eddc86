"""The catalog the generators read (gen-python-api.py, gen-api-docs.py, gen-router.py).

``catalog(dsn)`` yields a connection to the database a DSN names, or, without one,
to a throwaway cluster holding the freshly built bundle (``make`` first), removed
afterwards. ``package_module(name)`` loads one stdlib-only module of the wrapper on
its own: the package itself imports the files the generators write, so it must not
be needed to write them.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "agent_state"


class MissingBundle(Exception):
    """The built bundle is not there: run make."""


def package_module(name: str) -> ModuleType:
    key = f"_catalog_source_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, PACKAGE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


@contextmanager
def catalog(dsn: str | None) -> Iterator[psycopg.Connection[Any]]:
    if dsn:
        with psycopg.connect(dsn) as conn:
            yield conn
        return
    bundle = PACKAGE / "sql" / "agent_state.sql"
    if not bundle.is_file():
        raise MissingBundle(f"{bundle.relative_to(ROOT)} is missing: run make")
    with (
        package_module("embedded").TemporaryCluster(fsync=False) as cluster,
        psycopg.connect(cluster.dsn(), autocommit=True) as conn,
    ):
        with conn.transaction():
            conn.execute(bundle.read_text(encoding="utf-8"))
        yield conn
