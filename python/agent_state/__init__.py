"""``agent_state``: a thin psycopg 3 wrapper over the agent_state PostgreSQL extension.

::

    import agent_state

    store = agent_state.connect()          # $AGENT_STATE_DSN, else $DATABASE_URL
    agent = store.create_agent(handle="support-bot")
    store.revise_persona(agent=agent, body="You are a careful support agent.")
    with store.transaction():              # several calls, one transaction
        ...

One method per SQL function with the same name and parameter names; results are
frozen dataclasses; errors are :class:`Error` subclasses chosen by SQLSTATE.
"""

from __future__ import annotations

from ._install import bundled_version, install
from .aio import AsyncStore, connect_async
from .errors import (
    BudgetExhausted,
    CrossPerspectiveReference,
    Duplicate,
    Error,
    InvalidArgument,
    MissingArgument,
    NotFound,
    NotInstalled,
    PermissionDenied,
    Retired,
    RevisionConflict,
)
from .results import (
    ActivePersona,
    MemoryRef,
    MemoryRevision,
    PersonaRevision,
    RecallHit,
    SnapshotSource,
    ToolAuthorization,
    ToolGrantRevision,
)
from .store import Store, connect

__version__ = "0.1.0"
version = __version__
"""The version of this Python package (the installed SQL version: ``Store.version()``)."""

__all__ = [
    "ActivePersona",
    "AsyncStore",
    "BudgetExhausted",
    "CrossPerspectiveReference",
    "Duplicate",
    "Error",
    "InvalidArgument",
    "MemoryRef",
    "MemoryRevision",
    "MissingArgument",
    "NotFound",
    "NotInstalled",
    "PermissionDenied",
    "PersonaRevision",
    "RecallHit",
    "Retired",
    "RevisionConflict",
    "SnapshotSource",
    "Store",
    "ToolAuthorization",
    "ToolGrantRevision",
    "__version__",
    "bundled_version",
    "connect",
    "connect_async",
    "install",
    "version",
]
