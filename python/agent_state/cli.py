"""``agent-state``: install, demo, recall, history, export, timeline, fork, restore.

Every command works against ``--dsn`` (default ``$AGENT_STATE_DSN``, else
``$DATABASE_URL``). With no DSN at all it starts a throwaway PostgreSQL from the local
server binaries, installs the bundled SQL into it, runs the command and removes the
cluster again; ``timeline``, ``fork`` and ``restore``, which only make sense on an
existing agent, say instead that they need a DSN.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TextIO
from uuid import UUID

from . import __version__
from ._install import install
from .errors import Error, NotInstalled
from .results import (
    MemoryRevision,
    PersonaRevision,
    RecallHit,
    RestoreChange,
    TimelineEvent,
    ToolGrantRevision,
)
from .store import Store, connect, default_dsn

__all__ = ["main"]


# ------------------------------------------------------------------ output helpers


def _short(text: str, width: int = 72) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _when(ts: datetime) -> str:
    return ts.isoformat(sep=" ", timespec="seconds")


def _print_persona_history(out: TextIO, rows: Sequence[PersonaRevision]) -> None:
    for r in rows:
        mark = "* active" if r.is_active else "        "
        out.write(
            f"    r{r.revision} {mark}  {_when(r.created_at)}  by {r.created_by}: "
            f"{_short(r.body, 60)!r}\n"
        )


def _print_memory_history(out: TextIO, rows: Sequence[MemoryRevision]) -> None:
    for r in rows:
        out.write(
            f"    r{r.revision} {r.operation:<7} {_when(r.created_at)}  {r.visibility}, "
            f"source {r.source_type}: {_short(r.body, 50)!r}\n"
        )


def _print_hits(out: TextIO, hits: Sequence[RecallHit], indent: str = "    ") -> None:
    if not hits:
        out.write(f"{indent}(nothing eligible)\n")
    for h in hits:
        out.write(
            f"{indent}entry {h.entry} r{h.revision}  score {h.score:.4f}"
            f"{'  (subject match)' if h.subject_match else ''}: {_short(h.body, 50)!r}\n"
        )


def _print_grants(out: TextIO, rows: Sequence[ToolGrantRevision]) -> None:
    for r in rows:
        state = "enabled " if r.enabled else "disabled"
        out.write(
            f"    r{r.revision} {state} {_when(r.created_at)}  by {r.created_by}: "
            f"{json.dumps(r.config, sort_keys=True)}\n"
        )


def _instant(ts: datetime) -> str:
    """A moment to the microsecond, in a form ``--as-of``, ``--since`` and ``--until`` take."""
    return ts.isoformat()


def _print_timeline(out: TextIO, rows: Sequence[TimelineEvent]) -> None:
    if not rows:
        out.write("(no changes)\n")
    for r in rows:
        revision = "-" if r.revision is None else f"r{r.revision}"
        out.write(
            f"{_instant(r.at)}  {r.kind:<7}  {r.object or '-'}  {r.operation:<8}  "
            f"{revision}  by {r.changed_by}\n"
        )


def _print_restored(out: TextIO, rows: Sequence[RestoreChange]) -> None:
    for r in rows:
        out.write(f"{r.kind:<7}  {r.object or '-'}  {r.operation:<8}  r{r.revision}\n")


# ------------------------------------------------------------------ commands


def _cmd_install(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    conn = store.connection
    assert conn is not None
    version = install(conn)
    out.write(f"agent_state {version} is installed\n")


def _cmd_demo(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    from ._demo import Demo  # only this command needs it

    # Without a DSN the demo runs on a throwaway cluster of its own.
    Demo(store, out, own_server=not default_dsn(getattr(args, "dsn", None))).run()


def _cmd_recall(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    hits = store.recall(
        agent=args.agent,
        query=args.query,
        conversation=args.conversation,
        current_subject=args.subject,
        max_results=args.max_results,
        as_of=args.as_of,
    )
    _print_hits(out, hits, indent="")


def _cmd_history(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    if args.entry is not None:
        out.write(f"memory entry {args.entry}:\n")
        _print_memory_history(out, store.memory_history(agent=args.agent, entry=args.entry))
    elif args.tool is not None:
        out.write(f"grants of tool {args.tool}:\n")
        _print_grants(out, store.tool_grant_history(agent=args.agent, tool=args.tool))
    else:
        out.write("persona:\n")
        _print_persona_history(out, store.persona_history(agent=args.agent))


def _cmd_export(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    out.write(store.export_markdown(agent=args.agent))


def _cmd_timeline(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    rows = store.timeline(
        agent=args.agent, since=args.since, until=args.until, max_results=args.max_results
    )
    _print_timeline(out, rows)
    limit = args.max_results if args.max_results is not None else 1000  # the SQL default
    if len(rows) == limit:
        sys.stderr.write(
            f"agent-state: showing the first {limit} changes; there may be more "
            "(narrow with --since/--until or raise --max-results)\n"
        )


def _cmd_fork(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    fork = store.fork_agent(
        agent=args.agent, handle=args.handle, as_of=args.as_of, display_name=args.display_name
    )
    out.write(f"{fork}\n")


class _Refused(Exception):
    """The operator did not confirm a write; nothing was written."""


def _confirm(question: str) -> bool:
    """Ask on stderr, read one answer from stdin; only y/yes confirms (no answer: no)."""
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    stdin, answer, echoed = sys.stdin, "", False
    if stdin is not None and not stdin.closed:
        try:
            answer = stdin.readline()
        except KeyboardInterrupt:
            answer = ""
        echoed = answer.endswith("\n") and stdin.isatty()
    if not echoed:
        sys.stderr.write("\n")  # a terminal echoed the answer's newline; nothing else did
    return answer.strip().lower() in ("y", "yes")


def _cmd_restore(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    moment = _instant(args.as_of)
    if not args.yes and not _confirm(f"restore agent {args.agent} to {moment}?"):
        raise _Refused(f"restore of agent {args.agent} not confirmed: nothing written")
    rows = store.restore_agent(agent=args.agent, as_of=args.as_of, reason=args.reason)
    if not rows:
        out.write(f"nothing needed restoring: agent {args.agent} is as it was at {moment}\n")
        return
    out.write(f"restored agent {args.agent} to {moment}; written:\n")
    _print_restored(out, rows)


def _uuid(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a uuid: {value!r}") from None


def _timestamp(value: str) -> datetime:
    try:
        ts = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 timestamp: {value!r}") from None
    if ts.tzinfo is None:
        raise argparse.ArgumentTypeError(f"give a time zone (e.g. +00:00): {value!r}")
    return ts


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-state",
        description=(
            "Versioned, perspective-isolated agent state in PostgreSQL. Without --dsn, "
            "$AGENT_STATE_DSN or $DATABASE_URL, a throwaway PostgreSQL is started from "
            "the local server binaries and removed afterwards."
        ),
    )
    parser.add_argument("--version", action="version", version=f"agent-state {__version__}")
    parser.add_argument("--dsn", default=None, help="libpq connection string or URI")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dsn", default=argparse.SUPPRESS, help="libpq connection string or URI")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("install", parents=[common], help="install or upgrade the bundled SQL")
    p.set_defaults(func=_cmd_install)

    p = sub.add_parser("demo", parents=[common], help="walk through persona, memory and a turn")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("recall", parents=[common], help="rank an agent's eligible memories")
    p.add_argument("--agent", type=_uuid, required=True)
    p.add_argument("query", nargs="?", default="", help="websearch_to_tsquery syntax")
    p.add_argument("--conversation", type=_uuid, default=None, help="target conversation")
    p.add_argument("--subject", type=_uuid, default=None, help="actor being spoken with")
    p.add_argument("--max-results", type=int, default=None)
    p.add_argument("--as-of", type=_timestamp, default=None, help="ISO 8601 with time zone")
    p.set_defaults(func=_cmd_recall)

    p = sub.add_parser(
        "history", parents=[common], help="persona history, or one memory entry's or tool's"
    )
    p.add_argument("--agent", type=_uuid, required=True)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--entry", type=_uuid, default=None, help="memory entry")
    what.add_argument("--tool", default=None, help="tool grant history")
    p.set_defaults(func=_cmd_history)

    p = sub.add_parser("export", parents=[common], help="print the markdown export")
    p.add_argument("--agent", type=_uuid, required=True)
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser(
        "timeline",
        parents=[common],
        help="every change of an agent's state, oldest first",
        description=(
            "Every change of the agent's persona, profile, memory, sharing grants and tool "
            "grants with since <= time <= until, oldest first, one a line: time, kind, "
            "object (entry id or tool name; - for persona and profile), operation, revision, "
            "who made it. The times can be given to fork --as-of and restore --as-of."
        ),
    )
    p.add_argument("--agent", type=_uuid, required=True)
    p.add_argument("--since", type=_timestamp, default=None, help="ISO 8601 with time zone")
    p.add_argument("--until", type=_timestamp, default=None, help="ISO 8601 with time zone")
    p.add_argument("--max-results", type=int, default=None, help="1 to 100000 (default 1000)")
    p.set_defaults(func=_cmd_timeline, needs_state=True)

    p = sub.add_parser(
        "fork",
        parents=[common],
        help="copy an agent's state (as of a moment) into a new agent; prints its id",
        description=(
            "A new agent holding a copy of the agent's state as it was at --as-of (default: "
            "now; a future moment is now): persona, profile, tool grants, memory with its "
            "evidence, conversations and messages. Runs, hosting and LangGraph payloads are "
            "not copied. Prints the new agent's id. Operators only."
        ),
    )
    p.add_argument("--agent", type=_uuid, required=True, help="the agent to fork")
    p.add_argument("--handle", required=True, help="handle of the new agent (unique)")
    p.add_argument("--as-of", type=_timestamp, default=None, help="ISO 8601 with time zone")
    p.add_argument("--display-name", default=None, help="display name of the new agent")
    p.set_defaults(func=_cmd_fork, needs_state=True)

    p = sub.add_parser(
        "restore",
        parents=[common],
        help="bring an agent's state back to a moment (asks first unless --yes)",
        description=(
            "Brings the agent's persona, profile, tool grants and memory back to what they "
            "were at --as-of by writing new revisions; history is kept. Asks for confirmation "
            "on stdin unless --yes; without a yes nothing is written and the exit status is "
            "1. Prints each revision written. Operators only."
        ),
    )
    p.add_argument("--agent", type=_uuid, required=True)
    p.add_argument("--as-of", type=_timestamp, required=True, help="ISO 8601 with time zone")
    p.add_argument("--reason", required=True, help="recorded with the restore")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=_cmd_restore, needs_state=True)
    return parser


@contextmanager
def _database(dsn: str | None, err: TextIO) -> Iterator[str]:
    """The DSN to use; an embedded throwaway cluster (with the bundle installed) if none."""
    resolved = default_dsn(dsn)
    if resolved:
        yield resolved
        return
    err.write("agent-state: no DSN given; starting a throwaway PostgreSQL (removed on exit)\n")
    # Imported here: with a DSN the command never needs the cluster launcher.
    from .embedded import ClusterError, TemporaryCluster

    try:
        with TemporaryCluster(fsync=False) as cluster:
            embedded_dsn = cluster.dsn()
            install(embedded_dsn)
            yield embedded_dsn
    except ClusterError as e:
        raise _NoServer(str(e)) from e


class _NoServer(Exception):
    """No throwaway PostgreSQL could be started (no usable local server binaries)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agent-state`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    func: Callable[[Store, argparse.Namespace, TextIO], None] = args.func
    if getattr(args, "needs_state", False) and not default_dsn(args.dsn):
        # A throwaway database would hold no agent to read or change.
        err.write(
            f"agent-state: error: {args.command} works on an existing agent: give --dsn, "
            "or set AGENT_STATE_DSN or DATABASE_URL\n"
        )
        return 1
    try:
        with _database(args.dsn, err) as dsn, connect(dsn) as store:
            func(store, args, out)
    except Error as e:
        code = f"[{e.sqlstate}] " if e.sqlstate else ""
        err.write(f"agent-state: error: {code}{e}\n")
        if isinstance(e, NotInstalled):
            err.write("agent-state: hint: run `agent-state install` against this database\n")
        return 1
    except _Refused as e:
        err.write(f"agent-state: {e}\n")
        return 1
    except (_NoServer, FileNotFoundError) as e:  # no usable local server binaries
        err.write(f"agent-state: error: embedded PostgreSQL: {e}\n")
        return 1
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
