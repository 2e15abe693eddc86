"""A throwaway PostgreSQL cluster started from the local server binaries.

Used by the command line (``agent-state demo`` without a DSN) and by the test
driver. Standard library only, so it can be loaded without the rest of the
package::

    with TemporaryCluster() as cluster:
        conn = psycopg.connect(cluster.dsn())

The cluster listens on 127.0.0.1 on a free TCP port and on a private unix
socket directory, trusts every local connection, and is deleted on exit. When
the current process runs as root, ``initdb`` and the server run as the
``postgres`` operating-system user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["ClusterError", "TemporaryCluster", "find_bindir"]

#: Environment variable naming a directory with initdb/pg_ctl/postgres.
BINDIR_ENV = "AGENT_STATE_PG_BINDIR"

_SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")


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
    ) -> None:
        self.fsync = fsync
        self.settings: dict[str, str] = dict(settings or {})
        self.bindir = Path(bindir) if bindir is not None else find_bindir()
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
        try:
            os.chmod(self.basedir, 0o700)
            self._chown(self.basedir)
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
