"""Asynchronous store: the same methods as :class:`~agent_state.Store`, awaitable."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from types import TracebackType
from typing import Any
from uuid import UUID

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from . import _functions as F
from .errors import _mapped
from .results import (
    ActivePersona,
    GraphCheckpoint,
    GraphItem,
    GraphNamespace,
    MemoryRef,
    MemoryRevision,
    MemoryState,
    PendingEmbedding,
    PersonaRevision,
    RecallHit,
    SnapshotSource,
    ToolAuthorization,
    ToolGrantRevision,
    Violation,
)
from .store import JSON, Embedder, Id, default_dsn

__all__ = ["AsyncStore", "connect_async"]


async def connect_async(dsn: str | None = None, *, autocommit: bool = True) -> AsyncStore:
    """Open an async connection and return an :class:`AsyncStore` that owns it.

    The DSN comes from ``dsn``, else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``.
    """
    with _mapped():
        conn = await psycopg.AsyncConnection.connect(default_dsn(dsn), autocommit=autocommit)
    return AsyncStore(conn, owned=True)


class AsyncStore:
    """Calls the ``agent_state`` stored functions over psycopg (asyncio).

    Construct it from a :class:`psycopg.AsyncConnection`, a
    :class:`psycopg_pool.AsyncConnectionPool` or a DSN string (connected on first use
    or on ``async with``; the store then owns the connection). Transactions work as in
    :class:`~agent_state.Store`: ``async with store.transaction():``.
    """

    def __init__(
        self,
        source: AsyncConnection[Any] | AsyncConnectionPool[Any] | str,
        *,
        autocommit: bool = True,
        owned: bool = False,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
    ) -> None:
        self._embedder = embedder
        self._embedding_model = embedding_model
        self._conn: AsyncConnection[Any] | None = None
        self._pool: AsyncConnectionPool[Any] | None = None
        self._dsn: str | None = None
        self._autocommit = autocommit
        self._owned = owned
        self._lock: asyncio.Lock | None = None
        if isinstance(source, str):
            self._dsn = source
            self._owned = True
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
        """The connection the store uses (``None`` with a pool or before connecting)."""
        return self._conn

    @property
    def pool(self) -> AsyncConnectionPool[Any] | None:
        """The pool the store borrows connections from, if any."""
        return self._pool

    async def close(self) -> None:
        """Close the connection if the store opened it (never a caller's connection/pool)."""
        if self._owned and self._conn is not None:
            await self._conn.close()

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
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._conn is None:
                assert self._dsn is not None
                with _mapped():
                    self._conn = await psycopg.AsyncConnection.connect(
                        self._dsn, autocommit=self._autocommit
                    )
            return self._conn

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

    async def _call(self, fn: F.Fn[F.R], **args: object) -> F.R:
        query, params = fn.build(args)
        with _mapped(fn.name):
            async with (
                self._connection() as conn,
                conn.cursor(row_factory=fn.shape.row_factory) as cur,
            ):
                await cur.execute(query, params)
                rows = await cur.fetchall()
        return fn.shape.extract(rows)

    # -- Section 2: packaging -----------------------------------------------------------

    async def version(self) -> str:
        """``agent_state.version()``: the installed SQL version."""
        return await self._call(F.version)

    # -- Section 3: agents and hosting ----------------------------------------------------

    async def create_agent(
        self, *, handle: str, display_name: str | None = None, settings: JSON | None = None
    ) -> UUID:
        """Create an agent (operator). ``settings`` defaults to ``{}`` in SQL."""
        return await self._call(
            F.create_agent, handle=handle, display_name=display_name, settings=settings
        )

    async def grant_hosting(self, *, agent: Id, host: str) -> None:
        """Let the runtime role ``host`` act for ``agent`` (operator).

        ``host`` is the role name as in ``pg_roles.rolname`` (the wrapper quotes it).
        """
        return await self._call(F.grant_hosting, agent=agent, host=host)

    async def revoke_hosting(self, *, agent: Id, host: str) -> None:
        """Withdraw hosting of ``agent`` from ``host`` (operator)."""
        return await self._call(F.revoke_hosting, agent=agent, host=host)

    # -- Section 4: actors, identities, conversations, messages ---------------------------

    async def resolve_actor(
        self,
        *,
        agent: Id,
        connector: str,
        external_id: str,
        display_name: str | None = None,
        kind: str | None = None,
    ) -> UUID:
        """The actor known under ``(connector, external_id)``, created if new.

        ``kind`` defaults to ``'human'`` in SQL.
        """
        return await self._call(
            F.resolve_actor,
            agent=agent,
            connector=connector,
            external_id=external_id,
            display_name=display_name,
            kind=kind,
        )

    async def link_identity(
        self, *, agent: Id, actor: Id, connector: str, external_id: str
    ) -> None:
        """Link another connector identity to ``actor`` inside this perspective."""
        return await self._call(
            F.link_identity, agent=agent, actor=actor, connector=connector, external_id=external_id
        )

    async def open_conversation(
        self, *, agent: Id, connector: str, external_ref: str, kind: str | None = None
    ) -> UUID:
        """The conversation ``(connector, external_ref)``, created if new.

        ``kind`` defaults to ``'group'`` in SQL.
        """
        return await self._call(
            F.open_conversation,
            agent=agent,
            connector=connector,
            external_ref=external_ref,
            kind=kind,
        )

    async def record_message(
        self,
        *,
        agent: Id,
        conversation: Id,
        author: Id,
        body: str,
        audience: Sequence[Id] | None = None,
        external_ref: str | None = None,
        observed_at: datetime | None = None,
    ) -> UUID:
        """Record a message event; ``observed_at`` defaults to ``now()`` in SQL."""
        return await self._call(
            F.record_message,
            agent=agent,
            conversation=conversation,
            author=author,
            body=body,
            audience=audience,
            external_ref=external_ref,
            observed_at=observed_at,
        )

    # -- Section 5: persona ---------------------------------------------------------------

    async def revise_persona(self, *, agent: Id, body: str, activate: bool | None = None) -> int:
        """Append a persona revision (operator); ``activate`` defaults to true in SQL."""
        return await self._call(F.revise_persona, agent=agent, body=body, activate=activate)

    async def activate_persona(self, *, agent: Id, revision: int) -> None:
        """Make an existing persona revision the active one (operator)."""
        return await self._call(F.activate_persona, agent=agent, revision=revision)

    async def active_persona(
        self, *, agent: Id, as_of: datetime | None = None
    ) -> ActivePersona | None:
        """The active persona now or at ``as_of``; ``None`` if there was none."""
        return await self._call(F.active_persona, agent=agent, as_of=as_of)

    async def persona_history(self, *, agent: Id) -> list[PersonaRevision]:
        """Every persona revision of ``agent``."""
        return await self._call(F.persona_history, agent=agent)

    # -- Section 6: memory ----------------------------------------------------------------

    async def remember(
        self,
        *,
        agent: Id,
        body: str,
        source_message: Id,
        subject: Id | None = None,
        visibility: str | None = None,
    ) -> MemoryRef:
        """An agent-authored memory evidenced by ``source_message``.

        ``visibility`` defaults to ``'perspective'`` in SQL.
        """
        return await self._call(
            F.remember,
            agent=agent,
            body=body,
            source_message=source_message,
            subject=subject,
            visibility=visibility,
        )

    async def remember_many(self, *, agent: Id, memories: JSON) -> list[MemoryRef]:
        """Several agent-authored memories in one call, all or nothing: ``memories`` is a
        list of ``{"body", "source_message", "subject"?, "visibility"?}``."""
        return await self._call(F.remember_many, agent=agent, memories=memories)

    async def note(self, *, agent: Id, body: str, subject: Id | None = None) -> MemoryRef:
        """An operator-authored memory entry (operator)."""
        return await self._call(F.note, agent=agent, body=body, subject=subject)

    async def amend(
        self,
        *,
        agent: Id,
        entry: Id,
        body: str,
        expected_revision: int,
        source_message: Id | None = None,
        subject: Id | None = None,
        visibility: str | None = None,
    ) -> int:
        """A new revision of ``entry``; raises :class:`RevisionConflict` if stale."""
        return await self._call(
            F.amend,
            agent=agent,
            entry=entry,
            body=body,
            expected_revision=expected_revision,
            source_message=source_message,
            subject=subject,
            visibility=visibility,
        )

    async def forget(
        self,
        *,
        agent: Id,
        entry: Id,
        expected_revision: int | None = None,
        reason: str | None = None,
    ) -> int:
        """Retire ``entry`` (appends a ``forget`` revision)."""
        return await self._call(
            F.forget, agent=agent, entry=entry, expected_revision=expected_revision, reason=reason
        )

    async def memory_history(self, *, agent: Id, entry: Id) -> list[MemoryRevision]:
        """Every revision of ``entry``."""
        return await self._call(F.memory_history, agent=agent, entry=entry)

    async def share(self, *, agent: Id, entry: Id, revision: int, conversation: Id) -> None:
        """Grant one revision to one conversation (operator)."""
        return await self._call(
            F.share, agent=agent, entry=entry, revision=revision, conversation=conversation
        )

    async def unshare(self, *, agent: Id, entry: Id, revision: int, conversation: Id) -> None:
        """Withdraw a sharing grant (operator)."""
        return await self._call(
            F.unshare, agent=agent, entry=entry, revision=revision, conversation=conversation
        )

    async def redact(self, *, agent: Id, entry: Id, reason: str) -> None:
        """Erase the text of every revision of ``entry`` (operator, audited)."""
        return await self._call(F.redact, agent=agent, entry=entry, reason=reason)

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
            query_embedding = self._embed([query])[0]
        return await self._call(
            F.recall,
            agent=agent,
            query=query,
            conversation=conversation,
            current_subject=current_subject,
            max_results=max_results,
            as_of=as_of,
            match=match,
            query_embedding=None if query_embedding is None else list(query_embedding),
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
        ``match`` to ``'any'`` in SQL."""
        return await self._call(
            F.context_for,
            agent=agent,
            conversation=conversation,
            message=message,
            max_results=max_results,
            match=match,
            query_embedding=None if query_embedding is None else list(query_embedding),
            embedding_model=embedding_model
            or (self._embedding_model if query_embedding is not None else None),
        )

    async def attach_embedding(
        self, *, agent: Id, entry: Id, revision: int, model: str, embedding: Sequence[float]
    ) -> None:
        """Attach the embedding of one revision computed with ``model`` (needs pgvector)."""
        return await self._call(
            F.attach_embedding,
            agent=agent,
            entry=entry,
            revision=revision,
            model=model,
            embedding=list(embedding),
        )

    async def pending_embeddings(
        self, *, agent: Id, model: str, max_results: int | None = None
    ) -> list[PendingEmbedding]:
        """Current live revisions without an embedding of ``model``, oldest first."""
        return await self._call(
            F.pending_embeddings, agent=agent, model=model, max_results=max_results
        )

    async def embed_pending(self, *, agent: Id, model: str | None = None, batch: int = 100) -> int:
        """Fill :meth:`pending_embeddings` with the store's ``embedder``: embed the bodies
        in batches and attach each embedding; returns how many were attached. The
        embedder is the runtime's own model (nothing is bundled or downloaded)."""
        model = model or self._embedding_model
        if self._embedder is None or not model:
            raise ValueError("embed_pending needs a store made with embedder= and a model")
        done = 0
        while True:
            rows = await self.pending_embeddings(agent=agent, model=model, max_results=batch)
            if not rows:
                return done
            vectors = self._embed([r.body for r in rows])
            for row, vector in zip(rows, vectors, strict=True):
                await self.attach_embedding(
                    agent=agent, entry=row.entry, revision=row.revision, model=model,
                    embedding=vector,
                )  # fmt: skip
                done += 1

    def _embed(self, texts: list[str]) -> list[Sequence[float]]:
        assert self._embedder is not None
        vectors = list(self._embedder(texts))
        if len(vectors) != len(texts):
            raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(texts)} texts")
        return vectors

    # -- Section 7: execution state -------------------------------------------------------

    async def start_run(
        self,
        *,
        agent: Id,
        conversation: Id | None = None,
        trigger_message: Id | None = None,
        budget: JSON | None = None,
    ) -> UUID:
        """Start a run; ``budget`` (limits) defaults to ``{}`` in SQL."""
        return await self._call(
            F.start_run,
            agent=agent,
            conversation=conversation,
            trigger_message=trigger_message,
            budget=budget,
        )

    async def snapshot_prompt(
        self,
        *,
        agent: Id,
        run: Id,
        prompt: str,
        persona_revision: int | None = None,
        memory: JSON | None = None,
        messages: Sequence[Id] | None = None,
    ) -> UUID:
        """Record exactly what the agent was given for one model call.

        ``memory`` is ``[{"entry": ..., "revision": n}, ...]`` (default ``[]``).
        """
        return await self._call(
            F.snapshot_prompt,
            agent=agent,
            run=run,
            prompt=prompt,
            persona_revision=persona_revision,
            memory=memory,
            messages=messages,
        )

    async def snapshot_sources(self, *, agent: Id, snapshot: Id) -> list[SnapshotSource]:
        """The source rows a prompt snapshot used."""
        return await self._call(F.snapshot_sources, agent=agent, snapshot=snapshot)

    async def record_model_call(
        self,
        *,
        agent: Id,
        run: Id,
        snapshot: Id,
        provider: str,
        model: str,
        request: JSON,
        response: JSON | None = None,
        usage: JSON | None = None,
        status: str | None = None,
    ) -> UUID:
        """Record a model call and charge ``usage`` to the run's budget.

        ``usage`` defaults to ``{}``, ``status`` to ``'ok'`` in SQL.
        """
        return await self._call(
            F.record_model_call,
            agent=agent,
            run=run,
            snapshot=snapshot,
            provider=provider,
            model=model,
            request=request,
            response=response,
            usage=usage,
            status=status,
        )

    async def record_tool_call(
        self,
        *,
        agent: Id,
        run: Id,
        tool: str,
        input: JSON,
        model_call: Id | None = None,
    ) -> UUID:
        """Record a tool call (charges one ``tool_calls`` unit)."""
        return await self._call(
            F.record_tool_call,
            agent=agent,
            run=run,
            tool=tool,
            input=input,
            model_call=model_call,
        )

    async def record_tool_result(
        self, *, agent: Id, tool_call: Id, output: JSON, status: str
    ) -> None:
        """Record a tool result: ``status`` is ``ok``, ``error`` or ``unconfirmed``."""
        return await self._call(
            F.record_tool_result, agent=agent, tool_call=tool_call, output=output, status=status
        )

    async def checkpoint(self, *, agent: Id, run: Id, frontier: JSON) -> int:
        """Append an execution frontier; returns its number within the run."""
        return await self._call(F.checkpoint, agent=agent, run=run, frontier=frontier)

    async def record_turn(
        self,
        *,
        agent: Id,
        run: Id,
        prompt: str,
        provider: str,
        model: str,
        request: JSON,
        response: JSON | None = None,
        usage: JSON | None = None,
        status: str | None = None,
        persona_revision: int | None = None,
        memory: JSON | None = None,
        messages: Sequence[Id] | None = None,
        tool_calls: JSON | None = None,
        frontier: JSON | None = None,
    ) -> dict[str, Any]:
        """One model call and what came of it in one call: the prompt snapshot, the model
        call, its tool calls (``[{"tool", "input", "output"?, "status"?}]``) and a
        checkpoint; returns their ids."""
        return await self._call(
            F.record_turn, agent=agent, run=run, prompt=prompt, provider=provider, model=model,
            request=request, response=response, usage=usage, status=status,
            persona_revision=persona_revision, memory=memory,
            messages=None if messages is None else list(messages), tool_calls=tool_calls,
            frontier=frontier,
        )  # fmt: skip

    async def finish_run(
        self, *, agent: Id, run: Id, outcome: str, detail: JSON | None = None
    ) -> None:
        """Finish a run: ``succeeded``, ``failed``, ``cancelled`` or ``handed_off``."""
        return await self._call(F.finish_run, agent=agent, run=run, outcome=outcome, detail=detail)

    async def continue_run(
        self, *, agent: Id, run: Id, task_context: JSON, budget: JSON | None = None
    ) -> UUID:
        """A new run continuing ``run``; spent budget carries over."""
        return await self._call(
            F.continue_run, agent=agent, run=run, task_context=task_context, budget=budget
        )

    async def recover_run(self, *, agent: Id, run: Id) -> dict[str, Any]:
        """What a runtime needs to resume ``run`` (current persona and grants)."""
        return await self._call(F.recover_run, agent=agent, run=run)

    # -- Section 8: tool grants -----------------------------------------------------------

    async def register_tool(self, *, name: str, version: str, config_schema: JSON) -> None:
        """Register a deployment-wide tool contract (operator)."""
        return await self._call(
            F.register_tool, name=name, version=version, config_schema=config_schema
        )

    async def grant_tool(
        self, *, agent: Id, tool: str, enabled: bool, config: JSON | None = None
    ) -> int:
        """A new grant revision for ``agent`` and ``tool`` (operator)."""
        return await self._call(
            F.grant_tool, agent=agent, tool=tool, enabled=enabled, config=config
        )

    async def authorize_tool(self, *, agent: Id, tool: str) -> ToolAuthorization:
        """Check ``tool`` may be used now; raises :class:`PermissionDenied` if not."""
        return await self._call(F.authorize_tool, agent=agent, tool=tool)

    async def tool_grant_history(self, *, agent: Id, tool: str) -> list[ToolGrantRevision]:
        """Every grant revision of ``tool`` for ``agent``."""
        return await self._call(F.tool_grant_history, agent=agent, tool=tool)

    # -- Section 2: lifecycle -------------------------------------------------------------

    async def verify(self) -> list[Violation]:
        """Every invariant the triggers hold, checked over the stored rows (operator);
        an empty list means all hold."""
        return await self._call(F.verify)

    # -- Section 12: integrations (used by agent_state.integrations.langgraph) -----------

    async def graph_put(
        self,
        *,
        agent: Id,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_id: str,
        parent_checkpoint_id: str | None,
        payload_type: str,
        payload: bytes,
        metadata: JSON,
    ) -> None:
        """Store a serialized LangGraph checkpoint of a thread."""
        return await self._call(
            F.graph_put, agent=agent, thread_id=thread_id, checkpoint_ns=checkpoint_ns,
            checkpoint_id=checkpoint_id, parent_checkpoint_id=parent_checkpoint_id,
            payload_type=payload_type, payload=payload, metadata=metadata,
        )  # fmt: skip

    async def graph_put_writes(
        self,
        *,
        agent: Id,
        thread_id: str,
        checkpoint_ns: str,
        checkpoint_id: str,
        task_id: str,
        task_path: str,
        idxs: Sequence[int],
        channels: Sequence[str],
        value_types: Sequence[str],
        writes_values: Sequence[bytes],
    ) -> None:
        """Store a task's pending writes of a stored checkpoint."""
        return await self._call(
            F.graph_put_writes, agent=agent, thread_id=thread_id, checkpoint_ns=checkpoint_ns,
            checkpoint_id=checkpoint_id, task_id=task_id, task_path=task_path, idxs=list(idxs),
            channels=list(channels), value_types=list(value_types),
            writes_values=list(writes_values),
        )  # fmt: skip

    async def graph_list(
        self,
        *,
        agent: Id,
        thread: str | None = None,
        namespace: str | None = None,
        checkpoint: str | None = None,
        filter: JSON | None = None,
        before: str | None = None,
        max_results: int | None = None,
    ) -> list[GraphCheckpoint]:
        """Stored checkpoints newest first, each with its pending writes."""
        return await self._call(
            F.graph_list, agent=agent, thread=thread, namespace=namespace, checkpoint=checkpoint,
            filter=filter, before=before, max_results=max_results,
        )  # fmt: skip

    async def graph_delete_thread(
        self, *, agent: Id, thread_id: str, reason: str | None = None
    ) -> int:
        """Remove a thread's checkpoint payloads through an audited purge record."""
        return await self._call(
            F.graph_delete_thread, agent=agent, thread_id=thread_id, reason=reason
        )

    async def graph_delete_for_runs(
        self, *, agent: Id, graph_run_ids: Sequence[str], reason: str | None = None
    ) -> int:
        """Remove the checkpoints of some LangGraph runs through audited purge records."""
        return await self._call(
            F.graph_delete_for_runs, agent=agent, graph_run_ids=list(graph_run_ids), reason=reason
        )

    async def graph_prune(
        self,
        *,
        agent: Id,
        thread_ids: Sequence[str],
        strategy: str | None = None,
        reason: str | None = None,
    ) -> int:
        """Prune threads (keep_latest or delete) through audited purge records."""
        return await self._call(
            F.graph_prune, agent=agent, thread_ids=list(thread_ids), strategy=strategy,
            reason=reason,
        )  # fmt: skip

    async def graph_copy_thread(
        self, *, agent: Id, source_thread_id: str, target_thread_id: str
    ) -> int:
        """Copy a thread's checkpoints and writes to another thread of the agent."""
        return await self._call(
            F.graph_copy_thread, agent=agent, source_thread_id=source_thread_id,
            target_thread_id=target_thread_id,
        )  # fmt: skip

    async def memory_entry(
        self,
        *,
        agent: Id,
        entry: Id,
        as_of: datetime | None = None,
        conversation: Id | None = None,
    ) -> MemoryState | None:
        """One entry's state by id (with ``conversation``: only when eligible there)."""
        return await self._call(
            F.memory_entry, agent=agent, entry=entry, as_of=as_of, conversation=conversation
        )

    async def graph_item_put(
        self,
        *,
        agent: Id,
        namespace: Sequence[str],
        key: str,
        value: JSON,
        body: str,
        message: Id | None = None,
    ) -> MemoryRef:
        """Store a LangGraph store item as a memory entry (a live key is amended)."""
        return await self._call(
            F.graph_item_put, agent=agent, namespace=list(namespace), key=key, value=value,
            body=body, message=message,
        )  # fmt: skip

    async def graph_item_delete(self, *, agent: Id, namespace: Sequence[str], key: str) -> bool:
        """Forget a LangGraph store item's entry; False when there is no live item."""
        return await self._call(
            F.graph_item_delete, agent=agent, namespace=list(namespace), key=key
        )

    async def graph_item_search(
        self,
        *,
        agent: Id,
        namespace_prefix: Sequence[str],
        query: str | None = None,
        filter: JSON | None = None,
        max_results: int | None = None,
        skip: int | None = None,
        conversation: Id | None = None,
        item_key: str | None = None,
    ) -> list[GraphItem]:
        """Live LangGraph store items under a namespace prefix (reads only)."""
        return await self._call(
            F.graph_item_search, agent=agent, namespace_prefix=list(namespace_prefix),
            query=query, filter=filter, max_results=max_results, skip=skip,
            conversation=conversation, item_key=item_key,
        )  # fmt: skip

    async def graph_list_namespaces(
        self,
        *,
        agent: Id,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        max_results: int | None = None,
        skip: int | None = None,
    ) -> list[GraphNamespace]:
        """Distinct namespaces of live LangGraph store items (reads only)."""
        return await self._call(
            F.graph_list_namespaces, agent=agent,
            prefix=None if prefix is None else list(prefix),
            suffix=None if suffix is None else list(suffix),
            max_depth=max_depth, max_results=max_results, skip=skip,
        )  # fmt: skip

    # -- Section 9: views and export ------------------------------------------------------

    async def export_markdown(self, *, agent: Id) -> str:
        """A deterministic markdown view of the agent's state."""
        return await self._call(F.export_markdown, agent=agent)

    async def import_markdown(self, *, agent: Id, document: str) -> int:
        """Import a markdown memory file as ``import`` entries (operator)."""
        return await self._call(F.import_markdown, agent=agent, document=document)
