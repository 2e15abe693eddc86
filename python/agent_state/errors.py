"""Exceptions raised by the wrapper, mapped from PostgreSQL SQLSTATEs.

Every error raised by a :class:`~agent_state.Store` or :class:`~agent_state.AsyncStore`
method is an :class:`Error`. The class is chosen by the SQLSTATE the database raised
(the table in the product contract, section 10); the original psycopg exception is
chained as ``__cause__``. Errors with other SQLSTATEs are raised as :class:`Error`
itself, with ``sqlstate`` set. ``TypeError`` for arguments of the wrong Python type
(e.g. a ``set`` as jsonb) is not wrapped.

Two cases get a message a newcomer can act on: a connection that cannot be made is a
:class:`ConnectionFailed` naming where its DSN came from (never its password), and
PostgreSQL's own bare ``permission denied for function X`` (or ``for schema
agent_state``: a role in neither group role) is a :class:`PermissionDenied` that
names the group role ``X`` is for and the ``GRANT`` to run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg
from psycopg.errors import Diagnostic

__all__ = [
    "BudgetExhausted",
    "ConnectionFailed",
    "CrossPerspectiveReference",
    "Duplicate",
    "Error",
    "InvalidArgument",
    "MissingArgument",
    "NotFound",
    "NotInstalled",
    "PermissionDenied",
    "Retired",
    "RevisionConflict",
    "from_psycopg",
]


class Error(Exception):
    """Root of every exception raised by ``agent_state``.

    ``sqlstate`` is the five-character SQLSTATE (``None`` for client-side failures such
    as a lost connection), ``diag`` the psycopg diagnostic of the server error.
    """

    sqlstate: str | None
    diag: Diagnostic | None

    def __init__(
        self,
        message: str,
        *,
        sqlstate: str | None = None,
        diag: Diagnostic | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate
        self.diag = diag
        self._hint = hint

    @property
    def message(self) -> str:
        """The primary error message (names the offending argument)."""
        if self.diag is not None and self.diag.message_primary:
            return self.diag.message_primary
        return str(self.args[0]) if self.args else ""

    @property
    def detail(self) -> str | None:
        return self.diag.message_detail if self.diag is not None else None

    @property
    def hint(self) -> str | None:
        """What to do about it: the wrapper's own hint, else the server's, if any."""
        if self._hint is not None:
            return self._hint
        return self.diag.message_hint if self.diag is not None else None


class ConnectionFailed(Error):
    """No connection could be made: no database was given, the DSN is malformed, or the
    server refused or could not be reached. The message names where the DSN came from
    (the argument, ``AGENT_STATE_DSN``, ``DATABASE_URL`` or libpq's ``PG*`` variables)
    and its host, port, database and user, never its password; the psycopg exception,
    if any, is chained as ``__cause__``."""


class PermissionDenied(Error):
    """``42501``: the caller may not act for that agent, or the tool is not granted.

    Also PostgreSQL's own refusal to run a function the caller's role has no
    ``EXECUTE`` on (it is in neither group role, or a runtime calls an operator
    function): then the message and :attr:`hint` name the group role and the
    ``GRANT`` that lets the role call it.
    """


class NotFound(Error):
    """``P0002``: unknown agent, entry, revision, run, ... in this perspective."""


class InvalidArgument(Error):
    """``22023``: a bad argument value.

    Also every other data exception (SQLSTATE class ``22``, e.g. ``22P02`` for a
    malformed uuid or json), values psycopg cannot send (a NUL character in text), and
    ``42704`` for a role name that does not exist.
    """


class MissingArgument(InvalidArgument):
    """``22004``: a required argument is null."""


class RevisionConflict(Error):
    """``40001``: ``expected_revision`` is not the current revision."""


class Retired(Error):
    """``55000``: the entry is forgotten/redacted, the run is finished, the row immutable."""


class BudgetExhausted(Error):
    """``53400``: the run's budget is exhausted."""


class Duplicate(Error):
    """``23505``: duplicate identity link or handle."""


class CrossPerspectiveReference(Error):
    """``23503``: a reference to a row of another perspective (or another run)."""


class Tampered(Error):
    """``XX001``: a stored record does not match its digest (SPEC section 14): history
    was altered outside the API, and the record is not served. An operator runs
    ``verify()`` to see what changed."""


class Moving(Error):
    """``55006``: the agent is being moved to another shard (SPEC section 15). Nothing was
    written; retry. A store retries it by itself for a call that is its own
    transaction (``MOVE_RETRY_SECONDS``), never inside ``store.transaction()``."""


MOVE_RETRY_SECONDS = 30.0
"""How long a store keeps retrying a call that failed with 55006 (a move under way)."""


class NotInstalled(Error):
    """``42883``/``3F000``: the function (or this signature of it) is not in the database.

    Either ``agent_state`` is not installed, or it is an older version than this
    wrapper expects.
    """


_BY_SQLSTATE: dict[str, type[Error]] = {
    "42501": PermissionDenied,
    "P0002": NotFound,
    "22023": InvalidArgument,
    "22004": MissingArgument,
    "40001": RevisionConflict,
    "55000": Retired,
    "53400": BudgetExhausted,
    "23505": Duplicate,
    "23503": CrossPerspectiveReference,
    # A role name that does not exist, from the regrole input of a ``host`` argument.
    "42704": InvalidArgument,
    "XX001": Tampered,
    "55006": Moving,
    "42883": NotInstalled,
    "3F000": NotInstalled,
}


def from_psycopg(
    exc: psycopg.Error, *, function: str | None = None, role: str | None = None
) -> Error:
    """The ``agent_state`` exception for a psycopg exception (not raised, not chained).

    ``function`` (the stored function called) and ``role`` (the session's user) only
    make the hint of PostgreSQL's own "permission denied" exact.
    """
    sqlstate = exc.sqlstate
    cls = _BY_SQLSTATE.get(sqlstate) if sqlstate else None
    if cls is None:
        # Any other data exception (class 22: malformed uuid/json/timestamp input, a NUL
        # character, ...) is a bad argument value, also when psycopg refuses it client-side.
        data_error = (sqlstate or "").startswith("22") or isinstance(exc, psycopg.DataError)
        cls = InvalidArgument if data_error else Error
    diag = exc.diag if sqlstate else None
    message = (diag.message_primary if diag is not None else None) or str(exc)
    hint = None
    if sqlstate == "42501" and diag is not None:
        hint = _privilege_hint(diag, function, role)
        if hint is not None:
            message = f"{message}: {hint}"
    return cls(message, sqlstate=sqlstate, diag=diag, hint=hint)


# Through a PL/Proxy router a shard's refusal comes prefixed with the proxy function
# and the shard's database name.
_PLPROXY_PREFIX = re.compile(r"^[\w.]+\(\d+\): \[[^\]]*\] REMOTE ERROR: ")

# PostgreSQL's own refusal (aclcheck_error in the server), as opposed to a 42501 that
# agent_state raises on purpose (those name an argument first and say why).
_ACL_REFUSAL = re.compile(r"^permission denied for (?P<kind>function|schema) (?P<name>\S+)$")
_OPERATOR = "agent_state_operator"
_RUNTIME = "agent_state_runtime"


def _privilege_hint(diag: Diagnostic, function: str | None, role: str | None) -> str | None:
    """For the server's bare "permission denied for function X" (or "for schema
    agent_state": no group role at all), which group role X is for and the GRANT to run.
    Recognised by its (English) text and, where the server reports it, the routine that
    raised it; ``None`` for every 42501 of agent_state's own and for other objects."""
    m = _ACL_REFUSAL.match(_PLPROXY_PREFIX.sub("", diag.message_primary or "", count=1))
    if m is None or diag.source_function not in (None, "aclcheck_error", "plproxy_remote_error"):
        return None
    if m["kind"] == "schema" and m["name"] != "agent_state":
        return None
    name = function or (m["name"] if m["kind"] == "function" else None)
    grantee = _role_ident(role) if role else "<role>"
    what = f"agent_state.{name}" if name else "the agent_state API"
    operator_only = _operator_only()
    if name is not None and operator_only is not None and name in operator_only:
        return (
            f"{what} is for members of {_OPERATOR}; to let this role call it, run as the "
            f"role that installed agent_state (or a superuser): "
            f"GRANT {_OPERATOR} TO {grantee};"
        )
    if name is not None and operator_only is not None:
        return (
            f"{what} is for members of {_RUNTIME} (for the agents they host) and of "
            f"{_OPERATOR}; to let this role call it, run as the role that installed "
            f"agent_state (or a superuser): GRANT {_RUNTIME} TO {grantee}; "
            f"(an agent runtime) or GRANT {_OPERATOR} TO {grantee}; (an administrator)"
        )
    return (
        f"{what} is for members of {_OPERATOR} (every function) and {_RUNTIME} (the "
        f"runtime API); run as the role that installed agent_state (or a superuser): "
        f"GRANT {_OPERATOR} TO {grantee}; or GRANT {_RUNTIME} TO {grantee};"
    )


def _operator_only() -> frozenset[str] | None:
    """The functions granted to agent_state_operator only, read from the bundled SQL
    (its one list, in the privileges pass); ``None`` when the bundle is not built."""
    from ._install import operator_only_functions  # _install imports this module

    return operator_only_functions()


_PLAIN_IDENT = re.compile(r"[a-z_][a-z0-9_$]*")


def _role_ident(name: str) -> str:
    """A role name as an SQL identifier (quoted unless plainly lower case)."""
    if _PLAIN_IDENT.fullmatch(name):
        return name
    return '"' + name.replace('"', '""') + '"'


@dataclass
class _Call:
    """What :func:`_mapped` knows about the call in its block."""

    function: str | None = None
    role: str | None = None
    """The session user of the connection, once the block has one."""


@contextmanager
def _mapped(function: str | None = None) -> Iterator[_Call]:
    """Raise a psycopg error from the block as its :class:`Error` (the cause chained).

    With ``function`` (the stored function being called), text that cannot be encoded
    for the server (e.g. a lone surrogate in a ``str`` argument) is an
    :class:`InvalidArgument` too. The block may set the yielded call's ``role`` (for the
    GRANT of a permission hint). One place for the sync and async stores.
    """
    call = _Call(function)
    try:
        yield call
    except psycopg.Error as e:
        raise from_psycopg(e, function=call.function, role=call.role) from e
    except UnicodeEncodeError as e:
        if function is None:
            raise
        raise InvalidArgument(f"{function}: an argument cannot be encoded: {e}") from e
    except RecursionError as e:
        # Python's json module recurses once per level and gives up near 1,000; the
        # server refuses JSON arguments nested deeper than 200 levels (22023).
        if function is None:
            raise
        raise InvalidArgument(
            f"{function}: a JSON value is nested too deeply (agent_state accepts 200 levels)"
        ) from e
