"""Install or upgrade the bundled SQL as plain SQL (no ``CREATE EXTENSION`` needed).

The bundle ``agent_state/sql/agent_state.sql`` is the same script ``make`` builds for
the extension (``build/agent_state--<version>.sql``). It creates schema
``agent_state`` and the NOLOGIN roles itself, so it also runs on managed PostgreSQL
where extension files cannot be placed.

Upgrades of a plain install apply the bundled upgrade scripts
``agent_state/sql/agent_state--<from>--<to>.sql`` in order (built by make from
``sql/updates/``), each step in the one transaction of the install.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import Connection, sql

from .errors import Error, PermissionDenied, from_psycopg

if TYPE_CHECKING:
    from importlib.abc import Traversable

__all__ = [
    "InstallReport",
    "bundle_text",
    "bundled_version",
    "install",
    "install_report",
    "operator_only_functions",
    "upgrade_path",
]

_BUNDLE = "agent_state.sql"
_UPGRADE = re.compile(r"^agent_state--(?P<src>[^-]+(?:-[^-]+)*?)--(?P<dst>[^-].*)\.sql$")
_LOCK_KEY = 0x61676E74  # pg_advisory_xact_lock key serialising concurrent installs


def _sql_dir() -> Traversable:
    return resources.files("agent_state").joinpath("sql")


def bundle_text() -> str:
    """The bundled install script; raises :class:`Error` if it was not built."""
    bundle = _sql_dir().joinpath(_BUNDLE)
    if not bundle.is_file():
        raise Error(
            "the bundled SQL agent_state/sql/agent_state.sql is missing: "
            "run `make` in the source tree to build it (installed packages ship it)"
        )
    return bundle.read_text(encoding="utf-8")


def bundled_version(text: str | None = None) -> str:
    """The version of the bundled script.

    Read from the script itself: its header line ``-- agent_state <version>: ...``
    (or an ``agent_state--<version>.sql`` name there), else the literal returned by
    ``agent_state.version()``.
    """
    if text is None:
        text = bundle_text()
    head = text[:4000]
    m = re.search(r"^--\s*agent_state\s+v?(\d+(?:\.\d+)+)\b", head, re.MULTILINE)
    if m is None:
        m = re.search(r"agent_state--(\d+(?:\.\d+)+)\.sql", head)
    if m:
        return m.group(1)
    m = re.search(
        r"FUNCTION\s+agent_state\.version\s*\(\s*\).*?'(\d+(?:\.\d+)+)'",
        text,
        re.IGNORECASE | re.DOTALL,
    )
    if m:
        return m.group(1)
    raise Error("cannot tell the version of the bundled SQL (no agent_state.version() literal)")


def _plain(text: str) -> str:
    # Extension scripts may start with a psql guard (`\echo ... \quit`); as plain SQL
    # it must not run, and psql meta-commands are not SQL.
    # Blank them out rather than dropping them, so error line numbers stay right.
    return "\n".join("" if line.startswith("\\") else line for line in text.splitlines())


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version))


def upgrade_path(installed: str, target: str) -> list[str]:
    """The bundled upgrade scripts leading from ``installed`` to ``target``, in order.

    Raises :class:`Error` when there is no path.
    """
    steps: dict[str, list[tuple[str, str]]] = {}
    directory = _sql_dir()
    if directory.is_dir():
        for item in directory.iterdir():
            m = _UPGRADE.match(item.name)
            if m:
                steps.setdefault(m.group("src"), []).append((m.group("dst"), item.name))
    # Breadth-first search for the shortest chain of scripts.
    frontier: list[tuple[str, list[str]]] = [(installed, [])]
    seen = {installed}
    while frontier:
        version, path = frontier.pop(0)
        if version == target:
            return path
        for dst, name in sorted(steps.get(version, [])):
            if dst not in seen:
                seen.add(dst)
                frontier.append((dst, [*path, name]))
    raise Error(
        f"agent_state {installed} is installed and this package bundles {target}, "
        "but it ships no upgrade scripts between them"
    )


@dataclass(frozen=True)
class InstallReport:
    """What :func:`install_report` found and did."""

    version: str
    """The version installed now."""
    previous: str | None
    """The version installed before (``None``: there was none)."""
    extension: bool
    """Installed with ``CREATE EXTENSION``: nothing was done."""
    role: str
    """The installing role, as an SQL identifier (quoted where needed)."""
    operator: bool
    """Whether that role acts as ``agent_state_operator`` (a member, or a superuser)."""
    can_grant: bool = False
    """Whether that role may grant membership in ``agent_state_operator`` itself."""

    @property
    def action(self) -> str:
        """``installed``, ``upgraded``, ``current`` or ``extension`` (nothing done)."""
        if self.extension:
            return "extension"
        if self.previous is None:
            return "installed"
        return "current" if self.previous == self.version else "upgraded"


def install(conn: Connection[Any] | str) -> str:
    """Install or upgrade ``agent_state`` as plain SQL; return the installed version.

    - installed as an extension (``CREATE EXTENSION``): nothing is done; upgrade it
      with ``ALTER EXTENSION agent_state UPDATE``;
    - installed as plain SQL at the bundled version: nothing is done;
    - installed as plain SQL at an older version: the bundled upgrade scripts are applied;
    - not installed: the bundle is executed.

    Everything happens in one transaction (a savepoint if ``conn`` is already in one),
    serialised against concurrent installs with an advisory lock. Needs a role that may
    create schemas in the database, and CREATEROLE if the cluster does not have the
    ``agent_state_operator``/``agent_state_runtime`` roles yet: a superuser, or on managed
    PostgreSQL the database owner. The installing role owns the objects but is not made
    an operator: ``GRANT agent_state_operator TO <role>`` for the roles that administer
    agents. A DSN string (empty: from the environment, as :func:`~agent_state.connect`)
    that cannot be connected to raises :class:`~agent_state.ConnectionFailed`.
    """
    return install_report(conn).version


def install_report(conn: Connection[Any] | str) -> InstallReport:
    """:func:`install`, saying what it did: the version before and after, and whether the
    installing role is an operator (what ``agent-state install`` prints)."""
    if isinstance(conn, str):
        from .store import _connect  # store imports the generated API; only needed here

        with _connect(conn, "the conn argument", autocommit=True) as owned:
            return install_report(owned)
    try:
        with conn.transaction():
            conn.execute("SELECT pg_catalog.pg_advisory_xact_lock(%s::bigint)", [_LOCK_KEY])
            row = conn.execute(
                "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'agent_state'"
            ).fetchone()
            if row is not None:
                return _report(conn, str(row[0]), str(row[0]), extension=True)
            text = bundle_text()
            target = bundled_version(text)
            _refuse_untrusted_schema(conn)
            installed = _plain_version(conn)
            # The scripts SET LOCAL search_path; put the caller's back afterwards in case
            # this is a savepoint inside the caller's transaction.
            row = conn.execute("SELECT pg_catalog.current_setting('search_path')").fetchone()
            search_path = "" if row is None else str(row[0])
            if installed is None:
                _run_script(conn, text, _BUNDLE)
            elif installed == target:
                return _report(conn, installed, installed)
            elif _key(installed) > _key(target):
                raise Error(
                    f"agent_state {installed} is installed, newer than the bundled {target}: "
                    "upgrade the Python package"
                )
            else:
                directory = _sql_dir()
                for name in upgrade_path(installed, target):
                    script = directory.joinpath(name).read_text(encoding="utf-8")
                    _run_script(conn, script, name)
            conn.execute(
                "SELECT pg_catalog.set_config('search_path', %s::text, true)", [search_path]
            )
            done = _plain_version(conn)
            if done != target:
                raise Error(f"installing agent_state {target} left version {done} in place")
            return _report(conn, installed, done)
    except psycopg.Error as e:
        raise from_psycopg(e) from e


def _report(
    conn: Connection[Any], previous: str | None, version: str, *, extension: bool = False
) -> InstallReport:
    # The group roles exist here: the install made them, or found them. Who may grant
    # membership: ADMIN OPTION on the role, or before PostgreSQL 16 CREATEROLE.
    row = conn.execute(
        """
        SELECT pg_catalog.quote_ident(current_user),
               pg_catalog.pg_has_role(current_user, 'agent_state_operator', 'USAGE'),
               pg_catalog.pg_has_role(current_user, 'agent_state_operator',
                                      'MEMBER WITH ADMIN OPTION')
               OR (pg_catalog.current_setting('server_version_num')::int < 160000
                   AND (SELECT r.rolcreaterole FROM pg_catalog.pg_roles AS r
                        WHERE r.rolname = current_user))
        """
    ).fetchone()
    assert row is not None
    return InstallReport(version, previous, extension, str(row[0]), bool(row[1]), bool(row[2]))


_OPERATOR_ONLY = re.compile(
    r"operator_only\s+constant\s+text\s*\[\]\s*:=\s*ARRAY\s*\[(?P<names>[^\]]*)\]",
    re.IGNORECASE,
)


@cache
def operator_only_functions() -> frozenset[str] | None:
    """The functions EXECUTE is granted on to ``agent_state_operator`` only (not to
    ``agent_state_runtime``), from their one list in the bundled SQL's privileges
    pass; ``None`` when the bundle is not built or holds no such list."""
    try:
        text = bundle_text()
    except Error:
        return None
    m = _OPERATOR_ONLY.search(text)
    if m is None:
        return None
    return frozenset(re.findall(r"'([^']+)'", m["names"]))


def _run_script(conn: Connection[Any], text: str, name: str) -> None:
    """Execute a whole script; on error say where in the script it failed."""
    script = _plain(text)
    try:
        conn.execute(sql.SQL(script))
    except psycopg.Error as e:
        err = from_psycopg(e)
        position = e.diag.statement_position if e.sqlstate else None
        where = name
        if position and position.isdigit():
            offset = int(position) - 1
            line_no = script.count("\n", 0, offset) + 1
            line = script.splitlines()[line_no - 1].strip() if script else ""
            where = f"{name} line {line_no}: {line[:100]}"
        err.args = (f"{err.message} (in {where})",)
        raise err from e


def _refuse_untrusted_schema(conn: Connection[Any]) -> None:
    """Read the catalog before executing anything in schema ``agent_state``: a schema
    another role owns, or a ``version()`` another role made, would run that role's code
    as the installing role (42501, as the install script's own check)."""
    row = conn.execute(
        """
        SELECT n.nspowner::regrole::text,
               n.nspowner OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles AS r
                                                 WHERE r.rolname = current_user),
               (SELECT p.proowner::regrole::text FROM pg_catalog.pg_proc AS p
                WHERE p.pronamespace = n.oid AND p.proname = 'version' AND p.pronargs = 0
                  AND p.proowner OPERATOR(pg_catalog.<>) n.nspowner)
        FROM pg_catalog.pg_namespace AS n WHERE n.nspname = 'agent_state'
        """
    ).fetchone()
    if row is None:
        return
    owner, owned, foreign_version = row
    if not owned:
        raise PermissionDenied(
            f"schema agent_state exists and is owned by {owner}, not by the installing role: "
            "its owner could replace what the installed functions call (install as the "
            "schema's owner, or drop or rename the schema first)",
            sqlstate="42501",
        )
    if foreign_version is not None:
        raise PermissionDenied(
            f"schema agent_state holds a version() owned by {foreign_version}, not by the "
            "schema's owner: it was not made by an install (drop it first)",
            sqlstate="42501",
        )


def _plain_version(conn: Connection[Any]) -> str | None:
    row = conn.execute(
        "SELECT pg_catalog.to_regprocedure('agent_state.version()') IS NOT NULL"
    ).fetchone()
    if row is None or not row[0]:
        return None
    row = conn.execute("SELECT agent_state.version()").fetchone()
    return None if row is None else str(row[0])
