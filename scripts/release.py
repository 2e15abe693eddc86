#!/usr/bin/env python3
"""The release process: freeze the version in development, and check that
nothing released ever changes (RELEASING.md).

    scripts/release.py check         the lint (make lint-releases): exit 1 on a finding
    scripts/release.py freeze NEXT   make release NEXT=x.y.z, after make all

A released version V has its install script in sql/releases/agent_state--V.sql;
every upgrade step into a released version (agent_state--A--V.sql, V older than
the control file's default_version, or kept in sql/releases/) is frozen text.
sql/releases/SHA256SUMS lists the SHA-256 of every frozen file (sha256sum's
format, paths from the project root: `sha256sum -c sql/releases/SHA256SUMS`).
Only the step into default_version, the version in development, may keep
"-- include:" lines; make expands them.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = "agent_state"
CONTROL = ROOT / f"{EXTENSION}.control"
RELEASES = ROOT / "sql" / "releases"
UPDATES = ROOT / "sql" / "updates"
BUILD = ROOT / "build"
SUMS = RELEASES / "SHA256SUMS"

DEFAULT_VERSION = re.compile(r"^(\s*default_version\s*=\s*')([^']+)(')", re.M)
INSTALL_NAME = re.compile(rf"^{EXTENSION}--(\d+\.\d+\.\d+)\.sql$")
STEP_NAME = re.compile(rf"^{EXTENSION}--(\d+\.\d+\.\d+)--(\d+\.\d+\.\d+)\.sql$")
# What only the development script may hold: make fills both in.
DIRECTIVES = re.compile(r"^-- include:|@EXTVERSION@", re.M)

# The step into a new development version, before anything is written in it.
DEV_TEMPLATE = """\
-- agent_state {old} -> {new} (in development: make expands the includes; `make
-- release` freezes the expanded text, see RELEASING.md).
--
-- ALTER EXTENSION UPDATE and agent_state.install() run it in one transaction:
-- if any statement fails, {old} stays in place untouched.
--
-- What changes: (nothing yet)
SET LOCAL search_path = pg_catalog, pg_temp;
SET LOCAL check_function_bodies = off;

-- Nothing is replaced in a schema that others may add to.
-- include: sql/schema_trust.sql

-- Schema changes of {new} (new tables, columns, constraints, indexes), written
-- here by hand, before the code. A function whose signature or result type
-- changed, or that {new} removes, is dropped here too: CREATE OR REPLACE cannot
-- change those.

-- Replaceable code: every function, from its one source.
-- include: functions/*/*.sql

-- The whole-schema passes: every trigger, row-level security and the generated
-- triggers, config_dump registration, grants, the schema's event trigger.
-- include: sql/triggers.sql
-- include: sql/security.sql
-- include: sql/privileges.sql
-- include: sql/guard.sql
"""

Version = tuple[int, ...]


def key(version: str) -> Version:
    return tuple(int(part) for part in version.split("."))


def default_version(root: Path = ROOT) -> str:
    match = DEFAULT_VERSION.search((root / f"{EXTENSION}.control").read_text())
    if match is None:
        raise SystemExit(f"{EXTENSION}.control has no default_version")
    return match.group(2)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_sums(root: Path) -> dict[str, str]:
    path = root / "sql" / "releases" / "SHA256SUMS"
    if not path.exists():
        return {}
    sums = {}
    for line in path.read_text().splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            sums[name.lstrip("*")] = digest
    return sums


def write_sums(root: Path, sums: dict[str, str]) -> None:
    lines = [f"{digest}  {name}\n" for name, digest in sorted(sums.items())]
    (root / "sql" / "releases" / "SHA256SUMS").write_text("".join(lines))


def check(root: Path = ROOT) -> list[str]:
    """Every way the released scripts or the upgrade graph are wrong."""
    problems: list[str] = []
    current = default_version(root)
    released: dict[str, Path] = {}
    for path in sorted((root / "sql" / "releases").glob("*.sql")):
        match = INSTALL_NAME.match(path.name)
        if match is None:
            problems.append(f"{path.relative_to(root)}: not named {EXTENSION}--X.Y.Z.sql")
            continue
        released[match.group(1)] = path
    steps: dict[str, list[str]] = {}
    frozen = list(released.values())
    for path in sorted((root / "sql" / "updates").glob("*.sql")):
        match = STEP_NAME.match(path.name)
        rel = path.relative_to(root)
        if match is None:
            problems.append(f"{rel}: not named {EXTENSION}--A--B.sql")
            continue
        old, new = match.groups()
        if key(old) >= key(new):
            problems.append(f"{rel}: a step must lead to a newer version")
        if key(new) > key(current):
            problems.append(f"{rel}: leads past default_version {current}")
        steps.setdefault(old, []).append(new)
        if new != current:
            frozen.append(path)
    for version in released:
        if key(version) >= key(current):
            problems.append(
                f"sql/releases/{EXTENSION}--{version}.sql: {version} is released, so "
                f"default_version ({current}) must be newer"
            )
    sums = read_sums(root)
    for path in frozen:
        name = str(path.relative_to(root))
        text = path.read_text(encoding="utf-8")
        for match in DIRECTIVES.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            problems.append(f"{name}:{line}: a released script holds a build directive")
        if name not in sums:
            problems.append(f"{name}: released but not listed in sql/releases/SHA256SUMS")
        elif sums[name] != sha256(path):
            problems.append(f"{name}: changed since it was released (SHA256SUMS differs)")
    frozen_names = {str(path.relative_to(root)) for path in frozen}
    for name in sorted(set(sums) - frozen_names):
        problems.append(f"sql/releases/SHA256SUMS: {name} is listed but is not a released script")
    for version in released:
        if not reaches(steps, version, current):
            problems.append(f"no upgrade path from released {version} to {current}")
    return problems


def reaches(steps: dict[str, list[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        version = todo.pop()
        if version == goal:
            return True
        for nxt in steps.get(version, []):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def freeze(next_version: str, root: Path = ROOT) -> list[Path]:
    """Release default_version and open next_version; return the files written."""
    current = default_version(root)
    if not re.fullmatch(r"\d+\.\d+\.\d+", next_version) or key(next_version) <= key(current):
        raise SystemExit(f"NEXT must be a version newer than {current}, not {next_version!r}")
    problems = check(root)
    if problems:
        raise SystemExit("fix these first:\n" + "\n".join(problems))
    written: list[Path] = []
    sums = read_sums(root)
    bundle = root / "build" / f"{EXTENSION}--{current}.sql"
    dev_steps = sorted((root / "sql" / "updates").glob(f"{EXTENSION}--*--{current}.sql"))
    for path in [bundle, *(root / "build" / p.name for p in dev_steps)]:
        if not path.exists():
            raise SystemExit(f"{path.relative_to(root)} is missing: run make first")
    for step in dev_steps:
        step.write_bytes((root / "build" / step.name).read_bytes())
        written.append(step)
    install = root / "sql" / "releases" / bundle.name
    install.write_bytes(bundle.read_bytes())
    written.append(install)
    for path in written:
        sums[str(path.relative_to(root))] = sha256(path)
    write_sums(root, sums)
    written.append(root / "sql" / "releases" / "SHA256SUMS")
    control = root / f"{EXTENSION}.control"
    control.write_text(DEFAULT_VERSION.sub(rf"\g<1>{next_version}\g<3>", control.read_text(), 1))
    written.append(control)
    opened = root / "sql" / "updates" / f"{EXTENSION}--{current}--{next_version}.sql"
    opened.write_text(DEV_TEMPLATE.format(old=current, new=next_version))
    written.append(opened)
    return written


def main(argv: list[str]) -> int:
    if argv == ["check"]:
        problems = check()
        for problem in problems:
            print(problem, file=sys.stderr)
        if not problems:
            print(f"released scripts unchanged; every release reaches {default_version()}")
        return 1 if problems else 0
    if len(argv) == 2 and argv[0] == "freeze":
        old = default_version()
        for path in freeze(argv[1]):
            print(f"wrote {path.relative_to(ROOT)}")
        print(f"released {old}; {argv[1]} is in development: commit these files")
        return 0
    print("usage: scripts/release.py check | freeze NEXT", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
