"""Synchronous store: one method per ``agent_state`` SQL function."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from types import TracebackType
from typing import Any
from uuid import UUID

import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

from . import _functions
from ._api import StoreAPI
from ._calls import JSON, Fn, Id, R

# Shared with .aio; the names are also importable from here (the command line does).
from ._common import NO_DATABASE as NO_DATABASE
from ._common import Embedder as Embedder
from ._common import check_dsn as check_dsn
from ._common import check_vectors, default_dsn, resolve_dsn
from ._common import connection_failed as connection_failed
from .errors import MOVE_RETRY_SECONDS, Moving, _mapped
from .results import RecallHit
from .witness import Witness, as_callable

__all__ = ["JSON", "Id", "Store", "connect", "default_dsn", "resolve_dsn"]


@contextmanager
def _open(
    dsn: str | None, given_as: str = "the dsn argument", *, autocommit: bool = True
) -> Iterator[Connection[Any]]:
    """A connection for ``dsn`` (resolved as :func:`resolve_dsn`), closed afterwards."""
    conn = _connect(dsn, given_as, autocommit=autocommit)
    with conn:
        yield conn


def _connect(dsn: str | None, given_as: str, *, autocommit: bool) -> Connection[Any]:
    resolved, source = resolve_dsn(dsn, given_as)
    check_dsn(resolved, source)
    try:
        return psycopg.connect(resolved, autocommit=autocommit)
    except psycopg.Error as e:
        raise connection_failed(e, resolved, source) from e


def connect(
    dsn: str | None = None,
    *,
    autocommit: bool = True,
    embedder: Embedder | None = None,
    embedding_model: str | None = None,
) -> Store:
    """Open a connection and return a :class:`Store` that owns it.

    The DSN comes from ``dsn``, else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``, else
    libpq's ``PG*`` variables; with none of them, or when the connection fails,
    :class:`~agent_state.ConnectionFailed` says which source it tried. With
    ``autocommit`` (the default) every call is its own transaction; group calls
    with ``with store.transaction():``.
    """
    return Store(
        _connect(dsn, "the dsn argument", autocommit=autocommit),
        owned=True,
        embedder=embedder,
        embedding_model=embedding_model,
    )


class Store(StoreAPI):
    """Calls the ``agent_state`` stored functions over psycopg (synchronous).

    Construct it from a :class:`psycopg.Connection`, a
    :class:`psycopg_pool.ConnectionPool` or a DSN string (the store then owns an
    autocommit connection; close it with :meth:`close` or a ``with`` block; an empty
    string reads the DSN from the environment, as :func:`connect`).

    Transactions: on an autocommit connection (the default of :func:`connect`) every
    method is its own transaction. ``with store.transaction():`` groups several calls
    into one transaction (a savepoint when nested). With a pool, each call borrows a
    connection and commits when it returns it; inside ``store.transaction()`` every
    call of the same thread or task uses one pinned connection. A connection that is
    not in autocommit mode is used as is: the caller commits.

    The methods calling the SQL functions come from :class:`StoreAPI`, generated from
    the catalog. Every method takes keyword arguments named like the SQL parameters,
    ``agent`` first. An optional argument left as ``None`` is not sent, so the SQL default
    applies. Errors are raised as :class:`agent_state.Error` subclasses chosen by
    SQLSTATE.

    ``witness`` (a callable ``witness(agent_id, head)`` or a file path) receives the
    agent's head (:class:`~agent_state.ChainHead`) after each call that may write its
    history, to keep outside the database (:mod:`agent_state.witness`); a witness that
    raises makes the call raise after its write.
    """

    def __init__(
        self,
        source: Connection[Any] | ConnectionPool[Any] | str,
        *,
        autocommit: bool = True,
        owned: bool = False,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
        witness: Witness | None = None,
    ) -> None:
        self._witness = as_callable(witness) if witness is not None else None
        self._embedder = embedder
        self._embedding_model = embedding_model
        self._conn: Connection[Any] | None = None
        self._pool: ConnectionPool[Any] | None = None
        self._owned = owned
        if isinstance(source, str):
            self._conn = _connect(source, "the Store argument", autocommit=autocommit)
            self._owned = True
        elif isinstance(source, ConnectionPool):
            self._pool = source
        elif isinstance(source, Connection):
            self._conn = source
        else:
            raise TypeError(
                f"Store needs a psycopg Connection, ConnectionPool or DSN, not {source!r}"
            )
        self._pinned: ContextVar[Connection[Any] | None] = ContextVar(
            "agent_state_pinned_connection", default=None
        )

    @property
    def connection(self) -> Connection[Any] | None:
        """The connection the store uses (``None`` when it borrows from a pool)."""
        return self._conn

    @property
    def pool(self) -> ConnectionPool[Any] | None:
        """The pool the store borrows connections from, if any."""
        return self._pool

    def close(self) -> None:
        """Close the connection if the store opened it (never a caller's connection/pool)."""
        if self._owned and self._conn is not None:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """Run the calls inside the block in one transaction (savepoint when nested)."""
        pinned = self._pinned.get()
        with _mapped():
            if pinned is not None:
                with pinned.transaction():
                    yield self
            elif self._pool is not None:
                with self._pool.connection() as conn:
                    token = self._pinned.set(conn)
                    try:
                        with conn.transaction():
                            yield self
                    finally:
                        self._pinned.reset(token)
            else:
                assert self._conn is not None
                with self._conn.transaction():
                    yield self

    @contextmanager
    def _connection(self) -> Iterator[Connection[Any]]:
        pinned = self._pinned.get()
        if pinned is not None:
            yield pinned
        elif self._pool is not None:
            with self._pool.connection() as conn:
                yield conn
        else:
            assert self._conn is not None
            yield self._conn

    def _call(self, fn: Fn[R], **args: object) -> R:
        # 55006 (the agent is being moved between shards, nothing written): retried
        # with a growing pause while the call is its own transaction.
        delay, waited = 0.02, 0.0
        while True:
            try:
                return self._call_once(fn, **args)
            except Moving:
                if not self._retry_safe() or waited + delay > MOVE_RETRY_SECONDS:
                    raise
                time.sleep(delay)
                waited += delay
                delay = min(delay * 2, 1.0)

    def _retry_safe(self) -> bool:
        if self._pinned.get() is not None:
            return False
        if self._pool is not None:
            return True
        assert self._conn is not None
        return bool(self._conn.autocommit) and (
            self._conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        )

    def _call_once(self, fn: Fn[R], **args: object) -> R:
        query, params = fn.build(args)
        with (
            _mapped(fn.name) as call,
            self._connection() as conn,
            conn.cursor(row_factory=fn.shape.row_factory) as cur,
        ):
            call.role = conn.info.user
            cur.execute(query, params)
            rows = cur.fetchall()
        result = fn.shape.extract(rows)
        if fn.writes and self._witness is not None and args.get("agent") is not None:
            head = self._call(_functions.chain_head, agent=args["agent"])
            self._witness(UUID(str(args["agent"])), head)
        return result

    # -- Hand-written methods ------------------------------------------------------------
    # The other methods (one per SQL function) are generated into StoreAPI
    # (StoreAPI, agent_state._api). These two keep the generated
    # signature but add behaviour a plain call does not have: the store's embedder and
    # default embedding model.

    def recall(
        self,
        *,
        agent: Id,
        query: str | None,
        conversation: Id | None = None,
        current_subject: Id | None = None,
        max_results: int | None = None,
        as_of: datetime | None = None,
        match: str | None = None,
        query_embedding: Sequence[float] | None = None,
        embedding_model: str | None = None,
    ) -> list[RecallHit]:
        """Eligible memories ranked for ``query``; ``max_results`` defaults to 10 and
        ``match`` to ``'all'`` in SQL. With ``query_embedding`` and ``embedding_model``
        (pgvector), lexical and nearest matches are fused. A store with an ``embedder``
        computes ``query_embedding`` from ``query`` when only ``embedding_model`` is given
        (or the store's default model)."""
        embedding_model = embedding_model or self._embedding_model
        if query_embedding is None and embedding_model and self._embedder and query:
            query_embedding = self._embed([query])[0]
        return super().recall(
            agent=agent,
            query=query,
            conversation=conversation,
            current_subject=current_subject,
            max_results=max_results,
            as_of=as_of,
            match=match,
            query_embedding=query_embedding,
            embedding_model=embedding_model if query_embedding is not None else None,
        )

    def context_for(
        self,
        *,
        agent: Id,
        conversation: Id,
        message: Id | None = None,
        max_results: int | None = None,
        match: str | None = None,
        query_embedding: Sequence[float] | None = None,
        embedding_model: str | None = None,
    ) -> list[RecallHit]:
        """Memory for automatic prompt context; ``max_results`` defaults to 20 and
        ``match`` to ``'any'`` in SQL. With ``query_embedding``, ``embedding_model``
        defaults to the store's."""
        return super().context_for(
            agent=agent,
            conversation=conversation,
            message=message,
            max_results=max_results,
            match=match,
            query_embedding=query_embedding,
            embedding_model=embedding_model
            or (self._embedding_model if query_embedding is not None else None),
        )

    def embed_pending(
        self,
        *,
        agent: Id,
        model: str | None = None,
        batch: int = 100,
        progress: Callable[[int], object] | None = None,
    ) -> int:
        """Fill :meth:`pending_embeddings` with the store's ``embedder``: embed the bodies
        in batches and attach each embedding; returns how many were attached. Each
        batch is one transaction (one commit, not one per embedding): an error
        leaves that batch's revisions pending. The embedder is the runtime's own
        model (nothing is bundled or downloaded). ``progress``, if given, is called
        after each committed batch with the number attached so far."""
        model = model or self._embedding_model
        if self._embedder is None or not model:
            raise ValueError("embed_pending needs a store made with embedder= and a model")
        done = 0
        while True:
            rows = self.pending_embeddings(agent=agent, model=model, max_results=batch)
            if not rows:
                return done
            vectors = self._embed([r.body for r in rows])
            with self.transaction():
                for row, vector in zip(rows, vectors, strict=True):
                    self.attach_embedding(
                        agent=agent, entry=row.entry, revision=row.revision, model=model,
                        embedding=vector,
                    )  # fmt: skip
            done += len(rows)
            if progress is not None:
                progress(done)

    def _embed(self, texts: list[str]) -> list[Sequence[float]]:
        assert self._embedder is not None
        return check_vectors(list(self._embedder(texts)), texts)
