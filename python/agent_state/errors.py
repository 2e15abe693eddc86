"""Exceptions raised by the wrapper, mapped from PostgreSQL SQLSTATEs.

Every error raised by a :class:`~agent_state.Store` or :class:`~agent_state.AsyncStore`
method is an :class:`Error`. The class is chosen by the SQLSTATE the database raised
(the table in the product contract, section 10); the original psycopg exception is
chained as ``__cause__``. Errors with other SQLSTATEs are raised as :class:`Error`
itself, with ``sqlstate`` set. ``TypeError`` for arguments of the wrong Python type
(e.g. a ``set`` as jsonb) is not wrapped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.errors import Diagnostic

__all__ = [
    "BudgetExhausted",
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
    ) -> None:
        super().__init__(message)
        self.sqlstate = sqlstate
        self.diag = diag

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
        return self.diag.message_hint if self.diag is not None else None


class PermissionDenied(Error):
    """``42501``: the caller may not act for that agent, or the tool is not granted."""


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
    "42883": NotInstalled,
    "3F000": NotInstalled,
}


def from_psycopg(exc: psycopg.Error) -> Error:
    """The ``agent_state`` exception for a psycopg exception (not raised, not chained)."""
    sqlstate = exc.sqlstate
    cls = _BY_SQLSTATE.get(sqlstate) if sqlstate else None
    if cls is None:
        # Any other data exception (class 22: malformed uuid/json/timestamp input, a NUL
        # character, ...) is a bad argument value, also when psycopg refuses it client-side.
        data_error = (sqlstate or "").startswith("22") or isinstance(exc, psycopg.DataError)
        cls = InvalidArgument if data_error else Error
    diag = exc.diag if sqlstate else None
    message = (diag.message_primary if diag is not None else None) or str(exc)
    return cls(message, sqlstate=sqlstate, diag=diag)


@contextmanager
def _mapped(function: str | None = None) -> Iterator[None]:
    """Raise a psycopg error from the block as its :class:`Error` (the cause chained).

    With ``function`` (the stored function being called), text that cannot be encoded
    for the server (e.g. a lone surrogate in a ``str`` argument) is an
    :class:`InvalidArgument` too. One place for the sync and async stores.
    """
    try:
        yield
    except psycopg.Error as e:
        raise from_psycopg(e) from e
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
