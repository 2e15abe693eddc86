"""Helpers for the lifecycle tests: databases, server tools, catalog and row snapshots.

The lifecycle tests drive PostgreSQL's own programs (pg_dump, pg_restore, psql,
pg_basebackup, pg_amcheck) from the server's bin directory: ``AGENT_STATE_TEST_BINDIR``
when set (the suite driver sets it), else the directory of the local server of the
same major version.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from conftest import ROOT, with_dbname

LIFECYCLE = ROOT / "tests" / "lifecycle"
RELEASES = ROOT / "sql" / "releases"
UPDATES = ROOT / "sql" / "updates"
BUNDLE = ROOT / "python" / "agent_state" / "sql" / "agent_state.sql"
HOST_ROLE = "agent_state_lifecycle_host"


def control_version() -> str:
    text = (ROOT / "agent_state.control").read_text()
    m = re.search(r"^\s*default_version\s*=\s*'([^']+)'", text, re.M)
    assert m is not None
    return m.group(1)


def released_versions() -> list[str]:
    """Versions whose install script is kept in sql/releases/ (older than this one)."""
    found = []
    for path in RELEASES.glob("agent_state--*.sql"):
        m = re.fullmatch(r"agent_state--(\d+(?:\.\d+)*)\.sql", path.name)
        if m and m.group(1) != control_version():
            found.append(m.group(1))
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def server_bindir(dsn: str) -> Path:
    """The bin directory of the server behind ``dsn``; skips when it is not local."""
    env = os.environ.get("AGENT_STATE_TEST_BINDIR")
    if env and (Path(env) / "pg_dump").is_file():
        return Path(env)
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SHOW server_version_num").fetchone()
    assert row is not None
    major = int(row[0]) // 10000
    candidate = Path(f"/usr/lib/postgresql/{major}/bin")
    if (candidate / "pg_dump").is_file():
        return candidate
    found = shutil.which("pg_config")
    if found:
        out = subprocess.run([found, "--bindir"], capture_output=True, text=True, check=False)
        path = Path(out.stdout.strip())
        if (path / "pg_dump").is_file():
            return path
    pytest.skip(f"no pg_dump for PostgreSQL {major} on this machine")


def tool_env(dsn: str) -> dict[str, str]:
    """PG* variables for the server programs, from a DSN."""
    params = conninfo_to_dict(dsn)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    for key, var in (
        ("host", "PGHOST"),
        ("port", "PGPORT"),
        ("user", "PGUSER"),
        ("password", "PGPASSWORD"),
        ("dbname", "PGDATABASE"),
    ):
        if params.get(key):
            env[var] = str(params[key])
    return env


def run_tool(
    bindir: Path, program: str, args: Sequence[str], dsn: str, *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(bindir / program), *args],
        env=tool_env(dsn),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{program} {' '.join(args)} exited with {proc.returncode}:\n{proc.stdout}{proc.stderr}"
        )
    return proc


@contextmanager
def scratch_db(admin_dsn: str, hint: str, owner: str | None = None) -> Iterator[str]:
    """A new empty database (template0); dropped afterwards."""
    name = f"as_{hint}_{secrets.token_hex(3)}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        query = sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name))
        if owner:
            query = query + sql.SQL(" OWNER {}").format(sql.Identifier(owner))
        admin.execute(query)
    try:
        yield with_dbname(admin_dsn, name)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def extension_available(dsn: str, version: str) -> bool:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT 1 FROM pg_catalog.pg_available_extension_versions"
            " WHERE name = 'agent_state' AND version = %s",
            [version],
        ).fetchone()
    return row is not None


def install(dsn: str, mode: str, version: str | None = None) -> None:
    """Install agent_state as an extension or as the plain SQL bundle."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        if mode == "extension":
            if version is None:
                conn.execute("CREATE EXTENSION agent_state")
            else:
                conn.execute(
                    sql.SQL("CREATE EXTENSION agent_state VERSION {}").format(sql.Literal(version))
                )
            return
        path = BUNDLE if version is None else RELEASES / f"agent_state--{version}.sql"
        with conn.transaction():
            conn.execute(path.read_text())


def ensure_host_role(admin_dsn: str) -> None:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
            f"'{HOST_ROLE}') THEN CREATE ROLE {HOST_ROLE} LOGIN; END IF; END $$"
        )
        conn.execute(f"GRANT agent_state_runtime TO {HOST_ROLE}")


def write_state(dsn: str, *, api: str | None = None, since: str | None = None) -> None:
    """tests/lifecycle/realistic_state.sql (the 0.1.0 API), then what later releases
    add (state_<version>.sql), up to the release ``api`` names (all of them when it
    is None): every table of that release gets rows. With ``since``, only what the
    releases after it add (for a database written at ``since`` and upgraded)."""

    def key(version: str) -> tuple[int, ...]:
        return tuple(int(p) for p in version.split("."))

    with psycopg.connect(dsn, autocommit=True) as conn:
        if since is None:
            conn.execute((LIFECYCLE / "realistic_state.sql").read_text())
        for path in sorted(LIFECYCLE.glob("state_*.sql"), key=lambda p: key(p.stem[6:])):
            version = key(path.stem[6:])
            if (api is None or version <= key(api)) and (since is None or version > key(since)):
                conn.execute(path.read_text())


def catalog(dsn: str) -> list[tuple[str, str, str]]:
    """tests/lifecycle/catalog_snapshot.sql: the schema, object by object."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute((LIFECYCLE / "catalog_snapshot.sql").read_text()).fetchall()
    return [(str(k), str(o), str(d)) for k, o, d in rows]


def catalog_diff(a: list[tuple[str, str, str]], b: list[tuple[str, str, str]]) -> list[str]:
    """Objects that differ, for a readable assertion message."""
    left = {(k, o): d for k, o, d in a}
    right = {(k, o): d for k, o, d in b}
    out = []
    for key in sorted(left.keys() | right.keys()):
        if left.get(key) != right.get(key):
            out.append(f"{key[0]} {key[1]}:\n  - {left.get(key)}\n  + {right.get(key)}")
    return out


def table_rows(dsn: str) -> dict[str, list[Any]]:
    """Every row of every agent_state table as JSON, in primary-key order, plus the
    next value of every sequence. Read as a superuser (who bypasses RLS)."""
    out: dict[str, list[Any]] = {}
    with psycopg.connect(dsn) as conn:
        tables = conn.execute(
            """
            SELECT c.oid::regclass::text,
                   (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord)
                    FROM pg_index AS i
                    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, ord)
                    JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = k.attnum
                    WHERE i.indrelid = c.oid AND i.indisprimary)
            FROM pg_class AS c
            WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind = 'r'
            ORDER BY 1
            """
        ).fetchall()
        for name, pk in tables:
            rows = conn.execute(f"SELECT to_jsonb(t) FROM {name} AS t ORDER BY {pk}").fetchall()
            out[name] = [r[0] for r in rows]
        for (seq,) in conn.execute(
            "SELECT c.oid::regclass::text FROM pg_class AS c"
            " WHERE c.relnamespace = 'agent_state'::regnamespace AND c.relkind = 'S' ORDER BY 1"
        ).fetchall():
            row = conn.execute(f"SELECT last_value, is_called FROM {seq}").fetchone()
            out[seq] = [list(row) if row else None]
    return out


def verify(dsn: str) -> list[tuple[str, str, str]]:
    with psycopg.connect(dsn) as conn:
        return [tuple(r) for r in conn.execute("SELECT * FROM agent_state.verify()").fetchall()]


def still_works(dsn: str) -> None:
    """After a restore or an upgrade: the hosting role reads and writes its agent, amend
    takes the stored revision number, and history is still append-only."""
    agent_q = "SELECT runtime_agent_id FROM agent_state.agents WHERE handle = 'lifecycle'"
    with psycopg.connect(dsn, autocommit=True) as admin:
        row = admin.execute(agent_q).fetchone()
        assert row is not None
        agent = row[0]
        entry, rev = admin.execute(
            "SELECT entry_id, current_revision FROM agent_state.memory_entries"
            " WHERE runtime_agent_id = %s AND live AND body LIKE 'Alice is severely%%'",
            [agent],
        ).fetchone() or (None, None)
        assert entry is not None and rev == 2
        conv = admin.execute(
            "SELECT conversation_id FROM agent_state.conversations"
            " WHERE runtime_agent_id = %s AND external_ref = 'C1'",
            [agent],
        ).fetchone()
        assert conv is not None
    with psycopg.connect(with_role(dsn, HOST_ROLE), autocommit=True) as conn:
        hits = conn.execute(
            "SELECT body FROM agent_state.recall(agent => %s, query => 'peanuts',"
            " conversation => %s)",
            [agent, conv[0]],
        ).fetchall()
        assert [h[0] for h in hits] == ["Alice is severely allergic to peanuts"]
        with pytest.raises(psycopg.errors.SerializationFailure):
            conn.execute(
                "SELECT agent_state.amend(agent => %s, entry => %s, body => 'stale',"
                " expected_revision => 1)",
                [agent, entry],
            )
        new = conn.execute(
            "SELECT agent_state.amend(agent => %s, entry => %s, body => 'Alice avoids peanuts',"
            " expected_revision => 2)",
            [agent, entry],
        ).fetchone()
        assert new is not None and new[0] == 3
        persona = conn.execute(
            "SELECT revision FROM agent_state.active_persona(agent => %s)", [agent]
        ).fetchone()
        assert persona is not None and persona[0] == 1
    with psycopg.connect(dsn, autocommit=True) as admin:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            admin.execute(
                "UPDATE agent_state.memory_revisions SET body = 'rewritten'"
                " WHERE runtime_agent_id = %s",
                [agent],
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            admin.execute(
                "DELETE FROM agent_state.checkpoints WHERE runtime_agent_id = %s", [agent]
            )
    assert verify(dsn) == []


def with_role(dsn: str, role: str) -> str:
    """The same server and database as another (password-less) role."""
    params = {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    params["user"] = role
    params.pop("password", None)
    return make_conninfo("", **params)


def conninfo_dbname(dsn: str) -> str:
    """The database name of a DSN (pg_restore -d takes a name or a conninfo)."""
    return dsn


def temporary_cluster(bindir: Path, **kwargs: Any) -> Any:
    """A throwaway cluster from the same server binaries (agent_state.embedded)."""
    from agent_state.embedded import TemporaryCluster

    return TemporaryCluster(bindir=bindir, **kwargs)


def start_standby(primary: Any) -> Any:
    """A hot standby of ``primary``: pg_basebackup -R, then started. Stop it like any
    TemporaryCluster."""
    import tempfile

    from agent_state.embedded import TemporaryCluster

    standby = TemporaryCluster(bindir=primary.bindir, fsync=False)
    standby.basedir = Path(tempfile.mkdtemp(prefix="agent_state_standby_"))
    try:
        os.chmod(standby.basedir, 0o700)
        standby._chown(standby.basedir)
        standby.socket_dir.mkdir(mode=0o700)
        standby._chown(standby.socket_dir)
        standby._run(
            [
                str(primary.bindir / "pg_basebackup"),
                "-D", str(standby.datadir),
                "-R", "-X", "stream", "--no-sync", "--checkpoint=fast",
                "-d", primary.dsn(),
            ]
        )  # fmt: skip
        # -R wrote primary_conninfo to postgresql.auto.conf, which _write_conf replaces.
        standby.settings.update(primary_conninfo=primary.dsn(), hot_standby="on")
        standby.port = 0
        from agent_state.embedded import _free_port

        standby.port = _free_port()
        standby._write_conf()
        standby._run(
            [
                str(primary.bindir / "pg_ctl"),
                "-D", str(standby.datadir),
                "-l", str(standby.log_path),
                "-w", "-t", "60",
                "start",
            ]
        )  # fmt: skip
        standby._running = True
    except BaseException:
        standby._cleanup()
        raise
    return standby


def wait_for_replay(primary_dsn: str, standby_dsn: str, timeout: float = 60) -> None:
    import time

    with psycopg.connect(primary_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    assert row is not None
    target = row[0]
    deadline = time.monotonic() + timeout
    with psycopg.connect(standby_dsn, autocommit=True) as conn:
        while True:
            done = conn.execute(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target]
            ).fetchone()
            if done and done[0]:
                return
            if time.monotonic() > deadline:
                raise AssertionError("the standby did not replay the primary's WAL in time")
            time.sleep(0.05)


def function_files(diff: list[str]) -> set[str]:
    """The function files (functions/<domain>/<name>.sql) behind differing functions."""
    out: set[str] = set()
    for line in diff:
        m = re.match(r"function agent_state\.(\w+)\(", line)
        if m:
            out.update(
                str(path.relative_to(ROOT)) for path in ROOT.glob(f"functions/*/{m.group(1)}.sql")
            )
    return out
