"""How a call to a stored function is built and its rows turned into a result.

:mod:`agent_state._functions` (generated from the catalog) describes every function
with these classes; :class:`~agent_state.Store` and :class:`~agent_state.AsyncStore`
run the queries :meth:`Fn.build` composes.

Every call is ``SELECT * FROM agent_state.<function>(<name> => %s::<type>, ...)``:
named notation, an explicit cast on every argument, and only the arguments the
caller gave (an optional argument left as ``None`` is omitted so that the SQL
default applies).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeAlias, TypeVar, cast
from uuid import UUID

from psycopg import sql
from psycopg.rows import RowFactory, class_row, tuple_row
from psycopg.types.json import Jsonb

from .errors import InvalidArgument

__all__ = [
    "JSON",
    "Fn",
    "Id",
    "Many",
    "MaybeOne",
    "One",
    "Param",
    "R",
    "Scalar",
    "Shape",
    "Void",
    "is_uuid_text",
]

Id: TypeAlias = UUID | str
"""A uuid argument: a :class:`uuid.UUID` or its text form (cast server-side)."""

JSON: TypeAlias = Any
"""A jsonb argument: anything :class:`psycopg.types.json.Jsonb` can dump."""

SCHEMA = "agent_state"

# The text PostgreSQL's uuid input accepts (uuid.c, string_to_uuid): 32 hex digits,
# a hyphen allowed after any group of four but the last, the whole optionally in braces.
_UUID_TEXT = re.compile(
    r"\{[0-9A-Fa-f]{4}(?:-?[0-9A-Fa-f]{4}){7}\}|[0-9A-Fa-f]{4}(?:-?[0-9A-Fa-f]{4}){7}"
)


def is_uuid_text(value: str) -> bool:
    """Does PostgreSQL read ``value`` as a uuid?"""
    return _UUID_TEXT.fullmatch(value) is not None


def _not_a_uuid(argument: str, value: str) -> InvalidArgument:
    # Quoted by its first 64 characters at most, as the SQL functions quote a value.
    shown = repr(value[:64]) + ("..." if len(value) > 64 else "")
    return InvalidArgument(f"{argument}: not a uuid: {shown}", sqlstate="22P02")


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
        if self.type == "uuid" and isinstance(value, str) and not is_uuid_text(value):
            # The server's 22P02 would not say which argument it was.
            raise _not_a_uuid(self.name, value)
        if self.type in ("jsonb", "json"):
            return value if isinstance(value, Jsonb) else Jsonb(value)
        if self.type == "regrole" and isinstance(value, str):
            # A role *name* (as in pg_roles.rolname), quoted so that regrole input keeps
            # its case and any special characters.
            return '"' + value.replace('"', '""') + '"'
        if self.type == "uuid[]":
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise TypeError(f"{self.name}: expected a sequence of UUIDs")
            # Sent as text[] and cast server-side; a malformed id is refused here, by
            # its argument and position (22P02, as the server would).
            items = [None if v is None else str(v) for v in value]
            for i, item in enumerate(items):
                if item is not None and not is_uuid_text(item):
                    raise _not_a_uuid(f"{self.name}[{i + 1}]", item)
            return items
        if self.type.endswith("[]"):
            # A str or bytes is a Sequence too: sent as a list it would become an
            # array of its characters or byte values.
            if isinstance(value, (str, bytes)):
                raise TypeError(f"{self.name}: expected a sequence, not {type(value).__name__}")
            if self.type == "real[]":
                return _real_array(cast(Sequence[object], value))
            # psycopg dumps a list as an array (not a tuple, generator or numpy array).
            return list(cast(Sequence[object], value))
        return value


def _real_array(value: Sequence[object]) -> object:
    """An embedding as the text of a real[] (cast server-side): psycopg dumps a list
    element by element, about twice the time of the call itself for 384 floats.
    Each number is rounded to float4 here, once, as the server's cast of a float8
    list rounds it; the shortest text of that value reads back as exactly it.
    Anything else (a bool, a non-number, a value beyond float4) is sent as the
    list, for the server to refuse as before."""
    items = list(value)
    parts = []
    for v in items:
        if v is None:
            parts.append("NULL")
            continue
        if isinstance(v, bool):
            return items
        try:
            double = float(cast(float, v))
            single = struct.unpack("f", struct.pack("f", double))[0]
        except (TypeError, ValueError, OverflowError):
            return items
        if math.isinf(single) and not math.isinf(double):
            return items  # beyond float4: the server's cast raises 22003
        parts.append(repr(single))
    return "{" + ",".join(parts) + "}"


@dataclass(frozen=True)
class Fn(Generic[R]):
    """A stored function: name, input parameters in order, result type and shape."""

    name: str
    params: tuple[Param, ...]
    result: str
    """The result type as ``pg_get_function_result`` prints it."""
    shape: Shape[R]
    writes: bool = False
    """May change an agent's history (volatile, with an ``agent`` parameter)."""
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
