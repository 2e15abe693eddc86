"""Plain-text output shared by the command line and the demo."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TextIO

from .results import (
    MemoryRevision,
    PersonaRevision,
    RecallHit,
    RestoreChange,
    TimelineEvent,
    ToolGrantRevision,
)


def _short(text: str, width: int = 72) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _when(ts: datetime) -> str:
    return ts.isoformat(sep=" ", timespec="seconds")


def _print_persona_history(out: TextIO, rows: Sequence[PersonaRevision]) -> None:
    for r in rows:
        mark = "* active" if r.is_active else "        "
        out.write(
            f"    r{r.revision} {mark}  {_when(r.created_at)}  by {r.created_by}: "
            f"{_short(r.body, 60)!r}\n"
        )


def _print_memory_history(out: TextIO, rows: Sequence[MemoryRevision]) -> None:
    for r in rows:
        out.write(
            f"    r{r.revision} {r.operation:<7} {_when(r.created_at)}  {r.visibility}, "
            f"source {r.source_type}: {_short(r.body, 50)!r}\n"
        )


def _print_hits(out: TextIO, hits: Sequence[RecallHit], indent: str = "    ") -> None:
    if not hits:
        out.write(f"{indent}(nothing eligible)\n")
    for h in hits:
        out.write(
            f"{indent}entry {h.entry} r{h.revision}  score {h.score:.4f}"
            f"{'  (subject match)' if h.subject_match else ''}: {_short(h.body, 50)!r}\n"
        )


def _print_grants(out: TextIO, rows: Sequence[ToolGrantRevision]) -> None:
    for r in rows:
        state = "enabled " if r.enabled else "disabled"
        out.write(
            f"    r{r.revision} {state} {_when(r.created_at)}  by {r.created_by}: "
            f"{json.dumps(r.config, sort_keys=True)}\n"
        )


def _instant(ts: datetime) -> str:
    """A moment to the microsecond, in a form ``--as-of``, ``--since`` and ``--until`` take."""
    return ts.isoformat()


def _print_timeline(out: TextIO, rows: Sequence[TimelineEvent]) -> None:
    if not rows:
        out.write("(no changes)\n")
    for r in rows:
        revision = "-" if r.revision is None else f"r{r.revision}"
        out.write(
            f"{_instant(r.at)}  {r.kind:<7}  {r.object or '-'}  {r.operation:<8}  "
            f"{revision}  by {r.changed_by}\n"
        )


def _print_restored(out: TextIO, rows: Sequence[RestoreChange]) -> None:
    for r in rows:
        out.write(f"{r.kind:<7}  {r.object or '-'}  {r.operation:<8}  r{r.revision}\n")
