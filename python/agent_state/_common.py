"""What :class:`~agent_state.Store` and :class:`~agent_state.AsyncStore` share: where
the DSN comes from, how a bad DSN or a failed connection is reported, and the
embedder's type. Neither store module imports the other; both import this one."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeAlias

import psycopg
from psycopg.conninfo import conninfo_to_dict

from .errors import ConnectionFailed

__all__ = [
    "NO_DATABASE",
    "Embedder",
    "check_dsn",
    "check_vectors",
    "connection_failed",
    "default_dsn",
    "resolve_dsn",
]

Embedder: TypeAlias = Callable[[list[str]], Sequence[Sequence[float]]]
"""A runtime's embedding model: texts in, one vector per text out (same order)."""


def check_vectors(vectors: list[Sequence[float]], texts: list[str]) -> list[Sequence[float]]:
    """``vectors``, the :data:`Embedder`'s answer for ``texts``, if there is one per
    text; :class:`ValueError` otherwise."""
    if len(vectors) != len(texts):
        raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
    return vectors


def default_dsn(dsn: str | None = None) -> str:
    """``dsn``, else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``, else ``""``.

    An empty string lets libpq use its own defaults (``PGHOST``, ``PGDATABASE``, ...).
    """
    if dsn:
        return dsn
    return os.environ.get("AGENT_STATE_DSN") or os.environ.get("DATABASE_URL") or ""


NO_DATABASE = "no database given: set AGENT_STATE_DSN or pass --dsn"
"""What the command line says when it has no DSN (the library says it its own way)."""

# libpq's environment variables that name a server or database: with one of them set,
# an empty DSN is a choice (libpq's defaults), not an omission.
_LIBPQ_ENV = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE")


def resolve_dsn(dsn: str | None, given_as: str = "the dsn argument") -> tuple[str, str]:
    """The DSN to connect with and where it came from: ``dsn`` (described as
    ``given_as``), else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``, else libpq's
    own ``PG*`` environment variables (an empty DSN). With none of them,
    :class:`ConnectionFailed` says to set ``AGENT_STATE_DSN``."""
    if dsn:
        return dsn, given_as
    for var in ("AGENT_STATE_DSN", "DATABASE_URL"):
        value = os.environ.get(var)
        if value:
            return value, var
    libpq = [var for var in _LIBPQ_ENV if os.environ.get(var)]
    if libpq:
        return "", f"libpq's environment ({', '.join(libpq)})"
    raise ConnectionFailed(
        "no database given: set AGENT_STATE_DSN (or DATABASE_URL) to a libpq connection "
        "string or URI, or pass one, e.g. "
        "agent_state.connect('postgresql://user@host/dbname')"
    )


def check_dsn(dsn: str, source: str) -> None:
    """Raise :class:`ConnectionFailed` if ``dsn`` is not a libpq connection string or
    URI, quoting no part of it (libpq's own message may quote a piece of a password);
    the psycopg error is not chained for the same reason."""
    try:
        conninfo_to_dict(dsn)
    except psycopg.Error:
        raise ConnectionFailed(
            f"the DSN from {source} is not a valid libpq connection string or URI "
            "(key=value pairs such as 'host=db.example.com dbname=app user=agent', or "
            "'postgresql://agent@db.example.com/app')"
        ) from None


def connection_failed(exc: psycopg.Error, dsn: str, source: str) -> ConnectionFailed:
    """The :class:`ConnectionFailed` for a failed connection with ``dsn`` (valid, see
    :func:`check_dsn`) from ``source``: where the DSN came from and its host, port,
    database and user, never its password."""
    params = conninfo_to_dict(dsn)
    shown = [
        f"{key}={params[key]}"
        for key in ("host", "hostaddr", "port", "dbname", "user", "service")
        if params.get(key)
    ]
    where = " ".join(shown) if shown else "libpq's defaults"
    reason = str(exc).strip() or type(exc).__name__
    return ConnectionFailed(
        f"cannot connect to PostgreSQL with the DSN from {source} ({where}): {reason}",
        sqlstate=exc.sqlstate,
    )
