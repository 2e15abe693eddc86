"""One table describing every stored function the wrapper calls.

:class:`~agent_state.Store` and :class:`~agent_state.AsyncStore` both build their
queries from these descriptions, so the two cannot drift from each other; the
signature test compares the table (and both classes) with ``pg_proc``.

Every call is ``SELECT * FROM agent_state.<function>(<name> => %s::<type>, ...)``:
named notation, an explicit cast on every argument, and only the arguments the
caller gave (an optional argument left as ``None`` is omitted so that the SQL
default applies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast
from uuid import UUID

from psycopg import sql
from psycopg.rows import RowFactory, class_row, tuple_row
from psycopg.types.json import Jsonb

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

SCHEMA = "agent_state"

R = TypeVar("R")
D = TypeVar("D")


class Shape(Generic[R]):
    """How the rows of a call become the Python result."""

    row_factory: RowFactory[Any]

    def extract(self, rows: list[Any]) -> R:
        raise NotImplementedError


class Scalar(Shape[R]):
    """A function returning one value (``uuid``, ``int``, ``text``, ``jsonb``)."""

    def __init__(self) -> None:
        self.row_factory = tuple_row

    def extract(self, rows: list[Any]) -> R:
        return cast(R, rows[0][0])


class Void(Shape[None]):
    """A function returning ``void``."""

    def __init__(self) -> None:
        self.row_factory = tuple_row

    def extract(self, rows: list[Any]) -> None:
        return None


class One(Shape[D]):
    """A set-returning function that always returns exactly one row."""

    def __init__(self, cls: type[D]) -> None:
        self.cls = cls
        self.row_factory = class_row(cls)

    def extract(self, rows: list[Any]) -> D:
        return cast(D, rows[0])


class MaybeOne(Shape["D | None"]):
    """A set-returning function returning at most one row."""

    def __init__(self, cls: type[D]) -> None:
        self.cls = cls
        self.row_factory = class_row(cls)

    def extract(self, rows: list[Any]) -> D | None:
        return cast(D, rows[0]) if rows else None


class Many(Shape[list[D]]):
    """A set-returning function: a list of rows."""

    def __init__(self, cls: type[D]) -> None:
        self.cls = cls
        self.row_factory = class_row(cls)

    def extract(self, rows: list[Any]) -> list[D]:
        return cast(list[D], rows)


@dataclass(frozen=True)
class Param:
    """An input parameter: its SQL name, the type it is cast to, whether it has a default."""

    name: str
    type: str
    default: bool = False

    def adapt(self, value: object) -> object:
        if value is None:
            return None
        if self.type in ("jsonb", "json"):
            return value if isinstance(value, Jsonb) else Jsonb(value)
        if self.type == "regrole" and isinstance(value, str):
            # A role *name* (as in pg_roles.rolname), quoted so that regrole input keeps
            # its case and any special characters.
            return '"' + value.replace('"', '""') + '"'
        if self.type == "uuid[]":
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise TypeError(f"{self.name}: expected a sequence of UUIDs")
            # Sent as text[] and cast server-side, so a malformed id raises 22P02.
            return [None if v is None else str(v) for v in value]
        return value


@dataclass(frozen=True)
class Fn(Generic[R]):
    """A stored function: name, input parameters in order, result type and shape."""

    name: str
    params: tuple[Param, ...]
    result: str
    """The result type as ``pg_get_function_result`` prints it."""
    shape: Shape[R]
    _queries: dict[tuple[str, ...], sql.SQL] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def build(self, args: Mapping[str, object]) -> tuple[sql.SQL, list[object]]:
        """The query and parameters for a call with ``args`` (every parameter by name)."""
        unknown = set(args) - {p.name for p in self.params}
        if unknown:
            raise TypeError(f"{self.name}: unexpected arguments {sorted(unknown)}")
        sent: list[str] = []
        values: list[object] = []
        for p in self.params:
            value = args.get(p.name)
            if value is None and p.default:
                continue
            sent.append(p.name)
            values.append(p.adapt(value))
        key = tuple(sent)
        query = self._queries.get(key)
        if query is None:
            query = self._queries[key] = self._compose(key)
        return query, values

    def _compose(self, names: tuple[str, ...]) -> sql.SQL:
        # Composed once per combination of given arguments. Names and types come from
        # the table below (not from callers); identifiers are quoted like
        # psycopg.sql.Identifier does, without needing a connection (psycopg 3.1).
        types = {p.name: p.type for p in self.params}
        args = ", ".join(f"{_ident(name)} => %s::{types[name]}" for name in names)
        return sql.SQL(f"SELECT * FROM {_ident(SCHEMA)}.{_ident(self.name)}({args})")


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _p(spec: str) -> Param:
    """``"name type"`` or ``"name type = default"`` (the default itself lives in SQL)."""
    decl, _, default = spec.partition("=")
    name, _, type_ = decl.strip().partition(" ")
    return Param(name, type_.strip(), bool(default.strip()))


def _fn(name: str, params: str, result: str, shape: Shape[R]) -> Fn[R]:
    ps = tuple(_p(s) for s in params.split(",") if s.strip())
    return Fn(name, ps, result, shape)


_RECALL_RESULT = (
    "TABLE(entry uuid, revision integer, body text, subject uuid, score double precision, "
    "text_rank double precision, subject_match boolean, age interval)"
)

# fmt: off
version = _fn("version", "", "text", Scalar[str]())

# Section 3: agents and hosting
create_agent = _fn(
    "create_agent", "handle text, display_name text = null, settings jsonb = '{}'",
    "uuid", Scalar[UUID]())
grant_hosting = _fn("grant_hosting", "agent uuid, host regrole", "void", Void())
revoke_hosting = _fn("revoke_hosting", "agent uuid, host regrole", "void", Void())

# Section 4: actors, identities, conversations, messages
resolve_actor = _fn(
    "resolve_actor",
    "agent uuid, connector text, external_id text, display_name text = null, kind text = human",
    "uuid", Scalar[UUID]())
link_identity = _fn(
    "link_identity", "agent uuid, actor uuid, connector text, external_id text",
    "void", Void())
open_conversation = _fn(
    "open_conversation", "agent uuid, connector text, external_ref text, kind text = group",
    "uuid", Scalar[UUID]())
record_message = _fn(
    "record_message",
    "agent uuid, conversation uuid, author uuid, body text, audience uuid[] = null,"
    " external_ref text = null, observed_at timestamp with time zone = now()",
    "uuid", Scalar[UUID]())

# Section 5: persona
revise_persona = _fn(
    "revise_persona", "agent uuid, body text, activate boolean = true",
    "integer", Scalar[int]())
activate_persona = _fn("activate_persona", "agent uuid, revision integer", "void", Void())
active_persona = _fn(
    "active_persona", "agent uuid, as_of timestamp with time zone = null",
    "TABLE(revision integer, body text, activated_at timestamp with time zone)",
    MaybeOne(ActivePersona))
persona_history = _fn(
    "persona_history", "agent uuid",
    "TABLE(revision integer, body text, created_at timestamp with time zone,"
    " created_by text, is_active boolean)",
    Many(PersonaRevision))

# Section 6: memory
remember = _fn(
    "remember",
    "agent uuid, body text, source_message uuid, subject uuid = null,"
    " visibility text = perspective",
    "TABLE(entry uuid, revision integer)", One(MemoryRef))
remember_many = _fn(
    "remember_many", "agent uuid, memories jsonb", "TABLE(entry uuid, revision integer)",
    Many(MemoryRef))
note = _fn(
    "note", "agent uuid, body text, subject uuid = null",
    "TABLE(entry uuid, revision integer)", One(MemoryRef))
amend = _fn(
    "amend",
    "agent uuid, entry uuid, body text, expected_revision integer,"
    " source_message uuid = null, subject uuid = null, visibility text = null",
    "integer", Scalar[int]())
forget = _fn(
    "forget", "agent uuid, entry uuid, expected_revision integer = null, reason text = null",
    "integer", Scalar[int]())
memory_history = _fn(
    "memory_history", "agent uuid, entry uuid",
    "TABLE(revision integer, operation text, body text, subject uuid, visibility text,"
    " source_type text, source_actor uuid, source_messages uuid[],"
    " created_at timestamp with time zone)",
    Many(MemoryRevision))
share = _fn(
    "share", "agent uuid, entry uuid, revision integer, conversation uuid", "void", Void())
unshare = _fn(
    "unshare", "agent uuid, entry uuid, revision integer, conversation uuid", "void", Void())
redact = _fn("redact", "agent uuid, entry uuid, reason text", "void", Void())
recall = _fn(
    "recall",
    "agent uuid, query text, conversation uuid = null, current_subject uuid = null,"
    " max_results integer = 10, as_of timestamp with time zone = null, match text = 'all',"
    " query_embedding real[] = null, embedding_model text = null",
    _RECALL_RESULT, Many(RecallHit))
context_for = _fn(
    "context_for",
    "agent uuid, conversation uuid, message uuid = null, max_results integer = 20,"
    " match text = 'any', query_embedding real[] = null, embedding_model text = null",
    _RECALL_RESULT, Many(RecallHit))
attach_embedding = _fn(
    "attach_embedding", "agent uuid, entry uuid, revision integer, model text, embedding real[]",
    "void", Void())
pending_embeddings = _fn(
    "pending_embeddings", "agent uuid, model text, max_results integer = 100",
    "TABLE(entry uuid, revision integer, body text)", Many(PendingEmbedding))

# Section 7: execution state
start_run = _fn(
    "start_run",
    "agent uuid, conversation uuid = null, trigger_message uuid = null, budget jsonb = '{}'",
    "uuid", Scalar[UUID]())
snapshot_prompt = _fn(
    "snapshot_prompt",
    "agent uuid, run uuid, prompt text, persona_revision integer = null,"
    " memory jsonb = '[]', messages uuid[] = '{}'",
    "uuid", Scalar[UUID]())
snapshot_sources = _fn(
    "snapshot_sources", "agent uuid, snapshot uuid",
    "TABLE(kind text, entry uuid, revision integer, message uuid, persona_revision integer)",
    Many(SnapshotSource))
record_model_call = _fn(
    "record_model_call",
    "agent uuid, run uuid, snapshot uuid, provider text, model text, request jsonb,"
    " response jsonb = null, usage jsonb = '{}', status text = ok",
    "uuid", Scalar[UUID]())
record_tool_call = _fn(
    "record_tool_call",
    "agent uuid, run uuid, tool text, input jsonb, model_call uuid = null",
    "uuid", Scalar[UUID]())
record_tool_result = _fn(
    "record_tool_result", "agent uuid, tool_call uuid, output jsonb, status text",
    "void", Void())
checkpoint = _fn(
    "checkpoint", "agent uuid, run uuid, frontier jsonb", "integer", Scalar[int]())
record_turn = _fn(
    "record_turn",
    "agent uuid, run uuid, prompt text, provider text, model text, request jsonb,"
    " response jsonb = null, usage jsonb = '{}', status text = 'ok',"
    " persona_revision integer = null, memory jsonb = '[]', messages uuid[] = '{}',"
    " tool_calls jsonb = '[]', frontier jsonb = null",
    "jsonb", Scalar[dict[str, Any]]())
finish_run = _fn(
    "finish_run", "agent uuid, run uuid, outcome text, detail jsonb = '{}'", "void", Void())
continue_run = _fn(
    "continue_run", "agent uuid, run uuid, task_context jsonb, budget jsonb = null",
    "uuid", Scalar[UUID]())
recover_run = _fn("recover_run", "agent uuid, run uuid", "jsonb", Scalar[dict[str, Any]]())

# Section 8: tool grants
register_tool = _fn(
    "register_tool", "name text, version text, config_schema jsonb", "void", Void())
grant_tool = _fn(
    "grant_tool", "agent uuid, tool text, enabled boolean, config jsonb = '{}'",
    "integer", Scalar[int]())
authorize_tool = _fn(
    "authorize_tool", "agent uuid, tool text",
    "TABLE(revision integer, config jsonb)", One(ToolAuthorization))
tool_grant_history = _fn(
    "tool_grant_history", "agent uuid, tool text",
    "TABLE(revision integer, enabled boolean, config jsonb,"
    " created_at timestamp with time zone, created_by text)",
    Many(ToolGrantRevision))

# Section 2: lifecycle
verify = _fn(
    "verify", "", "TABLE(check_name text, object text, detail text)", Many(Violation))

# Section 12: integrations (the LangGraph checkpointer)
graph_put = _fn(
    "graph_put",
    "agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text,"
    " parent_checkpoint_id text, payload_type text, payload bytea, metadata jsonb",
    "void", Void())
graph_put_writes = _fn(
    "graph_put_writes",
    "agent uuid, thread_id text, checkpoint_ns text, checkpoint_id text, task_id text,"
    " task_path text, idxs integer[], channels text[], value_types text[], writes_values bytea[]",
    "void", Void())
graph_list = _fn(
    "graph_list",
    "agent uuid, thread text = null, namespace text = null, checkpoint text = null,"
    " filter jsonb = null, before text = null, max_results integer = null",
    "TABLE(thread_id text, checkpoint_ns text, checkpoint_id text, parent_checkpoint_id text,"
    " payload_type text, payload bytea, metadata jsonb, run_id uuid, write_task_ids text[],"
    " write_channels text[], write_types text[], write_values bytea[])",
    Many(GraphCheckpoint))
graph_delete_thread = _fn(
    "graph_delete_thread", "agent uuid, thread_id text, reason text = 'delete_thread'",
    "integer", Scalar[int]())
graph_delete_for_runs = _fn(
    "graph_delete_for_runs", "agent uuid, graph_run_ids text[], reason text = 'delete_for_runs'",
    "integer", Scalar[int]())
graph_prune = _fn(
    "graph_prune",
    "agent uuid, thread_ids text[], strategy text = 'keep_latest', reason text = null",
    "integer", Scalar[int]())
graph_copy_thread = _fn(
    "graph_copy_thread", "agent uuid, source_thread_id text, target_thread_id text",
    "integer", Scalar[int]())

# Section 12: integrations (the LangGraph store)
memory_entry = _fn(
    "memory_entry",
    "agent uuid, entry uuid, as_of timestamp with time zone = null, conversation uuid = null",
    "TABLE(revision integer, body text, subject uuid, visibility text, source_type text,"
    " live boolean, created_at timestamp with time zone, revised_at timestamp with time zone)",
    MaybeOne(MemoryState))
graph_item_put = _fn(
    "graph_item_put",
    "agent uuid, namespace text[], key text, value jsonb, body text, message uuid = null",
    "TABLE(entry uuid, revision integer)", One(MemoryRef))
graph_item_delete = _fn(
    "graph_item_delete", "agent uuid, namespace text[], key text", "boolean", Scalar[bool]())
graph_item_search = _fn(
    "graph_item_search",
    "agent uuid, namespace_prefix text[], query text = null, filter jsonb = null,"
    " max_results integer = 10, skip integer = 0, conversation uuid = null, item_key text = null",
    "TABLE(namespace text[], key text, value jsonb, created_at timestamp with time zone,"
    " updated_at timestamp with time zone, score double precision)",
    Many(GraphItem))
graph_list_namespaces = _fn(
    "graph_list_namespaces",
    "agent uuid, prefix text[] = null, suffix text[] = null, max_depth integer = null,"
    " max_results integer = 100, skip integer = 0",
    "TABLE(namespace text[])", Many(GraphNamespace))

# Section 9: views and export
export_markdown = _fn("export_markdown", "agent uuid", "text", Scalar[str]())
import_markdown = _fn(
    "import_markdown", "agent uuid, document text", "integer", Scalar[int]())
# fmt: on

FUNCTIONS: dict[str, Fn[Any]] = {f.name: f for f in globals().copy().values() if isinstance(f, Fn)}
"""Every function the wrapper calls, by name."""
