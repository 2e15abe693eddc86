"""Asynchronous store: the same methods as :class:`~agent_state.Store`, awaitable."""

# ASYNC: This file is the source of both stores: scripts/gen-sync-store.py (run by
# ASYNC: `make api`) writes the synchronous store.py from it, as psycopg generates
# ASYNC: its sync code. An `if True:  # ASYNC` block is this side's only; its
# ASYNC: `else:` branch is the sync side's. Comments starting `# ASYNC:` stay here.

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from types import TracebackType
from typing import Any
from uuid import UUID

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from . import _functions
from ._api import AsyncStoreAPI
from ._calls import Fn, Id, R
from ._common import Embedder, check_dsn, check_vectors, connection_failed, resolve_dsn
from .errors import MOVE_RETRY_SECONDS, Moving, _mapped
from .results import RecallHit
from .witness import Witness, as_callable

__all__ = ["AsyncStore", "connect_async"]


async def connect_async(
    dsn: str | None = None,
    *,
    autocommit: bool = True,
    embedder: Embedder | None = None,
    embedding_model: str | None = None,
    witness: Witness | None = None,
) -> AsyncStore:
    """Open a connection and return a store (:class:`AsyncStore`) that owns it.

    The DSN comes from ``dsn``, else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``, else
    libpq's ``PG*`` variables; with none of them, or when the connection fails,
    :class:`~agent_state.ConnectionFailed` says which source it tried. With
    ``autocommit`` (the default) every call is its own transaction; group calls
    with ``async with store.transaction():``. ``embedder``, ``embedding_model`` and
    ``witness`` as for the store.
    """
    return AsyncStore(
        await _connect(dsn, "the dsn argument", autocommit=autocommit),
        owned=True,
        embedder=embedder,
        embedding_model=embedding_model,
        witness=witness,
    )


async def _connect(dsn: str | None, given_as: str, *, autocommit: bool) -> AsyncConnection[Any]:
    resolved, source = resolve_dsn(dsn, given_as)
    check_dsn(resolved, source)
    try:
        return await AsyncConnection.connect(resolved, autocommit=autocommit)
    except psycopg.Error as e:
        raise connection_failed(e, resolved, source) from e


class AsyncStore(AsyncStoreAPI):
    """Calls the ``agent_state`` stored functions over psycopg.

    Construct it from a :class:`psycopg.AsyncConnection`, a
    :class:`psycopg_pool.AsyncConnectionPool` or a DSN string (the store then owns an
    autocommit connection; close it with :meth:`close`, or use the store as a context
    manager; an empty string reads the DSN from the environment, as
    :func:`connect_async`).

    Transactions: on an autocommit connection (the default of :func:`connect_async`)
    every method is its own transaction. ``async with store.transaction():`` groups
    several calls into one transaction (a savepoint when nested). With a pool, each call
    borrows a connection and commits when it returns it; inside ``store.transaction()``
    every call of the same thread or task uses one pinned connection. A connection that
    is not in autocommit mode is used as is: the caller commits.

    The methods calling the SQL functions come from :class:`AsyncStoreAPI`, generated
    from the catalog. Every method takes keyword arguments named like the SQL
    parameters, ``agent`` first. An optional argument left as ``None`` is not sent, so
    the SQL default applies. Errors are raised as :class:`agent_state.Error` subclasses
    chosen by SQLSTATE.

    ``witness`` (a callable ``witness(agent_id, head)`` or a file path) receives the
    agent's head (:class:`~agent_state.ChainHead`) after each call that may write its
    history, to keep outside the database (:mod:`agent_state.witness`); a witness that
    raises makes the call raise after its write.
    """

    def __init__(
        self,
        source: AsyncConnection[Any] | AsyncConnectionPool[Any] | str,
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
        self._conn: AsyncConnection[Any] | None = None
        self._pool: AsyncConnectionPool[Any] | None = None
        self._dsn: str | None = None
        self._autocommit = autocommit
        self._owned = owned
        if True:  # ASYNC
            self._lock: asyncio.Lock | None = None
            self._embed_pool: ThreadPoolExecutor | None = None
        if isinstance(source, str):
            self._dsn = source
            self._owned = True
            if False:  # ASYNC: connected on first use (a constructor cannot await)
                conn = _connect(source, "the Store argument", autocommit=autocommit)  # type: ignore[unreachable]
                self._conn = conn
        elif isinstance(source, AsyncConnectionPool):
            self._pool = source
        elif isinstance(source, AsyncConnection):
            self._conn = source
        else:
            raise TypeError(
                "AsyncStore needs a psycopg AsyncConnection, AsyncConnectionPool or DSN,"
                f" not {source!r}"
            )
        self._pinned: ContextVar[AsyncConnection[Any] | None] = ContextVar(
            "agent_state_pinned_async_connection", default=None
        )

    @property
    def connection(self) -> AsyncConnection[Any] | None:
        """The connection the store uses (``None`` when it borrows from a pool)."""
        return self._conn

    @property
    def pool(self) -> AsyncConnectionPool[Any] | None:
        """The pool the store borrows connections from, if any."""
        return self._pool

    async def close(self) -> None:
        """Close the connection if the store opened it (never a caller's connection/pool)."""
        if self._owned and self._conn is not None:
            await self._conn.close()
        if True:  # ASYNC: and stop the embedder's worker thread
            if self._embed_pool is not None:
                self._embed_pool.shutdown(wait=False)
                self._embed_pool = None

    async def __aenter__(self) -> AsyncStore:
        if self._pool is None:
            await self._own_connection()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _own_connection(self) -> AsyncConnection[Any]:
        if self._conn is not None:
            return self._conn
        if True:  # ASYNC
            if self._lock is None:
                self._lock = asyncio.Lock()
            async with self._lock:
                if self._conn is None:
                    assert self._dsn is not None
                    self._conn = await _connect(
                        self._dsn, "the AsyncStore argument", autocommit=self._autocommit
                    )
                return self._conn
        else:
            raise AssertionError("a Store made from a DSN connects at construction")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncStore]:
        """Run the calls inside the block in one transaction (savepoint when nested)."""
        pinned = self._pinned.get()
        with _mapped():
            if pinned is not None:
                async with pinned.transaction():
                    yield self
            elif self._pool is not None:
                async with self._pool.connection() as conn:
                    token = self._pinned.set(conn)
                    try:
                        async with conn.transaction():
                            yield self
                    finally:
                        self._pinned.reset(token)
            else:
                conn = await self._own_connection()
                async with conn.transaction():
                    yield self

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[AsyncConnection[Any]]:
        pinned = self._pinned.get()
        if pinned is not None:
            yield pinned
        elif self._pool is not None:
            async with self._pool.connection() as conn:
                yield conn
        else:
            yield await self._own_connection()

    async def _call(self, fn: Fn[R], **args: object) -> R:
        # 55006 (the agent is being moved between shards, nothing written): retried
        # with a growing pause while the call is its own transaction.
        delay, waited = 0.02, 0.0
        while True:
            try:
                return await self._call_once(fn, **args)
            except Moving:
                if not self._retry_safe() or waited + delay > MOVE_RETRY_SECONDS:
                    raise
                if True:  # ASYNC
                    await asyncio.sleep(delay)
                else:
                    time.sleep(delay)  # type: ignore[unreachable]
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

    async def _call_once(self, fn: Fn[R], **args: object) -> R:
        query, params = fn.build(args)
        with _mapped(fn.name) as call:
            async with (
                self._connection() as conn,
                conn.cursor(row_factory=fn.shape.row_factory) as cur,
            ):
                call.role = conn.info.user
                await cur.execute(query, params)
                rows = await cur.fetchall()
        result = fn.shape.extract(rows)
        if fn.writes and self._witness is not None and args.get("agent") is not None:
            head = await self._call(_functions.chain_head, agent=args["agent"])
            self._witness(UUID(str(args["agent"])), head)
        return result

    # -- Hand-written methods ------------------------------------------------------------
    # The other methods (one per SQL function) are generated into AsyncStoreAPI
    # (agent_state._api). These keep the generated signature but add behaviour a plain
    # call does not have: the store's embedder and default embedding model.

    async def recall(
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
            query_embedding = (await self._embed([query]))[0]
        return await super().recall(
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

    async def context_for(
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
        return await super().context_for(
            agent=agent,
            conversation=conversation,
            message=message,
            max_results=max_results,
            match=match,
            query_embedding=query_embedding,
            embedding_model=embedding_model
            or (self._embedding_model if query_embedding is not None else None),
        )

    async def embed_pending(
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
            rows = await self.pending_embeddings(agent=agent, model=model, max_results=batch)
            if not rows:
                return done
            vectors = await self._embed([r.body for r in rows])
            async with self.transaction():
                for row, vector in zip(rows, vectors, strict=True):
                    await self.attach_embedding(
                        agent=agent, entry=row.entry, revision=row.revision, model=model,
                        embedding=vector,
                    )  # fmt: skip
            done += len(rows)
            if progress is not None:
                progress(done)

    async def _embed(self, texts: list[str]) -> list[Sequence[float]]:
        embedder = self._embedder
        assert embedder is not None
        if True:  # ASYNC
            # ASYNC: The embedder is a plain (blocking) callable, often a model on the
            # ASYNC: CPU: it runs in the store's one worker thread, off the event loop,
            # ASYNC: and one call at a time (many models are not thread-safe), even when
            # ASYNC: an awaiting call is cancelled (its work finishes before the next).
            if self._embed_pool is None:
                self._embed_pool = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="agent_state-embedder"
                )
            vectors = await asyncio.get_running_loop().run_in_executor(
                self._embed_pool, lambda: list(embedder(texts))
            )
        else:
            vectors = list(embedder(texts))  # type: ignore[unreachable]
        return check_vectors(vectors, texts)
