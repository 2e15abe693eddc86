"""Synchronous store: one method per ``agent_state`` SQL function."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from types import TracebackType
from typing import Any, TypeAlias
from uuid import UUID

import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

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

__all__ = ["JSON", "Id", "Store", "connect", "default_dsn"]

Id: TypeAlias = UUID | str
"""A uuid argument: a :class:`uuid.UUID` or its text form (cast server-side)."""

JSON: TypeAlias = Any
"""A jsonb argument: anything :class:`psycopg.types.json.Jsonb` can dump."""

Embedder: TypeAlias = Callable[[list[str]], Sequence[Sequence[float]]]
"""A runtime's embedding model: texts in, one vector per text out (same order)."""


def default_dsn(dsn: str | None = None) -> str:
    """``dsn``, else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``, else ``""``.

    An empty string lets libpq use its own defaults (``PGHOST``, ``PGDATABASE``, ...).
    """
    if dsn:
        return dsn
    return os.environ.get("AGENT_STATE_DSN") or os.environ.get("DATABASE_URL") or ""


def connect(
    dsn: str | None = None,
    *,
    autocommit: bool = True,
    embedder: Embedder | None = None,
    embedding_model: str | None = None,
) -> Store:
    """Open a connection and return a :class:`Store` that owns it.

    The DSN comes from ``dsn``, else ``$AGENT_STATE_DSN``, else ``$DATABASE_URL``.
    With ``autocommit`` (the default) every call is its own transaction; group calls
    with ``with store.transaction():``.
    """
    with _mapped():
        conn = psycopg.connect(default_dsn(dsn), autocommit=autocommit)
    return Store(conn, owned=True, embedder=embedder, embedding_model=embedding_model)


class Store:
    """Calls the ``agent_state`` stored functions over psycopg (synchronous).

    Construct it from a :class:`psycopg.Connection`, a
    :class:`psycopg_pool.ConnectionPool` or a DSN string (the store then owns an
    autocommit connection; close it with :meth:`close` or a ``with`` block).

    Transactions: on an autocommit connection (the default of :func:`connect`) every
    method is its own transaction. ``with store.transaction():`` groups several calls
    into one transaction (a savepoint when nested). With a pool, each call borrows a
    connection and commits when it returns it; inside ``store.transaction()`` every
    call of the same thread or task uses one pinned connection. A connection that is
    not in autocommit mode is used as is: the caller commits.

    Every method takes keyword arguments named like the SQL parameters, ``agent``
    first. An optional argument left as ``None`` is not sent, so the SQL default
    applies. Errors are raised as :class:`agent_state.Error` subclasses chosen by
    SQLSTATE.
    """

    def __init__(
        self,
        source: Connection[Any] | ConnectionPool[Any] | str,
        *,
        autocommit: bool = True,
        owned: bool = False,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
    ) -> None:
        self._embedder = embedder
        self._embedding_model = embedding_model
        self._conn: Connection[Any] | None = None
        self._pool: ConnectionPool[Any] | None = None
        self._owned = owned
        if isinstance(source, str):
            with _mapped():
                self._conn = psycopg.connect(source, autocommit=autocommit)
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

    def _call(self, fn: F.Fn[F.R], **args: object) -> F.R:
        query, params = fn.build(args)
        with (
            _mapped(fn.name),
            self._connection() as conn,
            conn.cursor(row_factory=fn.shape.row_factory) as cur,
        ):
            cur.execute(query, params)
            rows = cur.fetchall()
        return fn.shape.extract(rows)

    # -- Section 2: packaging -----------------------------------------------------------

    def version(self) -> str:
        """``agent_state.version()``: the installed SQL version."""
        return self._call(F.version)

    # -- Section 3: agents and hosting ----------------------------------------------------

    def create_agent(
        self, *, handle: str, display_name: str | None = None, settings: JSON | None = None
    ) -> UUID:
        """Create an agent (operator). ``settings`` defaults to ``{}`` in SQL."""
        return self._call(
            F.create_agent, handle=handle, display_name=display_name, settings=settings
        )

    def grant_hosting(self, *, agent: Id, host: str) -> None:
        """Let the runtime role ``host`` act for ``agent`` (operator).

        ``host`` is the role name as in ``pg_roles.rolname`` (the wrapper quotes it).
        """
        return self._call(F.grant_hosting, agent=agent, host=host)

    def revoke_hosting(self, *, agent: Id, host: str) -> None:
        """Withdraw hosting of ``agent`` from ``host`` (operator)."""
        return self._call(F.revoke_hosting, agent=agent, host=host)

    # -- Section 4: actors, identities, conversations, messages ---------------------------

    def resolve_actor(
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
        return self._call(
            F.resolve_actor,
            agent=agent,
            connector=connector,
            external_id=external_id,
            display_name=display_name,
            kind=kind,
        )

    def link_identity(self, *, agent: Id, actor: Id, connector: str, external_id: str) -> None:
        """Link another connector identity to ``actor`` inside this perspective."""
        return self._call(
            F.link_identity, agent=agent, actor=actor, connector=connector, external_id=external_id
        )

    def open_conversation(
        self, *, agent: Id, connector: str, external_ref: str, kind: str | None = None
    ) -> UUID:
        """The conversation ``(connector, external_ref)``, created if new.

        ``kind`` defaults to ``'group'`` in SQL.
        """
        return self._call(
            F.open_conversation,
            agent=agent,
            connector=connector,
            external_ref=external_ref,
            kind=kind,
        )

    def record_message(
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
        return self._call(
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

    def revise_persona(self, *, agent: Id, body: str, activate: bool | None = None) -> int:
        """Append a persona revision (operator); ``activate`` defaults to true in SQL."""
        return self._call(F.revise_persona, agent=agent, body=body, activate=activate)

    def activate_persona(self, *, agent: Id, revision: int) -> None:
        """Make an existing persona revision the active one (operator)."""
        return self._call(F.activate_persona, agent=agent, revision=revision)

    def active_persona(self, *, agent: Id, as_of: datetime | None = None) -> ActivePersona | None:
        """The active persona now or at ``as_of``; ``None`` if there was none."""
        return self._call(F.active_persona, agent=agent, as_of=as_of)

    def persona_history(self, *, agent: Id) -> list[PersonaRevision]:
        """Every persona revision of ``agent``."""
        return self._call(F.persona_history, agent=agent)

    # -- Section 6: memory ----------------------------------------------------------------

    def remember(
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
        return self._call(
            F.remember,
            agent=agent,
            body=body,
            source_message=source_message,
            subject=subject,
            visibility=visibility,
        )

    def remember_many(self, *, agent: Id, memories: JSON) -> list[MemoryRef]:
        """Several agent-authored memories in one call, all or nothing: ``memories`` is a
        list of ``{"body", "source_message", "subject"?, "visibility"?}``."""
        return self._call(F.remember_many, agent=agent, memories=memories)

    def note(self, *, agent: Id, body: str, subject: Id | None = None) -> MemoryRef:
        """An operator-authored memory entry (operator)."""
        return self._call(F.note, agent=agent, body=body, subject=subject)

    def amend(
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
        return self._call(
            F.amend,
            agent=agent,
            entry=entry,
            body=body,
            expected_revision=expected_revision,
            source_message=source_message,
            subject=subject,
            visibility=visibility,
        )

    def forget(
        self,
        *,
        agent: Id,
        entry: Id,
        expected_revision: int | None = None,
        reason: str | None = None,
    ) -> int:
        """Retire ``entry`` (appends a ``forget`` revision)."""
        return self._call(
            F.forget, agent=agent, entry=entry, expected_revision=expected_revision, reason=reason
        )

    def memory_history(self, *, agent: Id, entry: Id) -> list[MemoryRevision]:
        """Every revision of ``entry``."""
        return self._call(F.memory_history, agent=agent, entry=entry)

    def share(self, *, agent: Id, entry: Id, revision: int, conversation: Id) -> None:
        """Grant one revision to one conversation (operator)."""
        return self._call(
            F.share, agent=agent, entry=entry, revision=revision, conversation=conversation
        )

    def unshare(self, *, agent: Id, entry: Id, revision: int, conversation: Id) -> None:
        """Withdraw a sharing grant (operator)."""
        return self._call(
            F.unshare, agent=agent, entry=entry, revision=revision, conversation=conversation
        )

    def redact(self, *, agent: Id, entry: Id, reason: str) -> None:
        """Erase the text of every revision of ``entry`` (operator, audited)."""
        return self._call(F.redact, agent=agent, entry=entry, reason=reason)

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
        return self._call(
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
        ``match`` to ``'any'`` in SQL."""
        return self._call(
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

    def attach_embedding(
        self, *, agent: Id, entry: Id, revision: int, model: str, embedding: Sequence[float]
    ) -> None:
        """Attach the embedding of one revision computed with ``model`` (needs pgvector)."""
        return self._call(
            F.attach_embedding,
            agent=agent,
            entry=entry,
            revision=revision,
            model=model,
            embedding=list(embedding),
        )

    def pending_embeddings(
        self, *, agent: Id, model: str, max_results: int | None = None
    ) -> list[PendingEmbedding]:
        """Current live revisions without an embedding of ``model``, oldest first."""
        return self._call(F.pending_embeddings, agent=agent, model=model, max_results=max_results)

    def embed_pending(self, *, agent: Id, model: str | None = None, batch: int = 100) -> int:
        """Fill :meth:`pending_embeddings` with the store's ``embedder``: embed the bodies
        in batches and attach each embedding; returns how many were attached. The
        embedder is the runtime's own model (nothing is bundled or downloaded)."""
        model = model or self._embedding_model
        if self._embedder is None or not model:
            raise ValueError("embed_pending needs a store made with embedder= and a model")
        done = 0
        while True:
            rows = self.pending_embeddings(agent=agent, model=model, max_results=batch)
            if not rows:
                return done
            vectors = self._embed([r.body for r in rows])
            for row, vector in zip(rows, vectors, strict=True):
                self.attach_embedding(
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

    def start_run(
        self,
        *,
        agent: Id,
        conversation: Id | None = None,
        trigger_message: Id | None = None,
        budget: JSON | None = None,
    ) -> UUID:
        """Start a run; ``budget`` (limits) defaults to ``{}`` in SQL."""
        return self._call(
            F.start_run,
            agent=agent,
            conversation=conversation,
            trigger_message=trigger_message,
            budget=budget,
        )

    def snapshot_prompt(
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
        return self._call(
            F.snapshot_prompt,
            agent=agent,
            run=run,
            prompt=prompt,
            persona_revision=persona_revision,
            memory=memory,
            messages=messages,
        )

    def snapshot_sources(self, *, agent: Id, snapshot: Id) -> list[SnapshotSource]:
        """The source rows a prompt snapshot used."""
        return self._call(F.snapshot_sources, agent=agent, snapshot=snapshot)

    def record_model_call(
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
        return self._call(
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

    def record_tool_call(
        self,
        *,
        agent: Id,
        run: Id,
        tool: str,
        input: JSON,
        model_call: Id | None = None,
    ) -> UUID:
        """Record a tool call (charges one ``tool_calls`` unit)."""
        return self._call(
            F.record_tool_call,
            agent=agent,
            run=run,
            tool=tool,
            input=input,
            model_call=model_call,
        )

    def record_tool_result(self, *, agent: Id, tool_call: Id, output: JSON, status: str) -> None:
        """Record a tool result: ``status`` is ``ok``, ``error`` or ``unconfirmed``."""
        return self._call(
            F.record_tool_result, agent=agent, tool_call=tool_call, output=output, status=status
        )

    def checkpoint(self, *, agent: Id, run: Id, frontier: JSON) -> int:
        """Append an execution frontier; returns its number within the run."""
        return self._call(F.checkpoint, agent=agent, run=run, frontier=frontier)

    def record_turn(
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
        return self._call(
            F.record_turn, agent=agent, run=run, prompt=prompt, provider=provider, model=model,
            request=request, response=response, usage=usage, status=status,
            persona_revision=persona_revision, memory=memory,
            messages=None if messages is None else list(messages), tool_calls=tool_calls,
            frontier=frontier,
        )  # fmt: skip

    def finish_run(self, *, agent: Id, run: Id, outcome: str, detail: JSON | None = None) -> None:
        """Finish a run: ``succeeded``, ``failed``, ``cancelled`` or ``handed_off``."""
        return self._call(F.finish_run, agent=agent, run=run, outcome=outcome, detail=detail)

    def continue_run(
        self, *, agent: Id, run: Id, task_context: JSON, budget: JSON | None = None
    ) -> UUID:
        """A new run continuing ``run``; spent budget carries over."""
        return self._call(
            F.continue_run, agent=agent, run=run, task_context=task_context, budget=budget
        )

    def recover_run(self, *, agent: Id, run: Id) -> dict[str, Any]:
        """What a runtime needs to resume ``run`` (current persona and grants)."""
        return self._call(F.recover_run, agent=agent, run=run)

    # -- Section 8: tool grants -----------------------------------------------------------

    def register_tool(self, *, name: str, version: str, config_schema: JSON) -> None:
        """Register a deployment-wide tool contract (operator)."""
        return self._call(F.register_tool, name=name, version=version, config_schema=config_schema)

    def grant_tool(self, *, agent: Id, tool: str, enabled: bool, config: JSON | None = None) -> int:
        """A new grant revision for ``agent`` and ``tool`` (operator)."""
        return self._call(F.grant_tool, agent=agent, tool=tool, enabled=enabled, config=config)

    def authorize_tool(self, *, agent: Id, tool: str) -> ToolAuthorization:
        """Check ``tool`` may be used now; raises :class:`PermissionDenied` if not."""
        return self._call(F.authorize_tool, agent=agent, tool=tool)

    def tool_grant_history(self, *, agent: Id, tool: str) -> list[ToolGrantRevision]:
        """Every grant revision of ``tool`` for ``agent``."""
        return self._call(F.tool_grant_history, agent=agent, tool=tool)

    # -- Section 2: lifecycle -------------------------------------------------------------

    def verify(self) -> list[Violation]:
        """Every invariant the triggers hold, checked over the stored rows (operator);
        an empty list means all hold."""
        return self._call(F.verify)

    # -- Section 12: integrations (used by agent_state.integrations.langgraph) -----------

    def graph_put(
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
        return self._call(
            F.graph_put, agent=agent, thread_id=thread_id, checkpoint_ns=checkpoint_ns,
            checkpoint_id=checkpoint_id, parent_checkpoint_id=parent_checkpoint_id,
            payload_type=payload_type, payload=payload, metadata=metadata,
        )  # fmt: skip

    def graph_put_writes(
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
        return self._call(
            F.graph_put_writes, agent=agent, thread_id=thread_id, checkpoint_ns=checkpoint_ns,
            checkpoint_id=checkpoint_id, task_id=task_id, task_path=task_path, idxs=list(idxs),
            channels=list(channels), value_types=list(value_types),
            writes_values=list(writes_values),
        )  # fmt: skip

    def graph_list(
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
        return self._call(
            F.graph_list, agent=agent, thread=thread, namespace=namespace, checkpoint=checkpoint,
            filter=filter, before=before, max_results=max_results,
        )  # fmt: skip

    def graph_delete_thread(self, *, agent: Id, thread_id: str, reason: str | None = None) -> int:
        """Remove a thread's checkpoint payloads through an audited purge record."""
        return self._call(F.graph_delete_thread, agent=agent, thread_id=thread_id, reason=reason)

    def graph_delete_for_runs(
        self, *, agent: Id, graph_run_ids: Sequence[str], reason: str | None = None
    ) -> int:
        """Remove the checkpoints of some LangGraph runs through audited purge records."""
        return self._call(
            F.graph_delete_for_runs, agent=agent, graph_run_ids=list(graph_run_ids), reason=reason
        )

    def graph_prune(
        self,
        *,
        agent: Id,
        thread_ids: Sequence[str],
        strategy: str | None = None,
        reason: str | None = None,
    ) -> int:
        """Prune threads (keep_latest or delete) through audited purge records."""
        return self._call(
            F.graph_prune, agent=agent, thread_ids=list(thread_ids), strategy=strategy,
            reason=reason,
        )  # fmt: skip

    def graph_copy_thread(self, *, agent: Id, source_thread_id: str, target_thread_id: str) -> int:
        """Copy a thread's checkpoints and writes to another thread of the agent."""
        return self._call(
            F.graph_copy_thread, agent=agent, source_thread_id=source_thread_id,
            target_thread_id=target_thread_id,
        )  # fmt: skip

    def memory_entry(
        self,
        *,
        agent: Id,
        entry: Id,
        as_of: datetime | None = None,
        conversation: Id | None = None,
    ) -> MemoryState | None:
        """One entry's state by id (with ``conversation``: only when eligible there)."""
        return self._call(
            F.memory_entry, agent=agent, entry=entry, as_of=as_of, conversation=conversation
        )

    def graph_item_put(
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
        return self._call(
            F.graph_item_put, agent=agent, namespace=list(namespace), key=key, value=value,
            body=body, message=message,
        )  # fmt: skip

    def graph_item_delete(self, *, agent: Id, namespace: Sequence[str], key: str) -> bool:
        """Forget a LangGraph store item's entry; False when there is no live item."""
        return self._call(F.graph_item_delete, agent=agent, namespace=list(namespace), key=key)

    def graph_item_search(
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
        return self._call(
            F.graph_item_search, agent=agent, namespace_prefix=list(namespace_prefix),
            query=query, filter=filter, max_results=max_results, skip=skip,
            conversation=conversation, item_key=item_key,
        )  # fmt: skip

    def graph_list_namespaces(
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
        return self._call(
            F.graph_list_namespaces, agent=agent,
            prefix=None if prefix is None else list(prefix),
            suffix=None if suffix is None else list(suffix),
            max_depth=max_depth, max_results=max_results, skip=skip,
        )  # fmt: skip

    # -- Section 9: views and export ------------------------------------------------------

    def export_markdown(self, *, agent: Id) -> str:
        """A deterministic markdown view of the agent's state."""
        return self._call(F.export_markdown, agent=agent)

    def import_markdown(self, *, agent: Id, document: str) -> int:
        """Import a markdown memory file as ``import`` entries (operator)."""
        return self._call(F.import_markdown, agent=agent, document=document)
