"""agent_state.install(): plain-SQL install, no-ops, upgrades through bundled scripts."""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

import agent_state
from agent_state import _install
from conftest import TestRole, with_dbname

BUNDLE = Path(agent_state.__file__).parent / "sql" / "agent_state.sql"
needs_bundle = pytest.mark.skipif(not BUNDLE.is_file(), reason="bundled SQL not built: run make")


@pytest.fixture
def empty_db(dsn: str) -> Iterator[str]:
    """A new database without agent_state (the cluster-wide roles may exist)."""
    name = f"as_wrap_install_{secrets.token_hex(4)}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield with_dbname(dsn, name)
    finally:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture
def package_sql(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for the package's sql/ directory holding a copy of the bundle."""
    directory = tmp_path / "sql"
    directory.mkdir()
    if BUNDLE.is_file():
        shutil.copy(BUNDLE, directory / "agent_state.sql")
    monkeypatch.setattr(_install, "_sql_dir", lambda: directory)
    return directory


def set_version(conn: psycopg.Connection[tuple[object, ...]], version: str) -> None:
    conn.execute(
        sql.SQL(
            "CREATE OR REPLACE FUNCTION agent_state.version() RETURNS text"
            " LANGUAGE sql IMMUTABLE AS {}"
        ).format(sql.Literal(f"SELECT {sql.quote(version)}::text"))
    )


# ---------------------------------------------------------------- without a database


def test_bundled_version_reads_the_header() -> None:
    assert _install.bundled_version("-- agent_state 1.2.3: install script.\nSELECT 1;") == "1.2.3"
    body = "CREATE FUNCTION agent_state.version()\nRETURNS text AS $$ SELECT '0.4.0' $$;"
    assert _install.bundled_version(body) == "0.4.0"
    with pytest.raises(agent_state.Error):
        _install.bundled_version("SELECT 1;")


@needs_bundle
def test_bundled_version_of_the_package() -> None:
    assert agent_state.bundled_version() == agent_state.__version__


def test_missing_bundle_says_run_make(package_sql: Path) -> None:
    (package_sql / "agent_state.sql").unlink(missing_ok=True)
    with pytest.raises(agent_state.Error, match="make"):
        _install.bundle_text()


def test_upgrade_path(package_sql: Path) -> None:
    for name in (
        "agent_state--0.1.0--0.2.0.sql",
        "agent_state--0.2.0--0.3.0.sql",
        "agent_state--0.3.0--0.4.0.sql",
        "agent_state--0.2.0--0.4.0.sql",
    ):
        (package_sql / name).write_text("SELECT 1;\n")
    assert _install.upgrade_path("0.1.0", "0.2.0") == ["agent_state--0.1.0--0.2.0.sql"]
    assert _install.upgrade_path("0.1.0", "0.4.0") == [
        "agent_state--0.1.0--0.2.0.sql",
        "agent_state--0.2.0--0.4.0.sql",
    ]
    assert _install.upgrade_path("0.3.0", "0.3.0") == []
    with pytest.raises(agent_state.Error, match="no upgrade scripts"):
        _install.upgrade_path("0.0.9", "0.4.0")


# ---------------------------------------------------------------- against a database


@needs_bundle
def test_plain_install_then_noop(empty_db: str) -> None:
    version = agent_state.bundled_version()
    assert agent_state.install(empty_db) == version
    with psycopg.connect(empty_db, autocommit=True) as conn:
        assert agent_state.install(conn) == version  # already there: nothing to do
        row = conn.execute(
            "SELECT count(*) FROM pg_catalog.pg_extension WHERE extname = 'agent_state'"
        ).fetchone()
        assert row == (0,)  # plain SQL, not an extension
    with agent_state.connect(empty_db) as store:
        assert store.version() == version
        agent = store.create_agent(handle="installed")
        assert store.revise_persona(agent=agent, body="works") == 1


@needs_bundle
def test_install_inside_the_callers_transaction(empty_db: str) -> None:
    with psycopg.connect(empty_db) as conn:
        conn.execute("SET search_path = public")
        assert agent_state.install(conn) == agent_state.bundled_version()
        assert conn.execute("SHOW search_path").fetchone() == ("public",)
        conn.rollback()  # the caller decides: nothing was installed
        row = conn.execute(
            "SELECT pg_catalog.to_regprocedure('agent_state.version()') IS NULL"
        ).fetchone()
        assert row == (True,)


@needs_bundle
def test_upgrade_applies_bundled_scripts(empty_db: str, package_sql: Path) -> None:
    target = agent_state.install(empty_db)
    with psycopg.connect(empty_db, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_catalog.pg_get_functiondef('agent_state.version()'::regprocedure)"
        ).fetchone()
        assert row is not None
        original = str(row[0])
        # Pretend an older plain install, and ship the script that upgrades it.
        set_version(conn, "0.0.9")
        (package_sql / f"agent_state--0.0.9--{target}.sql").write_text(original + ";\n")
        assert agent_state.install(conn) == target
        assert conn.execute("SELECT agent_state.version()").fetchone() == (target,)


@needs_bundle
def test_install_refuses_newer_or_unreachable_versions(empty_db: str, package_sql: Path) -> None:
    agent_state.install(empty_db)
    with psycopg.connect(empty_db, autocommit=True) as conn:
        set_version(conn, "99.0.0")
        with pytest.raises(agent_state.Error, match="newer"):
            agent_state.install(conn)
        set_version(conn, "0.0.1")
        with pytest.raises(agent_state.Error, match="no upgrade scripts"):
            agent_state.install(conn)
        assert conn.execute("SELECT agent_state.version()").fetchone() == ("0.0.1",)


@needs_bundle
def test_install_reports_where_a_script_fails(empty_db: str, package_sql: Path) -> None:
    (package_sql / "agent_state.sql").write_text(
        "-- agent_state 0.1.0: broken on purpose\nSELECT 1;\nSELECT FROM FROM;\n"
    )
    with pytest.raises(agent_state.Error, match=r"agent_state\.sql line 3") as info:
        agent_state.install(empty_db)
    assert info.value.sqlstate == "42601"


def test_install_returns_the_extension_version_when_it_is_an_extension(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'agent_state'"
        ).fetchone()
        if row is None:
            pytest.skip("the test database has a plain install, not the extension")
        assert agent_state.install(conn) == row[0]


# ---------------------------------------------------------------- a schema someone else owns


def _plant_schema(db: str, intruder: TestRole) -> None:
    """The intruder creates schema agent_state (with a lookalike helper) first."""
    with psycopg.connect(db, autocommit=True) as admin:
        admin.execute(
            sql.SQL("GRANT CREATE ON DATABASE {} TO {}").format(
                sql.Identifier(str(admin.info.dbname)), sql.Identifier(intruder.name)
            )
        )
    with psycopg.connect(intruder.dsn(db), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA agent_state")
        conn.execute(
            "CREATE FUNCTION agent_state._caller() RETURNS name"
            " LANGUAGE sql AS $$ SELECT 'x'::name $$"
        )


def _installed_functions(db: str) -> int:
    with psycopg.connect(db) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_proc WHERE pronamespace = 'agent_state'::regnamespace"
        ).fetchone()
    assert row is not None
    return int(row[0])


@needs_bundle
def test_install_refuses_a_schema_another_role_owns(
    empty_db: str, make_role: Callable[..., TestRole]
) -> None:
    """Installing into a schema another role owns would let that role replace what
    the SECURITY DEFINER functions call: refused, nothing created."""
    _plant_schema(empty_db, make_role())
    with pytest.raises(agent_state.PermissionDenied, match="schema agent_state exists"):
        agent_state.install(empty_db)
    assert _installed_functions(empty_db) == 1  # only the intruder's


def test_create_extension_refuses_a_schema_another_role_owns(
    empty_db: str, make_role: Callable[..., TestRole]
) -> None:
    with psycopg.connect(empty_db) as conn:
        available = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'agent_state'"
        ).fetchone()
    if available is None:
        pytest.skip("agent_state extension files are not installed on this server")
    _plant_schema(empty_db, make_role())
    with (
        psycopg.connect(empty_db, autocommit=True) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="schema agent_state exists"),
    ):
        conn.execute("CREATE EXTENSION agent_state")
    assert _installed_functions(empty_db) == 1
