"""Shared benchmark plumbing: the server, installing the bundle, roles, pgbench,
client processes and percentiles.

The database comes from ``AGENT_STATE_BENCH_DSN`` (a superuser connection string;
the benchmarks create and drop their own databases in that server) or, when it
is not set, from a throwaway cluster started from the local server binaries with
fsync on (``agent_state.embedded.TemporaryCluster``).

Every comparison is a ratio against a baseline measured in the same run on the
same server: machines are shared and noisy, absolute numbers are for orientation.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import psycopg  # noqa: E402
from psycopg import conninfo, sql  # noqa: E402

from agent_state.embedded import TemporaryCluster, find_bindir  # noqa: E402


#: The install script `make` builds (the version in agent_state.control);
#: AGENT_STATE_BENCH_BUNDLE may name another one.
def _bundle() -> Path:
    import re

    control = (ROOT / "agent_state.control").read_text()
    m = re.search(r"^\s*default_version\s*=\s*'([^']+)'", control, re.M)
    version = m.group(1) if m else "0.0.0"
    return Path(
        os.environ.get("AGENT_STATE_BENCH_BUNDLE") or ROOT / "build" / f"agent_state--{version}.sql"
    )


BUNDLE = _bundle()

#: Login roles the benchmarks create (cluster-wide, so reused across databases).
RUNTIME_ROLE = "bench_runtime"
OPERATOR_ROLE = "bench_operator"
ROLE_PASSWORD = "bench"

#: Server settings for a throwaway cluster. fsync and synchronous_commit stay on
#: (defaults); memory and WAL sizes keep checkpoints and evictions out of the
#: timed windows, so that both sides of a ratio see the same conditions.
CLUSTER_SETTINGS = {
    "shared_buffers": "2GB",
    "effective_cache_size": "8GB",
    "maintenance_work_mem": "1GB",
    "work_mem": "32MB",
    "max_wal_size": "16GB",
    "min_wal_size": "1GB",
    "checkpoint_timeout": "1h",
    "max_connections": "60",
    "log_min_messages": "warning",
    "log_min_duration_statement": "-1",
    # JIT compilation decisions follow cost estimates, which differ between the
    # product and the bare queries; off, as usual for OLTP, so plans are compared.
    "jit": "off",
}


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


# ----------------------------------------------------------------- server


class Server:
    """A PostgreSQL server the benchmarks may create databases and roles in."""

    def __init__(self) -> None:
        self.cluster: TemporaryCluster | None = None
        self.base: dict[str, Any] = {}

    def __enter__(self) -> Server:
        dsn = os.environ.get("AGENT_STATE_BENCH_DSN")
        if dsn:
            self.base = conninfo.conninfo_to_dict(dsn)
            self.origin = "AGENT_STATE_BENCH_DSN"
        else:
            log("starting a throwaway cluster (fsync on) ...")
            self.cluster = TemporaryCluster(fsync=True, settings=CLUSTER_SETTINGS).start()
            self.base = conninfo.conninfo_to_dict(self.cluster.dsn())
            self.origin = "throwaway cluster"
        return self

    def __exit__(self, *exc: object) -> None:
        if self.cluster is not None:
            self.cluster.stop()

    def dsn(self, dbname: str | None = None, user: str | None = None) -> str:
        params = dict(self.base)
        if dbname is not None:
            params["dbname"] = dbname
        if user is not None:
            params["user"] = user
            params["password"] = ROLE_PASSWORD
        return conninfo.make_conninfo(**params)

    def connect(
        self, dbname: str | None = None, user: str | None = None, autocommit: bool = True
    ) -> psycopg.Connection[Any]:
        return psycopg.connect(self.dsn(dbname, user), autocommit=autocommit)

    def fresh_database(self, name: str) -> str:
        """Drop and create database ``name``; returns its DSN (superuser)."""
        with self.connect() as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.dsn(name)

    def product_database(self, name: str) -> str:
        """A fresh database ``name`` with the bundle installed and the bench login
        roles in place; returns its DSN (superuser)."""
        dsn = self.fresh_database(name)
        install_bundle(dsn)
        ensure_roles(dsn)
        return dsn

    def drop_database(self, name: str) -> None:
        with self.connect() as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    def describe(self) -> dict[str, str]:
        """Machine and server facts for the report."""
        facts: dict[str, str] = {}
        with contextlib.suppress(OSError):
            cpu = Path("/proc/cpuinfo").read_text()
            m = re.search(r"^model name\s*:\s*(.+)$", cpu, re.MULTILINE)
            if m:
                facts["cpu"] = m.group(1).strip()
        facts["cores"] = str(os.cpu_count())
        with contextlib.suppress(OSError):
            mem = Path("/proc/meminfo").read_text()
            m = re.search(r"^MemTotal:\s*(\d+) kB", mem, re.MULTILINE)
            if m:
                facts["memory"] = f"{int(m.group(1)) / 1024 / 1024:.0f} GiB"
        facts["os"] = platform.platform()
        facts["python"] = platform.python_version()
        facts["psycopg"] = psycopg.__version__
        facts["database"] = self.origin
        if async_commit():
            facts["database"] += "; DIAGNOSTIC: benchmark sessions with synchronous_commit=off"
        with self.connect() as conn:
            facts["server"] = str(conn.execute("SELECT version()").fetchone()[0])  # type: ignore[index]
            for name in (
                "fsync",
                "synchronous_commit",
                "full_page_writes",
                "shared_buffers",
                "work_mem",
                "max_wal_size",
                "wal_level",
                "jit",
            ):
                row = conn.execute("SELECT current_setting(%s)", [name]).fetchone()
                facts[name] = str(row[0]) if row else "?"
        return facts


def install_bundle(dsn: str) -> None:
    """Load the built bundle as plain SQL (one transaction) into the database."""
    if not BUNDLE.is_file():
        raise SystemExit(f"{BUNDLE} is missing: run `make` first")
    text = "\n".join(line for line in BUNDLE.read_text().splitlines() if not line.startswith("\\"))
    with psycopg.connect(dsn) as conn:
        conn.execute(sql.SQL(text))
        conn.commit()


def ensure_roles(dsn: str) -> None:
    """Login roles: one runtime (hosting is granted per agent), one operator."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for role, group in (
            (RUNTIME_ROLE, "agent_state_runtime"),
            (OPERATOR_ROLE, "agent_state_operator"),
        ):
            conn.execute(
                sql.SQL(
                    "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {r}) THEN "
                    "CREATE ROLE {i} LOGIN PASSWORD {p}; END IF; END$$"
                ).format(r=sql.Literal(role), i=sql.Identifier(role), p=sql.Literal(ROLE_PASSWORD))
            )
            conn.execute(
                sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(role))
            )


def adopt_loaded(conn: Any) -> int:
    """Stamp the records a bulk load wrote in restore mode (their hash chains, SPEC
    section 14): the read verbs refuse a record without a genuine stamp. One
    transaction, with the triggers off as agent_state._chain_adopt asks."""
    with conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        row = conn.execute("SELECT agent_state._chain_adopt()").fetchone()
    return int(row[0]) if row else 0


def has_functions(dsn: str, *names: str) -> dict[str, bool]:
    """Which of these agent_state functions exist in the database."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = 'agent_state'::regnamespace "
            "AND proname = ANY(%s)",
            [list(names)],
        ).fetchall()
    found = {r[0] for r in rows}
    return {n: n in found for n in names}


# ----------------------------------------------------------------- pgbench


def pgbench_path() -> str:
    found = shutil.which("pgbench")
    if found:
        return found
    path = find_bindir() / "pgbench"
    if path.is_file():
        return str(path)
    raise SystemExit("pgbench not found (install the PostgreSQL client/server package)")


@dataclass
class Throughput:
    label: str
    clients: int
    tps: float
    transactions: int
    failed: int
    latency_ms: float
    output: str = field(repr=False, default="")
    # WAL bytes written during the run per transaction: pg_current_wal_insert_lsn()
    # difference over the run (the server's other writers included, which the
    # CHECKPOINT before each run keeps small), divided by the transactions.
    # Unlike the timings it hardly swings between runs.
    wal_per_tx: float = 0.0
    # Shared buffers touched per transaction (hits + reads): the database's
    # pg_stat_database counters over the run (the pgbench backends flush their
    # counts as they exit), divided by the transactions. Deterministic like WAL.
    buffers_per_tx: float = 0.0


def pgbench(
    dsn: str,
    script: str,
    *,
    clients: int,
    seconds: float,
    label: str,
    defines: dict[str, object] | None = None,
) -> Throughput:
    """Run one custom script with pgbench (prepared protocol, no vacuum).

    With ``AGENT_STATE_BENCH_ASYNC_COMMIT=1`` the sessions run with
    synchronous_commit off: a diagnostic that takes the WAL flush (the noisiest
    part on a shared disk) out of every transaction, leaving the CPU cost; the
    targets are judged with it on."""
    threads = min(clients, os.cpu_count() or 1)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
        path = f.name
    args = [
        pgbench_path(),
        "-n",
        "-M",
        "prepared",
        "-c",
        str(clients),
        "-j",
        str(threads),
        "-T",
        str(max(1, round(seconds))),
        "-f",
        path,
    ]
    for key, value in (defines or {}).items():
        args += ["-D", f"{key}={value}"]
    args.append(dsn)
    env = dict(os.environ)
    if async_commit():
        env["PGOPTIONS"] = (env.get("PGOPTIONS", "") + " -c synchronous_commit=off").strip()
    try:
        start_lsn, start_buffers = _wal_lsn(dsn), _buffers(dsn)
        proc = subprocess.run(args, capture_output=True, text=True, timeout=seconds + 300, env=env)
        wal = _wal_lsn(dsn) - start_lsn
        buffers = _buffers(dsn) - start_buffers
    finally:
        os.unlink(path)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0 or ("aborted" in out and "number of failed" not in out):
        raise RuntimeError(f"pgbench {label} failed (exit {proc.returncode}):\n{out[-4000:]}")
    tps = _grab(r"^tps = ([\d.]+) \(without initial connection time\)", out)
    tx = int(_grab(r"number of transactions actually processed: (\d+)", out))
    failed_m = re.search(r"number of failed transactions: (\d+)", out)
    failed = int(failed_m.group(1)) if failed_m else 0
    lat = _grab(r"latency average = ([\d.]+) ms", out)
    if failed or re.search(r"client \d+ aborted", out):
        raise RuntimeError(f"pgbench {label}: transactions failed:\n{out[-4000:]}")
    return Throughput(
        label,
        clients,
        tps,
        tx,
        failed,
        lat,
        out,
        wal / tx if tx else 0.0,
        buffers / tx if tx else 0.0,
    )


def _wal_lsn(dsn: str) -> int:
    """The server's current WAL insert position, in bytes."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
    return int(row[0]) if row else 0


def _buffers(dsn: str) -> int:
    """Shared buffer hits and reads of the DSN's database so far."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


def async_commit() -> bool:
    return os.environ.get("AGENT_STATE_BENCH_ASYNC_COMMIT", "") not in ("", "0")


def _grab(pattern: str, text: str) -> float:
    m = re.search(pattern, text, re.MULTILINE)
    if not m:
        raise RuntimeError(f"could not find {pattern!r} in pgbench output:\n{text[-4000:]}")
    return float(m.group(1))


# ----------------------------------------------------------------- client processes


def _worker(
    fn: Callable[[int, float], tuple[int, list[float]]],
    index: int,
    start_at: float,
    seconds: float,
    queue: Any,
) -> None:
    try:
        while time.time() < start_at:
            time.sleep(0.001)
        queue.put(("ok", fn(index, time.perf_counter() + seconds)))
    except BaseException as e:  # report, do not hang the parent
        queue.put(("error", repr(e)))


def run_clients(
    fn: Callable[[int, float], tuple[int, list[float]]], clients: int, seconds: float
) -> tuple[float, list[float]]:
    """Run ``fn(index, deadline)`` in ``clients`` processes for ``seconds``.

    ``fn`` connects, works until ``time.perf_counter() >= deadline`` and returns
    (operations done, per-operation latencies in seconds). Setup before the loop
    should be done before the deadline is computed; we give each process a common
    start time two seconds ahead. Returns (operations per second, latencies).
    """
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    start_at = time.time() + 2.0
    procs = [
        ctx.Process(target=_worker, args=(fn, i, start_at, seconds, queue)) for i in range(clients)
    ]
    for p in procs:
        p.start()
    total = 0
    lats: list[float] = []
    errors = []
    for _ in procs:
        status, payload = queue.get(timeout=seconds + 600)
        if status == "ok":
            total += payload[0]
            lats.extend(payload[1])
        else:
            errors.append(payload)
    for p in procs:
        p.join()
    if errors:
        raise RuntimeError(f"client process failed: {errors[0]}")
    return total / seconds, lats


# ----------------------------------------------------------------- statistics


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile, q in [0, 100]."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 100)) - 1))
    return ordered[k]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f}"


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


@contextlib.contextmanager
def timed(what: str) -> Iterator[None]:
    t = time.perf_counter()
    log(f"{what} ...")
    yield
    log(f"{what}: {time.perf_counter() - t:.1f} s")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


@contextlib.contextmanager
def sample_waits(dsn: str, every: float = 0.005) -> Iterator[Counter[str]]:
    """Count what the active client backends of the database wait on, sampled
    from pg_stat_activity every ``every`` seconds while the block runs
    ("CPU" when a backend is running, not waiting). The shares show what
    serializes concurrent clients: lock waits (Lock:transactionid, Lock:tuple,
    LWLock:MultiXact*) against WAL flushes (IO:WALSync, LWLock:WALWrite)."""
    counts: Counter[str] = Counter()
    stop = threading.Event()

    def poll() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            while not stop.is_set():
                for kind, event in conn.execute(
                    "SELECT wait_event_type, wait_event FROM pg_stat_activity "
                    "WHERE datname = current_database() AND backend_type = 'client backend' "
                    "AND state = 'active' AND pid <> pg_backend_pid()"
                ).fetchall():
                    counts["CPU" if kind is None else f"{kind}:{event}"] += 1
                time.sleep(every)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield counts
    finally:
        stop.set()
        thread.join()


def top_waits(counts: Counter[str], n: int = 6) -> str:
    """The ``n`` most frequent wait samples as shares, e.g. "CPU 61%, IO:WALSync 22%"."""
    total = sum(counts.values()) or 1
    return ", ".join(f"{k} {v / total:.0%}" for k, v in counts.most_common(n))


def measured_run(
    conn: psycopg.Connection[Any],
    dsn: str,
    script: str,
    *,
    clients: int,
    seconds: float,
    label: str,
    defines: dict[str, object] | None = None,
) -> tuple[Throughput, str]:
    """One timed pgbench run after a CHECKPOINT (so no checkpoint falls inside it
    and every run starts with the same full-page-image state), with the wait
    events of its sessions sampled; returns the throughput and the top waits."""
    conn.execute("CHECKPOINT")
    with sample_waits(dsn) as waits:
        res = pgbench(dsn, script, clients=clients, seconds=seconds, label=label, defines=defines)
    return res, top_waits(waits)


def record_means(
    row: dict[str, Any],
    tps: dict[str, list[float]],
    wal: dict[str, list[float]],
    buffers: dict[str, list[float]] | None = None,
) -> None:
    """Put each system's mean throughput, its runs, its mean WAL bytes and shared
    buffers per transaction into a result row (keys ``label``, ``label runs``,
    ``label wal``, ``label buffers``)."""
    for label, values in tps.items():
        row[label] = sum(values) / len(values)
        row[label + " runs"] = values
        row[label + " wal"] = sum(wal[label]) / len(wal[label])
        if buffers and buffers.get(label):
            row[label + " buffers"] = sum(buffers[label]) / len(buffers[label])
