"""Database fixtures for the pytest suite.

Where the database comes from:

* ``AGENT_STATE_TEST_DSN`` (set by ``make test``, or by hand): a superuser
  connection to database ``agent_state_test`` with the extension installed,
  and ``AGENT_STATE_TEST_TEMPLATE`` naming a database that holds only the
  extension, cloned for per-module and per-test databases.
* Otherwise, when the local server binaries exist, plain ``pytest`` starts a
  throwaway cluster for the session, prepares the same databases the suite
  driver does and sets both variables (``AGENT_STATE_TEST_EMBEDDED=0`` turns
  this off; then database tests skip).

Fixtures:

``admin_dsn`` (session)
    superuser DSN, database ``agent_state_test``.
``template_db`` (session)
    name of the template database (extension installed, nothing else).
``module_db_dsn`` (module)
    superuser DSN of a fresh database cloned from the template for this test
    module; dropped after the module.
``fresh_db_dsn`` (function)
    the same, one database per test.
``admin_conn`` (function)
    autocommit superuser connection to ``module_db_dsn``.
``make_role`` (function)
    factory for login roles with unique names (roles are cluster-wide):
    ``make_role("agent_state_runtime")`` returns a :class:`TestRole` whose
    ``dsn(base_dsn)`` connects as that role; roles and what they own are
    dropped after the test.

For the wrapper tests, which share database ``agent_state_test`` and keep apart by
making their own agents:

``dsn`` (session)
    the same as ``admin_dsn``.
``sql_functions`` (module)
    names of the functions in schema ``agent_state``.
``require`` (function)
    ``require("remember", ...)`` skips the test, naming what is missing, unless
    those SQL functions exist (type :data:`Require`).
``store`` (function)
    an autocommit :class:`agent_state.Store` on ``dsn``, closed after the test.
``agent`` (function)
    a new agent (handle from :func:`new_handle`).
``runtime_role`` (function)
    a :class:`RuntimeRole`: a LOGIN role in ``agent_state_runtime`` with a hostile
    name, hosting nothing yet; append the agents a test lets it host to ``hosted``
    and their hosting is revoked before the role is dropped.
"""

from __future__ import annotations

import importlib.util
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import agent_state
from agent_state import Store

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TEMPLATE = "agent_state_template"

_embedded_cluster: Any = None


# --------------------------------------------------------------------- session setup


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _start_embedded() -> None:
    """Start a throwaway cluster and prepare the databases like tests/run_suite.py."""
    global _embedded_cluster
    suite = _load("_agent_state_run_suite", ROOT / "tests" / "run_suite.py")
    embedded = suite.load_embedded()
    try:
        bindir = embedded.find_bindir()
    except FileNotFoundError:
        return  # database tests skip
    build = subprocess.run(
        ["make", "--no-print-directory", "-s", "all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if build.returncode != 0:
        raise pytest.UsageError(f"make all failed:\n{build.stdout}{build.stderr}")
    cluster = embedded.TemporaryCluster(bindir=bindir, fsync=False)
    cluster.start()
    _embedded_cluster = cluster
    pg_config = bindir / "pg_config"
    server = suite.Server(
        params={"host": cluster.host, "port": str(cluster.port), "user": cluster.superuser},
        kind="embedded",
        local=True,
        pg_config=str(pg_config) if pg_config.is_file() else None,
    )
    suite.prepare_databases(server, suite.Result("databases"))
    os.environ.update(
        {
            "AGENT_STATE_TEST_DSN": server.conninfo(suite.TEST_DB),
            "AGENT_STATE_TEST_TEMPLATE": suite.TEMPLATE_DB,
            "AGENT_STATE_TEST_BINDIR": str(bindir),
        }
    )


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("AGENT_STATE_TEST_DSN") or os.environ.get("AGENT_STATE_TEST_EMBEDDED") == "0":
        return
    if hasattr(config, "workerinput"):  # pytest-xdist worker: the controller decides
        return
    _start_embedded()


def pytest_unconfigure(config: pytest.Config) -> None:
    global _embedded_cluster
    if _embedded_cluster is not None:
        _embedded_cluster.stop()
        _embedded_cluster = None
        os.environ.pop("AGENT_STATE_TEST_DSN", None)
        os.environ.pop("AGENT_STATE_TEST_TEMPLATE", None)


# --------------------------------------------------------------------- helpers


def with_dbname(dsn: str, dbname: str) -> str:
    """The same connection parameters for another database."""
    params = conninfo_to_dict(dsn)
    params["dbname"] = dbname
    return make_conninfo("", **{k: v for k, v in params.items() if v is not None})


def offers_pgvector(dsn: str) -> bool:
    """Can the server behind dsn create the vector extension (pgvector)?"""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return row.fetchone() is not None


def _unique_db_name(hint: str) -> str:
    base = re.sub(r"[^a-z0-9_]+", "_", hint.lower()).strip("_")[:30] or "db"
    return f"as_t_{base}_{secrets.token_hex(4)}"


def _create_db(admin_dsn: str, template: str, hint: str) -> str:
    name = _unique_db_name(hint)
    with psycopg.connect(with_dbname(admin_dsn, "postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template)
            )
        )
    return name


def _drop_db(admin_dsn: str, name: str) -> None:
    with psycopg.connect(with_dbname(admin_dsn, "postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


# --------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def admin_dsn() -> str:
    dsn = os.environ.get("AGENT_STATE_TEST_DSN")
    if not dsn:
        pytest.skip("no test database (set AGENT_STATE_TEST_DSN or install PostgreSQL)")
    return dsn


@pytest.fixture(scope="session")
def template_db(admin_dsn: str) -> str:
    return os.environ.get("AGENT_STATE_TEST_TEMPLATE") or DEFAULT_TEMPLATE


@pytest.fixture(scope="module")
def module_db_dsn(
    admin_dsn: str, template_db: str, request: pytest.FixtureRequest
) -> Iterator[str]:
    name = _create_db(admin_dsn, template_db, request.module.__name__.rsplit(".", 1)[-1])
    try:
        yield with_dbname(admin_dsn, name)
    finally:
        _drop_db(admin_dsn, name)


@pytest.fixture
def fresh_db_dsn(admin_dsn: str, template_db: str, request: pytest.FixtureRequest) -> Iterator[str]:
    name = _create_db(admin_dsn, template_db, request.node.name)
    try:
        yield with_dbname(admin_dsn, name)
    finally:
        _drop_db(admin_dsn, name)


@pytest.fixture
def admin_conn(module_db_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(module_db_dsn, autocommit=True) as conn:
        yield conn


@dataclass(frozen=True)
class TestRole:
    """A login role created for one test."""

    __test__ = False  # not a test class

    name: str
    password: str

    def dsn(self, base_dsn: str) -> str:
        """``base_dsn`` (any database) with this role's user name and password."""
        params = {k: v for k, v in conninfo_to_dict(base_dsn).items() if v is not None}
        params.update(user=self.name, password=self.password)
        return make_conninfo("", **params)


@pytest.fixture
def make_role(admin_dsn: str) -> Iterator[Callable[..., TestRole]]:
    created: list[TestRole] = []

    def factory(*member_of: str, name: str | None = None, login: bool = True) -> TestRole:
        role = TestRole(
            name=name if name is not None else f"as_test_{secrets.token_hex(5)}",
            password=secrets.token_urlsafe(18),
        )
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE ROLE {} {} PASSWORD {}").format(
                    sql.Identifier(role.name),
                    sql.SQL("LOGIN" if login else "NOLOGIN"),
                    sql.Literal(role.password),
                )
            )
            created.append(role)
            for group in member_of:
                conn.execute(
                    sql.SQL("GRANT {} TO {}").format(
                        sql.Identifier(group), sql.Identifier(role.name)
                    )
                )
        return role

    yield factory

    for role in reversed(created):
        _drop_role(admin_dsn, role.name)


def _drop_role(admin_dsn: str, name: str) -> None:
    """Drop a role after removing what it owns or was granted in every database."""
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT oid FROM pg_catalog.pg_roles WHERE rolname = %s", (name,))
        found = row.fetchone()
        if found is None:
            return
        dbs = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT d.datname FROM pg_catalog.pg_shdepend AS s"
                " JOIN pg_catalog.pg_database AS d ON d.oid = s.dbid"
                " WHERE s.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass"
                " AND s.refobjid = %s AND d.datallowconn",
                (found[0],),
            ).fetchall()
        ]
        # sessions still logged in as the role would block DROP ROLE
        conn.execute(
            "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity"
            " WHERE usename = %s AND pid <> pg_catalog.pg_backend_pid()",
            (name,),
        )
    for db in dbs:
        try:
            with psycopg.connect(with_dbname(admin_dsn, db), autocommit=True) as conn:
                conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(name)))
        except psycopg.OperationalError:
            pass  # the database went away meanwhile
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        try:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))
        except psycopg.Error as exc:
            import warnings

            warnings.warn(f"could not drop test role {name}: {exc}", stacklevel=1)


# --------------------------------------------------------------------- wrapper tests

Require = Callable[..., None]
"""The ``require`` fixture: skips the test unless the named SQL functions exist."""


def new_handle(prefix: str = "wrap") -> str:
    """A unique agent handle, hostile on purpose: quotes, backslash, Unicode."""
    return f"{prefix} 'q\"\\ü🤖 {uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def dsn(admin_dsn: str) -> str:
    return admin_dsn


@pytest.fixture(scope="module")
def sql_functions(dsn: str) -> set[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT p.proname FROM pg_catalog.pg_proc p"
            " JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = 'agent_state'"
        ).fetchall()
    return {r[0] for r in rows}


@pytest.fixture
def require(sql_functions: set[str]) -> Require:
    def check(*names: str) -> None:
        missing = [n for n in names if n not in sql_functions]
        if missing:
            pytest.skip(
                "not in the database yet: " + ", ".join(f"agent_state.{n}" for n in missing)
            )

    return check


@pytest.fixture
def store(dsn: str) -> Iterator[Store]:
    with agent_state.connect(dsn) as s:
        yield s


@pytest.fixture
def agent(store: Store) -> UUID:
    return store.create_agent(handle=new_handle())


@dataclass
class RuntimeRole:
    """A LOGIN role in agent_state_runtime and the agents it was let host."""

    name: str
    dsn: str
    hosted: list[UUID] = field(default_factory=list)


@pytest.fixture
def runtime_role(
    dsn: str, store: Store, make_role: Callable[..., TestRole]
) -> Iterator[RuntimeRole]:
    role = make_role("agent_state_runtime", name=f"wrap rt \"ü' {secrets.token_hex(4)}")
    runtime = RuntimeRole(role.name, role.dsn(dsn))
    yield runtime
    for a in runtime.hosted:
        store.revoke_hosting(agent=a, host=runtime.name)
