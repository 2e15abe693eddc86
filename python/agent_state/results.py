"""Typed results of the stored functions that return rows.

Each dataclass is built by column name from the function's result columns
(psycopg ``class_row``), so a column added, removed or renamed in SQL fails loudly
instead of shifting values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

__all__ = [
    "ActivePersona",
    "AgentSummary",
    "ConversationSummary",
    "ForkOrigin",
    "GraphCheckpoint",
    "GraphItem",
    "GraphNamespace",
    "MemoryRef",
    "MemoryRevision",
    "MemoryState",
    "MemorySummary",
    "PendingEmbedding",
    "PersonaRevision",
    "ProfileRevision",
    "RecallHit",
    "RestoreChange",
    "RunSummary",
    "SessionItem",
    "SessionItemRevision",
    "SnapshotSource",
    "TimelineEvent",
    "ToolAuthorization",
    "ToolGrant",
    "ToolGrantRevision",
    "Violation",
]


@dataclass(frozen=True, slots=True)
class ActivePersona:
    """``active_persona``: the revision active now (or at ``as_of``)."""

    revision: int
    body: str
    activated_at: datetime


@dataclass(frozen=True, slots=True)
class RestoreChange:
    """One row of ``restore_agent``: a revision the restore wrote."""

    kind: str
    object: str | None
    operation: str
    revision: int


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One row of ``list_agents``: an agent the caller may act for."""

    agent: UUID
    handle: str
    display_name: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """One row of ``list_conversations``."""

    conversation: UUID
    connector: str
    external_ref: str
    kind: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One row of ``list_runs``: a run and what it spent."""

    run: UUID
    conversation: UUID | None
    status: str
    continued_from: UUID | None
    created_at: datetime
    finished_at: datetime | None
    spent_tokens: Decimal
    spent_cost_usd: Decimal
    spent_tool_calls: int


@dataclass(frozen=True, slots=True)
class MemorySummary:
    """One row of ``list_memories``: an entry in its current state."""

    entry: UUID
    revision: int
    live: bool
    body: str
    subject: UUID | None
    visibility: str
    source_type: str
    created_at: datetime
    revised_at: datetime


@dataclass(frozen=True, slots=True)
class ForkOrigin:
    """The row of ``fork_origin``: where a fork came from."""

    origin: UUID
    as_of: datetime
    forked_at: datetime
    forked_by: str


@dataclass(frozen=True, slots=True)
class SessionItem:
    """One row of ``session_get_items``: an item of an SDK session."""

    item_no: int
    item: Any


@dataclass(frozen=True, slots=True)
class SessionItemRevision:
    """One row of ``session_item_history``: an item and, if it was retracted, how."""

    item_no: int
    item: Any
    created_at: datetime
    created_by: str
    retracted: str | None
    retracted_at: datetime | None
    retracted_by: str | None


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """One row of ``timeline``: a change of the agent's state."""

    at: datetime
    kind: str
    object: str | None
    operation: str
    revision: int | None
    changed_by: str


@dataclass(frozen=True, slots=True)
class ToolGrant:
    """One row of ``tool_grants``: a tool's grant current at the moment asked for."""

    tool: str
    revision: int
    enabled: bool
    config: Any


@dataclass(frozen=True, slots=True)
class ProfileRevision:
    """One row of ``profile_history``."""

    revision: int
    display_name: str | None
    settings: Any
    created_at: datetime
    created_by: str


@dataclass(frozen=True, slots=True)
class PersonaRevision:
    """One row of ``persona_history``."""

    revision: int
    body: str
    created_at: datetime
    created_by: str
    is_active: bool


@dataclass(frozen=True, slots=True)
class MemoryRef:
    """``remember`` / ``note``: the new entry and its first revision number."""

    entry: UUID
    revision: int


@dataclass(frozen=True, slots=True)
class MemoryRevision:
    """One row of ``memory_history``."""

    revision: int
    operation: str
    body: str
    subject: UUID | None
    visibility: str
    source_type: str
    source_actor: UUID | None
    source_messages: list[UUID] | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One row of ``recall`` or ``context_for``."""

    entry: UUID
    revision: int
    body: str
    subject: UUID | None
    score: float
    text_rank: float
    subject_match: bool
    age: timedelta


@dataclass(frozen=True, slots=True)
class ToolAuthorization:
    """``authorize_tool``: the grant revision a tool call runs under and its config."""

    revision: int
    config: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolGrantRevision:
    """One row of ``tool_grant_history``."""

    revision: int
    enabled: bool
    config: dict[str, Any]
    created_at: datetime
    created_by: str


@dataclass(frozen=True, slots=True)
class SnapshotSource:
    """One row of ``snapshot_sources``: a source row a prompt snapshot used."""

    kind: str
    entry: UUID | None
    revision: int | None
    message: UUID | None
    persona_revision: int | None


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The row of ``chain_head``: an agent's head, to keep outside the database.

    ``digest`` is what ``verify(agent, expected_head)`` takes back; ``position``
    counts the records it covers; ``recorded_at`` is the moment it covers.
    """

    position: int
    digest: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Violation:
    """One row of ``verify``: an invariant that a stored row breaks."""

    check_name: str
    object: str
    detail: str


@dataclass(frozen=True, slots=True)
class PendingEmbedding:
    """One row of ``pending_embeddings``: a revision that has no embedding of a model."""

    entry: UUID
    revision: int
    body: str


@dataclass(frozen=True, slots=True)
class GraphCheckpoint:
    """One row of ``graph_list``: a stored LangGraph checkpoint and its pending writes."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    payload_type: str
    payload: bytes
    metadata: dict[str, Any]
    run_id: UUID
    write_task_ids: list[str] | None
    write_channels: list[str] | None
    write_types: list[str] | None
    write_values: list[bytes] | None


@dataclass(frozen=True, slots=True)
class MemoryState:
    """The row of ``memory_entry``: one entry's current (or past) state."""

    revision: int
    body: str
    subject: UUID | None
    visibility: str
    source_type: str
    live: bool
    created_at: datetime
    revised_at: datetime


@dataclass(frozen=True, slots=True)
class GraphItem:
    """One row of ``graph_item_search``: a LangGraph store item."""

    namespace: list[str]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    score: float | None


@dataclass(frozen=True, slots=True)
class GraphNamespace:
    """One row of ``graph_list_namespaces``."""

    namespace: list[str]
