"""Heads kept outside the database (SPEC section 14, docs/security.md "Anchoring").

A head (:func:`Store.chain_head`) held where an attacker who controls the database
cannot rewrite it lets :meth:`Store.verify` prove that the agent's history up to that
head is intact: not truncated, not rolled back, not rewritten. ``Store(...,
witness=...)`` records the agent's head after each write call:

* a callable ``witness(agent_id, head)`` (ship it to a log service, a second
  database, a transparency log);
* a path: one JSON line per head, appended (``{"agent", "position", "digest",
  "recorded_at"}``), read back by :func:`newest_head` and by
  ``agent-state verify --agent A --witness FILE``.

Heads leave out the writes of a transaction still open (they may roll back): inside
``store.transaction()`` a head covers what was committed before it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Union
from uuid import UUID

from .results import ChainHead

Witness = Union[Callable[[UUID, ChainHead], None], str, "os.PathLike[str]"]


def as_callable(witness: Witness) -> Callable[[UUID, ChainHead], None]:
    """The witness as a callable: a path becomes an appender of JSON lines."""
    if callable(witness):
        return witness
    path = Path(witness)

    def append(agent: UUID, head: ChainHead) -> None:
        line = json.dumps(
            {
                "agent": str(agent),
                "position": head.position,
                "digest": head.digest,
                "recorded_at": head.recorded_at.isoformat(),
            }
        )
        # O_APPEND: each head is one write at the end, never a rewrite.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    return append


def newest_head(path: str | os.PathLike[str], agent: UUID) -> str | None:
    """The newest head recorded for ``agent`` in a witness file (None: none)."""
    newest: str | None = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{number}: not a JSON line ({e})") from e
            if isinstance(item, dict) and item.get("agent") == str(agent):
                digest = item.get("digest")
                if not isinstance(digest, str):
                    raise ValueError(f"{path}:{number}: a head without a digest")
                newest = digest
    return newest
