"""``agent_state``: a thin psycopg 3 wrapper over the agent_state PostgreSQL extension.

::

    import agent_state

    agent_state.install(conn)              # plain-SQL install, if not CREATE EXTENSION
    store = agent_state.connect()          # $AGENT_STATE_DSN, else $DATABASE_URL
    agent = store.create_agent(handle="support-bot")
    store.revise_persona(agent=agent, body="You are a careful support agent.")
    with store.transaction():              # several calls, one transaction
        run = store.start_run(agent=agent, budget={"tokens": 200_000})
        store.checkpoint(agent=agent, run=run, frontier={"step": 1})

Calls. One method per SQL function (``Store.remember`` calls
``agent_state.remember``) with the same keyword-only parameter names, ``agent``
first, and the function's SQL comment as docstring: the methods are generated from
the catalog (``scripts/gen-python-api.py``). An optional argument left as ``None``
is not sent, so the SQL default applies.
Every call is ``SELECT * FROM agent_state.<function>(<name> => %s::<type>, ...)``;
the wrapper runs no other SQL (``install`` aside; the command line's demo also
reads ``pg_available_extensions``, and creates the ``vector`` extension only on
its own throwaway server).

Results. Scalars come back as Python values (``UUID``, ``int``, ``str``, ``dict`` for
jsonb); rows as frozen dataclasses built by column name (:class:`PersonaRevision`,
:class:`RecallHit`, ...); ``void`` functions return ``None``.

Connections. :class:`Store` takes a ``psycopg.Connection``, a
``psycopg_pool.ConnectionPool`` or a DSN; :class:`AsyncStore` the async
counterparts. On an autocommit connection (what :func:`connect` opens) each call is
its own transaction; ``with store.transaction():`` (``async with`` for
:class:`AsyncStore`) groups calls, also on a pool, where the block pins one
connection. A connection that is not in autocommit mode is used as is: commit it.

Errors. Every error is an :class:`Error` with ``sqlstate`` and psycopg's ``diag``,
chained to the psycopg exception:

=============================  =======================================================
``PermissionDenied``           42501: may not act for the agent; tool not granted
``NotFound``                   P0002: unknown agent, entry, run, ... in this perspective
``InvalidArgument``            22023 and every other class-22 data exception; 42704
``MissingArgument``            22004: a required argument is null (an InvalidArgument)
``RevisionConflict``           40001: stale ``expected_revision``
``Retired``                    55000: forgotten/redacted entry, finished run
``BudgetExhausted``            53400
``Duplicate``                  23505: duplicate identity link or handle
``CrossPerspectiveReference``  23503: a reference into another perspective or run
``Tampered``                   XX001: a record does not match its digest (not served)
``Moving``                     55006: the agent is being moved between shards (retried)
``NotInstalled``               42883/3F000: function missing (not installed, too old)
``ConnectionFailed``           no DSN given, a malformed DSN, or the server unreachable
=============================  =======================================================

A ``PermissionDenied`` for PostgreSQL's own "permission denied for function X" (the
role is in neither group role, or a runtime calls an operator function) names the
group role and the ``GRANT`` to run; a malformed uuid argument names the argument.
"""

from __future__ import annotations

from ._common import Embedder
from ._install import bundled_version, install
from .aio import AsyncStore, connect_async
from .errors import (
    BudgetExhausted,
    ConnectionFailed,
    CrossPerspectiveReference,
    Duplicate,
    Error,
    InvalidArgument,
    MissingArgument,
    Moving,
    NotFound,
    NotInstalled,
    PermissionDenied,
    Retired,
    RevisionConflict,
    Tampered,
)
from .results import (
    ActivePersona,
    AgentSummary,
    ChainHead,
    ConversationSummary,
    ForkOrigin,
    GraphCheckpoint,
    GraphItem,
    GraphNamespace,
    MemoryRef,
    MemoryRevision,
    MemoryState,
    MemorySummary,
    PendingEmbedding,
    PersonaRevision,
    ProfileRevision,
    RecallHit,
    RestoreChange,
    RunSummary,
    SessionItem,
    SessionItemRevision,
    SnapshotSource,
    TimelineEvent,
    ToolAuthorization,
    ToolGrant,
    ToolGrantRevision,
    Violation,
)
from .store import Store, connect


def _package_version() -> str:
    # Written once, in agent_state.control: pyproject.toml takes it through setup.py
    # and make writes it into the bundled SQL. A source tree that is not pip-installed
    # reads it from the bundle.
    from importlib import metadata

    try:
        return metadata.version("agent-state")
    except metadata.PackageNotFoundError:
        from ._install import bundled_version

        try:
            return bundled_version()
        except Error:
            return "0+unknown"


__version__ = _package_version()
version = __version__
"""The version of this Python package (the installed SQL version: ``Store.version()``)."""

__all__ = [
    "ActivePersona",
    "AgentSummary",
    "AsyncStore",
    "BudgetExhausted",
    "ChainHead",
    "ConnectionFailed",
    "ConversationSummary",
    "CrossPerspectiveReference",
    "Duplicate",
    "Embedder",
    "Error",
    "ForkOrigin",
    "GraphCheckpoint",
    "GraphItem",
    "GraphNamespace",
    "InvalidArgument",
    "MemoryRef",
    "MemoryRevision",
    "MemoryState",
    "MemorySummary",
    "MissingArgument",
    "Moving",
    "NotFound",
    "NotInstalled",
    "PendingEmbedding",
    "PermissionDenied",
    "PersonaRevision",
    "ProfileRevision",
    "RecallHit",
    "RestoreChange",
    "Retired",
    "RevisionConflict",
    "RunSummary",
    "SessionItem",
    "SessionItemRevision",
    "SnapshotSource",
    "Store",
    "Tampered",
    "TimelineEvent",
    "ToolAuthorization",
    "ToolGrant",
    "ToolGrantRevision",
    "Violation",
    "__version__",
    "bundled_version",
    "connect",
    "connect_async",
    "install",
    "version",
]
