#!/usr/bin/env python3
"""Build agent_state's SQL scripts from sql/ and functions/: the one place that knows how.

    scripts/build_sql.py bundle OUTPUT           install script of the version in development
    scripts/build_sql.py upgrade SOURCE OUTPUT   an upgrade step from sql/updates/
    scripts/build_sql.py copy SOURCE OUTPUT      a released install script from sql/releases/
    scripts/build_sql.py package DIRECTORY       agent_state.sql and every upgrade step
    scripts/build_sql.py sources                 the bundle's sources, in load order

The Makefile calls it for build/ (what PGXS installs) and setup.py for the Python
package (agent_state/sql/), so `make` and every pip route build the same scripts
with no other tool than Python's standard library.

Load order (the layout of pg_partman):

    sql/schema.sql              the schema and the group roles
    sql/schema_trust.sql        refuses a schema that others may add to
    functions/<domain>/*.sql    replaceable code, one function per file, in byte
                                order; bodies are not checked at creation
                                (check_function_bodies is off in the script), so
                                they may load before the tables they read and the
                                triggers can name them
    sql/<domain>.sql            stateful objects: each table with its indexes,
                                constraints, policies and triggers, in FK order
                                (DOMAINS)
    sql/triggers.sql, sql/security.sql, sql/privileges.sql, sql/guard.sql
                                idempotent whole-schema passes, last: every trigger,
                                then row-level security and the generated triggers,
                                then grants, then the event trigger that keeps the
                                schema trusted

Upgrade steps: the one into the version in development (default_version of the
control file) is written by hand with lines "-- include: PATTERN" (a path, or a
glob such as functions/*/*.sql, expanded in byte order), each replaced by the files
it names with CREATE FUNCTION made CREATE OR REPLACE FUNCTION, so the code comes
from its one source; a pattern that names no file is an error. A step into a
released version is frozen text, copied byte for byte, and so is a released install
script (RELEASING.md). @EXTVERSION@ becomes the version in the bundle and in the
expanded step.
"""

from __future__ import annotations

import glob
import re
import sys
from collections.abc import Iterable
from pathlib import Path

EXTENSION = "agent_state"
ROOT = Path(__file__).resolve().parent.parent

FIRST = ("sql/schema.sql", "sql/schema_trust.sql")
DOMAINS = (
    "agents",
    "actors",
    "conversations",
    "sessions",
    "persona",
    "memory",
    "embeddings",
    "tools",
    "execution",
    "graph",
    "history",
    "chains",
)
PASSES = ("sql/triggers.sql", "sql/security.sql", "sql/privileges.sql", "sql/guard.sql")
FUNCTIONS = "functions/*/*.sql"
UPGRADES = f"sql/updates/{EXTENSION}--*--*.sql"

HEADER = """\
-- {extension} {version}: install script.
-- Generated from sql/ and functions/ by scripts/build_sql.py (load order there); do not edit.
-- Runs under CREATE EXTENSION {extension} and as plain SQL.
--
-- Every object is created schema-qualified; built-ins resolve in pg_catalog
-- only, never in a schema someone else can write to (pgspot PS001/PS016/PS017).
-- SET LOCAL needs a transaction: CREATE EXTENSION and agent_state.install()
-- provide one; with psql use --single-transaction.
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;
"""

INCLUDE = re.compile(r"^-- include: (\S+)\s*$")
DEFAULT_VERSION = re.compile(r"^\s*default_version\s*=\s*'([^']+)'", re.MULTILINE)


class BuildError(Exception):
    """A source is missing or malformed; the message names it."""


def default_version(root: Path = ROOT) -> str:
    """The version in development: default_version of the control file."""
    control = root / f"{EXTENSION}.control"
    match = DEFAULT_VERSION.search(control.read_text(encoding="utf-8"))
    if match is None:
        raise BuildError(f"{control.name} has no default_version")
    return match.group(1)


def _glob(root: Path, pattern: str) -> list[str]:
    # Byte order, like make's $(sort); hidden files are left out, as by make's $(wildcard).
    return sorted(glob.glob(pattern, root_dir=root), key=lambda name: name.encode())


def sources(root: Path = ROOT) -> list[str]:
    """The bundle's sources in load order, as paths relative to root."""
    domains = [f"sql/{domain}.sql" for domain in DOMAINS]
    return [*FIRST, *_glob(root, FUNCTIONS), *domains, *PASSES]


def bundle(root: Path = ROOT, version: str | None = None) -> bytes:
    """The install script: the header, then every source after a "-- source:" line."""
    version = version or default_version(root)
    out = [HEADER.format(extension=EXTENSION, version=version).encode()]
    for name in sources(root):
        path = root / name
        if not path.is_file():
            raise BuildError(f"missing source {name}")
        text = path.read_bytes()
        out.append(f"\n-- source: {name}\n".encode())
        out.append(text.replace(b"@EXTVERSION@", version.encode()))
        if text and not text.endswith(b"\n"):
            out.append(b"\n")
    return b"".join(out)


def expand(source: Path, version: str, root: Path = ROOT) -> str:
    """The development upgrade step with its include lines replaced by the files."""
    out: list[str] = []
    for line in source.read_text(encoding="utf-8").splitlines(keepends=True):
        match = INCLUDE.match(line)
        if match is None:
            out.append(line)
            continue
        files = _glob(root, match.group(1))
        if not files:
            raise BuildError(f"{source}: include names no file: {match.group(1)}")
        for name in files:
            text = (root / name).read_text(encoding="utf-8")
            text = re.sub(r"^CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", text, flags=re.M)
            out.append(f"-- source: {name}\n")
            out.append(text if text.endswith("\n") else text + "\n")
    return "".join(out).replace("@EXTVERSION@", version)


def upgrade(source: Path, root: Path = ROOT, version: str | None = None) -> bytes:
    """An upgrade step as it ships: expanded when it leads into the version in
    development, else (released, frozen) its bytes unchanged."""
    version = version or default_version(root)
    if source.name.endswith(f"--{version}.sql"):
        return expand(source, version, root).encode("utf-8")
    return source.read_bytes()


def upgrade_sources(root: Path = ROOT) -> list[Path]:
    """Every upgrade step in sql/updates/, in byte order of name."""
    return [root / name for name in _glob(root, UPGRADES)]


def write(path: Path, data: bytes) -> None:
    """Write through a temporary file, so a failed build leaves no half script."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def package_names(root: Path = ROOT) -> list[str]:
    """The file names package() writes."""
    return [f"{EXTENSION}.sql", *(source.name for source in upgrade_sources(root))]


def package(directory: Path, root: Path = ROOT) -> list[Path]:
    """Write what the Python package ships in agent_state/sql/ (read by
    agent_state._install): agent_state.sql and every upgrade step. Upgrade scripts
    there that no longer have a source are removed. Returns the paths written."""
    version = default_version(root)
    written = [directory / f"{EXTENSION}.sql"]
    write(written[0], bundle(root, version))
    for source in upgrade_sources(root):
        written.append(directory / source.name)
        write(written[-1], upgrade(source, root, version))
    for stale in directory.glob(f"{EXTENSION}--*--*.sql"):
        if stale not in written:
            stale.unlink()
    return written


USAGE = """\
    scripts/build_sql.py bundle OUTPUT
    scripts/build_sql.py upgrade SOURCE OUTPUT
    scripts/build_sql.py copy SOURCE OUTPUT
    scripts/build_sql.py package DIRECTORY
    scripts/build_sql.py sources"""


def main(argv: Iterable[str]) -> int:
    args = list(argv)
    command, rest = (args[0], args[1:]) if args else ("", [])
    try:
        if command == "sources" and not rest:
            print("\n".join(sources()))
        elif command == "bundle" and len(rest) == 1:
            write(Path(rest[0]), bundle())
        elif command == "upgrade" and len(rest) == 2:
            write(Path(rest[1]), upgrade(Path(rest[0])))
        elif command == "copy" and len(rest) == 2:
            write(Path(rest[1]), Path(rest[0]).read_bytes())
        elif command == "package" and len(rest) == 1:
            package(Path(rest[0]))
        else:
            print("usage:\n" + USAGE, file=sys.stderr)
            return 2
    except (BuildError, OSError) as error:
        print(f"build_sql.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
