"""The OpenAI Agents SDK on agent_state: :class:`AgentStateSession`, the SDK's
``Session`` (``get_items``, ``add_items``, ``pop_item``, ``clear_session``, all
``async`` as the SDK defines them) on a conversation of one agent.

Install with the ``openai-agents`` extra::

    from agents import Agent, Runner
    from agent_state.integrations.openai_agents import AgentStateSession

    session = AgentStateSession("user-42", agent=agent_id, dsn="postgresql://...")
    result = await Runner.run(Agent(name="support"), "Hello", session=session)

What maps to what (SPEC section 12):

- a session is the agent's conversation with connector ``openai-agents`` and the
  session id as external reference (kind ``direct``), opened on first use; the same
  session id under another agent is another conversation;
- every item is kept append-only with its full JSON (messages, tool calls, tool
  outputs, reasoning items), numbered in the order it was added;
- ``pop_item`` and ``clear_session`` write audited retractions (who, when, ``pop``
  or ``clear``): the items leave ``get_items`` and stay in
  :meth:`AgentStateSession.item_history`;
- every call binds the agent's perspective in the database: a runtime role that
  does not host the agent gets :class:`agent_state.PermissionDenied`.

For every sequence of calls it returns what the SDK's own ``SQLiteSession`` returns:
``get_items(limit)`` falls back to ``session_settings.limit``, returns the newest
``limit`` items oldest first, nothing for 0 and everything for a negative limit (as
SQLite's ``LIMIT -1``); ``pop_item`` on an empty session returns ``None``. Two things
JSON in PostgreSQL (``jsonb``) does not keep: the order of an object's keys (objects
compare equal) and the sign of ``-0.0``; it refuses ``NaN``, ``Infinity``, the
character U+0000 and lone surrogates in strings (:class:`agent_state.InvalidArgument`),
which SQLite would store. A float written with an exponent (``1e+23``) is sent as its
exact decimal, so it comes back as the same float.

Reads (``get_items``) never write once the session exists, so they work in a
read-only transaction and on a standby; there a session that was never written reads
as empty.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from types import TracebackType
from typing import Any, cast
from uuid import UUID

from agents.items import TResponseInputItem
from agents.memory import SessionSettings
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from ..aio import AsyncStore
from ..errors import Error
from ..results import SessionItemRevision
from ..store import Store

__all__ = ["CONNECTOR", "AgentStateSession"]

CONNECTOR = "openai-agents"
"""The connector of a session's conversation (its external reference is the session id)."""

# session_get_items takes an integer; a larger limit than that means every item.
_MAX_LIMIT = 2**31 - 1
_READ_ONLY = "25006"


class AgentStateSession:
    """The OpenAI Agents SDK's ``Session`` on a conversation of one agent.

    ``store`` is an :class:`agent_state.AsyncStore`, an :class:`agent_state.Store`
    (its calls then run in a worker thread, as the SDK's ``SQLiteSession`` runs
    sqlite3), or a psycopg ``AsyncConnection`` or ``AsyncConnectionPool``; or give
    ``dsn`` (else ``$AGENT_STATE_DSN``, ``$DATABASE_URL`` or libpq's ``PG*``
    variables): the session then opens its own connection on first use, and
    :meth:`close` closes it. ``session_settings`` as for the SDK's sessions (its
    ``limit`` is the default of :meth:`get_items`).
    """

    session_id: str
    session_settings: SessionSettings | None

    def __init__(
        self,
        session_id: str,
        *,
        agent: UUID | str,
        store: AsyncStore | Store | AsyncConnection[Any] | AsyncConnectionPool[Any] | None = None,
        dsn: str | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        if store is not None and dsn is not None:
            raise TypeError("AgentStateSession takes store or dsn, not both")
        self.session_id = session_id
        self.agent = agent
        if isinstance(session_settings, dict):
            session_settings = SessionSettings(**session_settings)
        self.session_settings = session_settings or SessionSettings()
        self._owned = store is None
        self.store: AsyncStore | Store
        if isinstance(store, (AsyncStore, Store)):
            self.store = store
        elif store is None:
            self.store = AsyncStore(dsn or "")
        else:
            self.store = AsyncStore(store)
        self._conversation: UUID | None = None

    # -- the SDK's Session ----------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items (not popped or cleared), oldest first; with ``limit``
        (else ``session_settings.limit``), the newest ``limit`` of them: none for 0,
        all for a negative limit, as the SDK's ``SQLiteSession``."""
        wanted = limit
        if wanted is None and self.session_settings is not None:
            wanted = self.session_settings.limit
        if wanted is not None:
            wanted = None if wanted < 0 else min(wanted, _MAX_LIMIT)
        conversation = await self._open(reading=True)
        if conversation is None:
            return []
        rows = await self._call(
            "session_get_items",
            agent=self.agent,
            conversation=conversation,
            max_results=wanted,
        )
        return [cast(TResponseInputItem, r.item) for r in rows]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` in order, in one transaction (nothing for an empty list)."""
        if not items:
            return
        await self._call(
            "session_add_items",
            agent=self.agent,
            conversation=await self._open(),
            items=Jsonb(list(items), dumps=_dumps),
        )

    async def pop_item(self) -> TResponseInputItem | None:
        """Retract the newest item and return it (``None`` when the session is empty)."""
        item = await self._call(
            "session_pop_item", agent=self.agent, conversation=await self._open()
        )
        return cast("TResponseInputItem | None", item)

    async def clear_session(self) -> None:
        """Retract every item of the session (they stay in :meth:`item_history`)."""
        await self._call("session_clear", agent=self.agent, conversation=await self._open())

    # -- beyond the protocol --------------------------------------------------------

    async def conversation(self) -> UUID:
        """The agent_state conversation that holds this session (opened if new)."""
        conversation = await self._open()
        assert conversation is not None
        return conversation

    async def item_history(self) -> list[SessionItemRevision]:
        """Every item the session ever held, oldest first, with who added it and, for
        a retracted one, how (``pop`` or ``clear``), when and by whom."""
        return cast(
            "list[SessionItemRevision]",
            await self._call(
                "session_item_history", agent=self.agent, conversation=await self._open()
            ),
        )

    async def close(self) -> None:
        """Close the connection if the session opened it (never a caller's store)."""
        if self._owned and isinstance(self.store, AsyncStore):
            await self.store.close()

    async def __aenter__(self) -> AgentStateSession:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AgentStateSession({self.session_id!r}, agent={str(self.agent)!r})"

    # -- internals ------------------------------------------------------------------

    async def _open(self, *, reading: bool = False) -> UUID | None:
        """The session's conversation, opened on first use. Opening one that exists
        writes nothing; a new one cannot be opened where nothing may be written (a
        read-only transaction, a standby), and a read there finds no session:
        ``None``."""
        if self._conversation is None:
            try:
                self._conversation = await self._call(
                    "open_conversation",
                    agent=self.agent,
                    connector=CONNECTOR,
                    external_ref=self.session_id,
                    kind="direct",
                )
            except Error as e:
                if reading and e.sqlstate == _READ_ONLY:
                    return None
                raise
        return self._conversation

    async def _call(self, name: str, **args: Any) -> Any:
        store = self.store
        if isinstance(store, AsyncStore):
            return await getattr(store, name)(**args)
        return await asyncio.to_thread(getattr(store, name), **args)


def _dumps(value: Any) -> str:
    """The JSON text of the items. jsonb keeps numbers as ``numeric``, which turns a
    float written with an exponent (Python writes ``1e+23`` for floats from 1e16 on)
    into an integer: such floats are written as their exact decimal with a fraction
    (``99999999999999991611392.0``), which reads back as the same float. Small ones
    (``1e-07``) come back as floats already."""
    text = json.dumps(value)
    if "e+" not in text:  # the common case: no float with a positive exponent
        return text
    token = uuid.uuid4().hex
    exact: list[str] = []

    def mark(v: Any) -> Any:
        if isinstance(v, float) and v == v and abs(v) >= 1e16 and abs(v) != float("inf"):
            exact.append(f"{int(v)}.0")
            return f"{token}{len(exact) - 1}"
        if isinstance(v, dict):
            return {k: mark(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [mark(x) for x in v]
        return v

    text = json.dumps(mark(value))
    for i, number in enumerate(exact):
        text = text.replace(f'"{token}{i}"', number)
    return text
