#!/usr/bin/env python3
"""Expand the development upgrade script into the script that ships.

    scripts/build-upgrade.py SOURCE OUTPUT VERSION

Each line "-- include: PATTERN" of SOURCE is replaced by the files PATTERN names
(a path, or a glob such as functions/*/*.sql, expanded in byte order like the
Makefile's $(sort)), with CREATE FUNCTION made CREATE OR REPLACE FUNCTION, each
file after a "-- source:" line. @EXTVERSION@ becomes VERSION. A pattern that
names no file is an error.

Only the script whose target is the version in development is expanded; a
released upgrade script is frozen text and is copied as it is (see RELEASING.md).
"""

from __future__ import annotations

import glob
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r"^-- include: (\S+)\s*$")


def expand(source: Path, version: str) -> str:
    out: list[str] = []
    for line in source.read_text(encoding="utf-8").splitlines(keepends=True):
        match = INCLUDE.match(line)
        if match is None:
            out.append(line)
            continue
        files = sorted(glob.glob(match.group(1)), key=lambda name: name.encode())
        if not files:
            raise SystemExit(f"{source}: include names no file: {match.group(1)}")
        for name in files:
            text = Path(name).read_text(encoding="utf-8")
            text = re.sub(r"^CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", text, flags=re.M)
            out.append(f"-- source: {name}\n")
            out.append(text if text.endswith("\n") else text + "\n")
    return "".join(out).replace("@EXTVERSION@", version)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    source, output, version = Path(argv[0]), Path(argv[1]), argv[2]
    text = expand(source, version)
    tmp = output.with_suffix(output.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
