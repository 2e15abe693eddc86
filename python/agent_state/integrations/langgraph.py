"""LangGraph on agent_state: the checkpointer (``AgentStateSaver`` /
``AsyncAgentStateSaver``) and the store (``AgentStateStore`` / ``AsyncAgentStateStore``).

Install with the ``langgraph`` extra. A saver is bound to one agent: every checkpoint
is a row of that agent, behind row-level security and composite keys like all of
agent_state, and every call binds the perspective (a role that may not act for the
agent gets :class:`agent_state.PermissionDenied` at the first call). No session state
is used, so the saver works behind a transaction pooler (PgBouncer): pass a connection
or pool with ``prepare_threshold=None`` where the pooler needs it.

What maps to what (SPEC section 12):

- a thread is a conversation of the agent (connector ``langgraph``);
- a LangGraph run (``run_id`` in a checkpoint's metadata) is an agent_state run that
  continues the thread's previous one, so the thread's budget carries over, and every
  checkpoint is recorded as that run's frontier: ``recover_run`` returns the resume
  point and the unconfirmed tool calls;
- ``delete_thread``, ``delete_for_runs`` and ``prune`` remove checkpoint payloads only
  through an audited, append-only purge record (who, when, why, which checkpoints);
  the run ledger never loses a row.

Reads (``get_tuple``, ``list``) are one round trip each and never write, so they work
on a standby.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path

from ..aio import AsyncStore
from ..errors import InvalidArgument
from ..results import GraphCheckpoint, GraphItem
from ..store import Store

__all__ = ["AgentStateSaver", "AgentStateStore", "AsyncAgentStateSaver", "AsyncAgentStateStore"]


def _metadata(config: RunnableConfig, metadata: CheckpointMetadata) -> dict[str, Any]:
    """The checkpoint metadata as a JSON object (kept as jsonb, for list filters)."""
    md = dict(get_serializable_checkpoint_metadata(config, metadata))
    for key, value in md.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError) as e:
            raise InvalidArgument(f"metadata.{key}: not JSON-serializable ({e})") from e
    return md


def _writes(
    writes: Sequence[tuple[str, Any]], serde: SerializerProtocol
) -> tuple[list[int], list[str], list[str], list[bytes]]:
    idxs, channels, types, values = [], [], [], []
    for idx, (channel, value) in enumerate(writes):
        kind, blob = serde.dumps_typed(value)
        idxs.append(WRITES_IDX_MAP.get(channel, idx))
        channels.append(channel)
        types.append(kind)
        values.append(blob)
    return idxs, channels, types, values


def _tuple(row: GraphCheckpoint, serde: SerializerProtocol) -> CheckpointTuple:
    checkpoint: Checkpoint = serde.loads_typed((row.payload_type, row.payload))
    writes = []
    if row.write_task_ids:
        assert row.write_channels and row.write_types and row.write_values
        for task_id, channel, kind, blob in zip(
            row.write_task_ids, row.write_channels, row.write_types, row.write_values, strict=True
        ):
            writes.append((task_id, channel, serde.loads_typed((kind, bytes(blob)))))
    conf = {"thread_id": row.thread_id, "checkpoint_ns": row.checkpoint_ns}
    return CheckpointTuple(
        config={"configurable": {**conf, "checkpoint_id": row.checkpoint_id}},
        checkpoint=checkpoint,
        metadata=row.metadata,  # type: ignore[arg-type]
        parent_config=(
            {"configurable": {**conf, "checkpoint_id": row.parent_checkpoint_id}}
            if row.parent_checkpoint_id
            else None
        ),
        pending_writes=writes,
    )


def _put_args(
    agent: Any,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    serde: Any,
) -> tuple[dict[str, Any], RunnableConfig]:
    """graph_put's arguments for a checkpoint, and the config that names it (the
    sync and async savers' put)."""
    thread_id, ns = _target(config)
    kind, blob = serde.dumps_typed(checkpoint)
    args = {
        "agent": agent, "thread_id": thread_id, "checkpoint_ns": ns,
        "checkpoint_id": checkpoint["id"],
        "parent_checkpoint_id": config["configurable"].get("checkpoint_id"),
        "payload_type": kind, "payload": blob, "metadata": _metadata(config, metadata),
    }  # fmt: skip
    target = {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint["id"]}
    saved: RunnableConfig = {"configurable": target}
    return args, saved


def _put_writes_args(
    agent: Any,
    config: RunnableConfig,
    writes: Sequence[tuple[str, Any]],
    task_id: str,
    task_path: str,
    serde: Any,
) -> dict[str, Any]:
    """graph_put_writes's arguments (the sync and async savers' put_writes)."""
    thread_id, ns = _target(config)
    idxs, channels, types, values = _writes(writes, serde)
    return {
        "agent": agent, "thread_id": thread_id, "checkpoint_ns": ns,
        "checkpoint_id": config["configurable"]["checkpoint_id"], "task_id": task_id,
        "task_path": task_path, "idxs": idxs, "channels": channels, "value_types": types,
        "writes_values": values,
    }  # fmt: skip


def _list_args(
    config: RunnableConfig | None,
    filter: dict[str, Any] | None,
    before: RunnableConfig | None,
    limit: int | None,
) -> dict[str, Any]:
    conf = (config or {}).get("configurable", {})
    return {
        "thread": conf.get("thread_id"),
        "namespace": conf.get("checkpoint_ns"),
        "checkpoint": get_checkpoint_id(config) if config else None,
        "filter": filter or None,
        "before": get_checkpoint_id(before) if before else None,
        "max_results": limit,
    }


def _target(config: RunnableConfig) -> tuple[str, str]:
    conf = config["configurable"]
    return str(conf["thread_id"]), str(conf.get("checkpoint_ns", ""))


class AgentStateSaver(BaseCheckpointSaver[int]):
    """A LangGraph checkpointer bound to one agent (synchronous).

    ``source`` is an :class:`agent_state.Store`, a psycopg connection or pool, or a DSN.
    """

    def __init__(
        self,
        source: Store | Any,
        *,
        agent: UUID | str,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.store = source if isinstance(source, Store) else Store(source)
        self.agent = agent

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        args, saved = _put_args(self.agent, config, checkpoint, metadata, self.serde)
        self.store.graph_put(**args)
        return saved

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.store.graph_put_writes(
            **_put_writes_args(self.agent, config, writes, task_id, task_path, self.serde)
        )

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id, ns = _target(config)
        rows = self.store.graph_list(
            agent=self.agent, thread=thread_id, namespace=ns,
            checkpoint=get_checkpoint_id(config), max_results=1,
        )  # fmt: skip
        return _tuple(rows[0], self.serde) if rows else None

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        rows = self.store.graph_list(agent=self.agent, **_list_args(config, filter, before, limit))
        for row in rows:
            yield _tuple(row, self.serde)

    def delete_thread(self, thread_id: str) -> None:
        self.store.graph_delete_thread(agent=self.agent, thread_id=str(thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.store.graph_delete_for_runs(agent=self.agent, graph_run_ids=[str(r) for r in run_ids])

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.store.graph_copy_thread(
            agent=self.agent,
            source_thread_id=str(source_thread_id),
            target_thread_id=str(target_thread_id),
        )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self.store.graph_prune(
            agent=self.agent, thread_ids=[str(t) for t in thread_ids], strategy=strategy
        )

    # The async API of a synchronous saver runs the same calls (as psycopg's own
    # synchronous savers do not; LangGraph calls them from async graphs).
    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for item in self.list(config, filter=filter, before=before, limit=limit):
            yield item

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.delete_for_runs(run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.copy_thread(source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self.prune(thread_ids, strategy=strategy)


class AsyncAgentStateSaver(BaseCheckpointSaver[int]):
    """A LangGraph checkpointer bound to one agent (asyncio).

    ``source`` is an :class:`agent_state.AsyncStore`, a psycopg async connection or
    pool, or a DSN.
    """

    def __init__(
        self,
        source: AsyncStore | Any,
        *,
        agent: UUID | str,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.store = source if isinstance(source, AsyncStore) else AsyncStore(source)
        self.agent = agent

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        args, saved = _put_args(self.agent, config, checkpoint, metadata, self.serde)
        await self.store.graph_put(**args)
        return saved

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self.store.graph_put_writes(
            **_put_writes_args(self.agent, config, writes, task_id, task_path, self.serde)
        )

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id, ns = _target(config)
        rows = await self.store.graph_list(
            agent=self.agent, thread=thread_id, namespace=ns,
            checkpoint=get_checkpoint_id(config), max_results=1,
        )  # fmt: skip
        return _tuple(rows[0], self.serde) if rows else None

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        rows = await self.store.graph_list(
            agent=self.agent, **_list_args(config, filter, before, limit)
        )
        for row in rows:
            yield _tuple(row, self.serde)

    async def adelete_thread(self, thread_id: str) -> None:
        await self.store.graph_delete_thread(agent=self.agent, thread_id=str(thread_id))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await self.store.graph_delete_for_runs(
            agent=self.agent, graph_run_ids=[str(r) for r in run_ids]
        )

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.store.graph_copy_thread(
            agent=self.agent,
            source_thread_id=str(source_thread_id),
            target_thread_id=str(target_thread_id),
        )

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await self.store.graph_prune(
            agent=self.agent, thread_ids=[str(t) for t in thread_ids], strategy=strategy
        )


# --------------------------------------------------------------------------- store


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, depth first."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _strings(v)]
    return []


def _body(value: Mapping[str, Any], index: Any, default_fields: list[str] | None) -> str:
    """The searchable text of an item (the memory entry's body): the text at its
    indexed fields (``index``, else the store's ``index={"fields": [...]}``), else every
    string in the value, else its JSON."""
    fields = default_fields if index is None else (None if index is False else list(index))
    texts: list[str] = []
    if fields:
        for path in fields:
            if path == "$":
                texts.extend(_strings(value))
            else:
                texts.extend(str(t) for t in get_text_at_path(value, path) if str(t).strip())
    else:
        texts = _strings(value)
    text = "\n".join(texts)
    return text if text.strip() else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _check_value(key: str, value: Mapping[str, Any]) -> None:
    try:
        json.dumps(value)
    except (TypeError, ValueError) as e:
        raise InvalidArgument(f"value of {key!r}: not JSON-serializable ({e})") from e
    except RecursionError as e:
        # As the stores map it for the server's call (errors._mapped).
        raise InvalidArgument(
            f"value of {key!r}: nested too deeply (agent_state accepts 200 levels)"
        ) from e


def _plain_filter(filter: dict[str, Any] | None) -> dict[str, Any] | None:
    """Equality filters only (JSON containment); comparison operators are refused."""
    if not filter:
        return None
    for k, v in filter.items():
        if isinstance(v, dict) and any(str(op).startswith("$") for op in v):
            raise InvalidArgument(f"filter.{k}: comparison operators are not supported")
    return filter


def _item(row: GraphItem, *, search: bool) -> Item:
    if search:
        return SearchItem(
            value=row.value, key=row.key, namespace=tuple(row.namespace),
            created_at=row.created_at, updated_at=row.updated_at, score=row.score,
        )  # fmt: skip
    return Item(
        value=row.value, key=row.key, namespace=tuple(row.namespace),
        created_at=row.created_at, updated_at=row.updated_at,
    )  # fmt: skip


def _conditions(op: ListNamespacesOp) -> tuple[list[str] | None, list[str] | None]:
    prefix = suffix = None
    for c in op.match_conditions or ():
        if c.match_type == "prefix":
            prefix = list(c.path)
        elif c.match_type == "suffix":
            suffix = list(c.path)
    return prefix, suffix


class AgentStateStore(BaseStore):
    """A LangGraph store on agent_state memory, bound to one agent (synchronous).

    Every item is a memory entry: a put of a new key remembers it, a put of an
    existing live key amends it (the value is kept per revision), a delete forgets it
    (its history stays). Provenance comes from the bound message
    (:meth:`bind`): its author and audience are the item's evidence, and eligibility
    decides where it may be recalled. Without a message, an operator's put records an
    operator-authored item with no evidence that no conversation's recall returns,
    and a runtime's put is refused (:class:`agent_state.MissingArgument`): no evidence
    is invented. Reads never write (no TTL: ``supports_ttl = False``); bound to a
    conversation they return only what may enter its context. Search is lexical
    (any word of the query) with equality filters on the value.
    """

    supports_ttl = False

    def __init__(
        self,
        source: Store | Any,
        *,
        agent: UUID | str,
        index: dict[str, Any] | None = None,
        conversation: UUID | str | None = None,
        message: UUID | str | None = None,
    ) -> None:
        self.store = source if isinstance(source, Store) else Store(source)
        self.agent = agent
        self.index = index
        self.conversation = conversation
        self.message = message

    def bind(
        self, *, conversation: UUID | str | None = None, message: UUID | str | None = None
    ) -> AgentStateStore:
        """The same store (and connection) with writes attributed to ``message`` and
        reads restricted to what may enter ``conversation``'s context."""
        return AgentStateStore(
            self.store, agent=self.agent, index=self.index, conversation=conversation,
            message=message,
        )  # fmt: skip

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self.batch(ops)

    def _one(self, op: Op) -> Result:
        name, kwargs, shape = _plan(op, self)
        return shape(getattr(self.store, name)(**kwargs))


class AsyncAgentStateStore(BaseStore):
    """A LangGraph store on agent_state memory, bound to one agent (asyncio); see
    :class:`AgentStateStore`."""

    supports_ttl = False

    def __init__(
        self,
        source: AsyncStore | Any,
        *,
        agent: UUID | str,
        index: dict[str, Any] | None = None,
        conversation: UUID | str | None = None,
        message: UUID | str | None = None,
    ) -> None:
        self.store = source if isinstance(source, AsyncStore) else AsyncStore(source)
        self.agent = agent
        self.index = index
        self.conversation = conversation
        self.message = message

    def bind(
        self, *, conversation: UUID | str | None = None, message: UUID | str | None = None
    ) -> AsyncAgentStateStore:
        """As :meth:`AgentStateStore.bind`."""
        return AsyncAgentStateStore(
            self.store, agent=self.agent, index=self.index, conversation=conversation,
            message=message,
        )  # fmt: skip

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        raise NotImplementedError("AsyncAgentStateStore is asynchronous: use abatch")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [await self._one(op) for op in ops]

    async def _one(self, op: Op) -> Result:
        name, kwargs, shape = _plan(op, self)
        return shape(await getattr(self.store, name)(**kwargs))


def _plan(
    op: Op, on: AgentStateStore | AsyncAgentStateStore
) -> tuple[str, dict[str, Any], Callable[[Any], Result]]:
    """One store operation as a call of the stores' API: the method's name, its
    arguments and how its rows become the result. The same for the sync and the
    async store, which only differ in awaiting the call."""
    validate_op_namespace(op)
    agent = on.agent
    if isinstance(op, GetOp):
        return "graph_item_search", {
            "agent": agent, "namespace_prefix": op.namespace, "item_key": op.key,
            "max_results": 1, "conversation": on.conversation,
        }, lambda rows: _item(rows[0], search=False) if rows else None  # fmt: skip
    if isinstance(op, SearchOp):
        return "graph_item_search", {
            "agent": agent, "namespace_prefix": op.namespace_prefix, "query": op.query or None,
            "filter": _plain_filter(op.filter), "max_results": op.limit, "skip": op.offset,
            "conversation": on.conversation,
        }, lambda rows: [_item(r, search=True) for r in rows]  # fmt: skip
    if isinstance(op, PutOp):
        if op.value is None:
            return "graph_item_delete", {
                "agent": agent, "namespace": op.namespace, "key": op.key,
            }, lambda _: None  # fmt: skip
        _check_value(op.key, op.value)
        fields = (on.index or {}).get("fields") if on.index else None
        return "graph_item_put", {
            "agent": agent, "namespace": op.namespace, "key": op.key, "value": op.value,
            "body": _body(op.value, op.index, fields), "message": on.message,
        }, lambda _: None  # fmt: skip
    if isinstance(op, ListNamespacesOp):
        prefix, suffix = _conditions(op)
        return "graph_list_namespaces", {
            "agent": agent, "prefix": prefix, "suffix": suffix, "max_depth": op.max_depth,
            "max_results": op.limit, "skip": op.offset,
        }, lambda spaces: [tuple(r.namespace) for r in spaces]  # fmt: skip
    raise InvalidArgument(f"unknown store operation {type(op).__name__}")
