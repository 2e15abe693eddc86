"""``agent-state``: install, demo, agents, recall, history, export, import, timeline,
fork, restore, embed, export-agent, import-agent, verify, head, mcp, inspect.

Every command works against the database of ``--dsn`` (default ``$AGENT_STATE_DSN``,
else ``$DATABASE_URL``). Given none, ``demo`` starts a throwaway PostgreSQL from the
local server binaries, installs the bundled SQL into it, runs and removes the cluster
again; every other command reads or writes existing state, so it says
``no database given: set AGENT_STATE_DSN or pass --dsn`` and exits with status 2.

Wherever a command takes ``--agent`` it takes the agent's handle or its id: a value
that reads as a uuid is the id, anything else is looked up with ``find_agent`` (an
agent the role may not act for is not found, exactly like an unknown one).

Exit status: 0 done; 1 the command failed (an error of the database, printed with its
SQLSTATE; no connection; a restore not confirmed; no embedder; verify found a
problem); 2 a usage error (bad or missing arguments, no database given).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TextIO
from uuid import UUID

from . import __version__
from ._calls import Id, is_uuid_text
from ._common import NO_DATABASE, Embedder, default_dsn
from ._install import install, install_report
from ._printing import (
    _instant,
    _print_grants,
    _print_hits,
    _print_memory_history,
    _print_persona_history,
    _print_restored,
    _print_timeline,
    _when,
)
from .errors import Error, NotFound, NotInstalled
from .results import AgentSummary
from .store import Store, _connect
from .witness import as_callable, newest_head

__all__ = ["main"]


# ------------------------------------------------------------------ commands


class _Failed(Exception):
    """The command cannot go on (exit status 1); the message says why."""


def _agent_label(args: argparse.Namespace) -> str:
    """The agent as the user named it, with its id when it was given by handle."""
    given: str = args.agent
    return given if is_uuid_text(given) else f"{given} ({args.agent_id})"


def _resolve_agent(store: Store, value: str) -> Id:
    """``--agent``: a uuid is the id as is; anything else a handle, via find_agent."""
    if is_uuid_text(value):
        return value
    try:
        return store.find_agent(handle=value)
    except NotFound as e:
        raise NotFound(
            str(e),
            sqlstate=e.sqlstate,
            diag=e.diag,
            hint="`agent-state agents` lists the agents this role may act for",
        ) from e


def _cmd_install(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    conn = store.connection
    assert conn is not None
    report = install_report(conn)
    if report.action == "extension" and report.version == __version__:
        out.write(
            f"agent_state is already current at {report.version} (installed as an extension;"
            " a later version is taken with ALTER EXTENSION agent_state UPDATE)\n"
        )
    elif report.action == "extension":
        out.write(
            f"agent_state {report.version} is installed as an extension: nothing done; this"
            f" package bundles {__version__}: upgrade with ALTER EXTENSION agent_state UPDATE\n"
        )
    elif report.action == "installed":
        out.write(f"installed agent_state {report.version}\n")
    elif report.action == "upgraded":
        out.write(f"upgraded agent_state from {report.previous} to {report.version}\n")
    else:
        out.write(f"agent_state is already current at {report.version}\n")
    if not report.operator:
        who = (
            "as this role"
            if report.can_grant
            else "as a superuser or a role with ADMIN OPTION on agent_state_operator"
        )
        out.write(
            f"next step: role {report.role} owns the install but is not an operator; to "
            f"administer agents as it, run {who}:\n"
            f"  GRANT agent_state_operator TO {report.role};\n"
            "and make each agent runtime's login role a member of agent_state_runtime:\n"
            "  GRANT agent_state_runtime TO <runtime role>;\n"
        )


def _cmd_demo(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    from ._demo import Demo  # only this command needs it

    # Without a DSN the demo runs on a throwaway cluster of its own.
    Demo(store, out, own_server=not default_dsn(getattr(args, "dsn", None))).run()


def _cmd_agents(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    rows = store.list_agents()
    if args.json:
        json.dump([_agent_json(r) for r in rows], out, indent=2, ensure_ascii=False)
        out.write("\n")
        return
    if not rows:
        role = store.connection.info.user if store.connection is not None else "this role"
        sys.stderr.write(
            f"agent-state: role {role} may act for no agent (operators act for every "
            "agent, runtimes for the agents they host)\n"
        )
        return
    table = [("id", "created", "handle", "display name")] + [
        (str(r.agent), _when(r.created_at), r.handle, r.display_name or "-") for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        out.write("  ".join([*cells, row[3]]) + "\n")


def _agent_json(r: AgentSummary) -> dict[str, Any]:
    return {
        "agent": str(r.agent),
        "handle": r.handle,
        "display_name": r.display_name,
        "created_at": r.created_at.isoformat(),
    }


def _cmd_recall(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    hits = store.recall(
        agent=args.agent_id,
        query=args.query,
        conversation=args.conversation,
        current_subject=args.subject,
        max_results=args.max_results,
        as_of=args.as_of,
    )
    _print_hits(out, hits, indent="")


def _cmd_history(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    agent = args.agent_id
    if args.entry is not None:
        out.write(f"memory entry {args.entry}:\n")
        _print_memory_history(out, store.memory_history(agent=agent, entry=args.entry))
    elif args.tool is not None:
        out.write(f"grants of tool {args.tool}:\n")
        _print_grants(out, store.tool_grant_history(agent=agent, tool=args.tool))
    else:
        out.write("persona:\n")
        _print_persona_history(out, store.persona_history(agent=agent))


def _cmd_export(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    out.write(store.export_markdown(agent=args.agent_id))


def _cmd_import(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    if args.file == "-":
        document = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8") as f:
            document = f.read()
    n = store.import_markdown(agent=args.agent_id, document=document)
    out.write(f"imported {n} memory entries\n")


def _cmd_export_agent(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    doc = store.export_agent(agent=args.agent_id)
    text = json.dumps(doc, ensure_ascii=False, sort_keys=True)
    rows = sum(len(r) for r in doc.get("tables", {}).values())
    if args.file == "-":
        out.write(text + "\n")
    else:
        with open(args.file, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    sys.stderr.write(f"agent-state: exported agent {doc['agent']['id']} ({rows} rows)\n")


def _cmd_import_agent(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise _Failed(f"{args.file}: not a JSON document ({e})") from e
    rows = sum(len(r) for r in doc.get("tables", {}).values()) if isinstance(doc, dict) else 0
    sys.stderr.write(f"agent-state: importing {rows} rows\n")
    agent = store.import_agent(document=doc)
    out.write(f"{agent}\n")


def _cmd_verify(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    agent = getattr(args, "agent_id", None)
    expected = args.expected_head
    if args.witness is not None:
        if agent is None:
            raise _Failed("--witness needs --agent: a head is checked against its agent")
        try:
            expected = newest_head(args.witness, agent)
        except (OSError, ValueError) as e:
            raise _Failed(f"--witness: {e}") from e
        if expected is None:
            raise _Failed(f"{args.witness}: no head of agent {agent}")
    findings = store.verify(agent=agent, expected_head=expected)
    for v in findings:
        out.write(f"{v.check_name}\t{v.object}\t{v.detail}\n")
    held = " up to the held head" if expected is not None else ""
    if findings:
        raise _Failed(f"{len(findings)} problem(s) found{held}")
    sys.stderr.write(f"agent-state: verify found nothing wrong{held}\n")


def _cmd_head(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    head = store.chain_head(agent=args.agent_id)
    if args.witness is not None:
        as_callable(args.witness)(args.agent_id, head)
    out.write(f"{head.digest}\n")


def _cmd_timeline(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    rows = store.timeline(
        agent=args.agent_id, since=args.since, until=args.until, max_results=args.max_results
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
        agent=args.agent_id, handle=args.handle, as_of=args.as_of, display_name=args.display_name
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
    label = _agent_label(args)
    if not args.yes and not _confirm(f"restore agent {label} to {moment}?"):
        raise _Refused(f"restore of agent {label} not confirmed: nothing written")
    rows = store.restore_agent(agent=args.agent_id, as_of=args.as_of, reason=args.reason)
    if not rows:
        out.write(f"nothing needed restoring: agent {label} is as it was at {moment}\n")
        return
    out.write(f"restored agent {label} to {moment}; written:\n")
    _print_restored(out, rows)


WORDLLAMA = "wordllama"


def _load_embedder(spec: str) -> tuple[Embedder, str | None]:
    """The embedder ``--embedder`` names, and its default model name (if any)."""
    if spec == WORDLLAMA:
        from ._demo import MODEL, wordllama_embedder

        embedder, why = wordllama_embedder()
        if embedder is None:
            raise _Failed(
                f"--embedder {WORDLLAMA}: {why} (pip install 'agent-state[semantic]', or "
                "give --embedder MODULE:FUNCTION and --model)"
            )
        return embedder, MODEL
    module_name, _, name = spec.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as e:
        raise _Failed(f"--embedder {spec}: cannot load it ({e})") from e
    if not callable(found):
        raise _Failed(f"--embedder {spec}: not a callable")
    return found, None


class _Progress:
    """Counter lines on stderr (rewritten in place on a terminal)."""

    def __init__(self, err: TextIO, prefix: str) -> None:
        self.err = err
        self.prefix = prefix
        self.tty = err.isatty()

    def __call__(self, done: int) -> None:
        line = f"agent-state: {self.prefix}: {done} embedded"
        self.err.write(f"\r{line}" if self.tty else f"{line}\n")
        self.err.flush()

    def finish(self, done: int) -> None:
        line = f"agent-state: {self.prefix}: done, {done} embedded"
        self.err.write(f"\r{line}\n" if self.tty else f"{line}\n")
        self.err.flush()


def _cmd_embed(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    embedder, default_model = _load_embedder(args.embedder)
    model = args.model or default_model
    assert model  # the parser asks for --model with any other embedder
    conn = store.connection
    assert conn is not None
    worker = Store(conn, embedder=embedder, embedding_model=model)
    if args.agent is not None:
        targets = [(_agent_label(args), args.agent_id)]
    else:
        targets = [(f"{r.handle} ({r.agent})", r.agent) for r in store.list_agents()]
        if not targets:
            sys.stderr.write(f"agent-state: role {conn.info.user} may act for no agent\n")
    total = 0
    for i, (label, agent) in enumerate(targets, 1):
        progress = _Progress(sys.stderr, f"[{i}/{len(targets)}] {label}")
        done = worker.embed_pending(agent=agent, model=model, batch=args.batch, progress=progress)
        progress.finish(done)
        out.write(f"{agent}  {done} embedded\n")
        total += done
    out.write(f"embedded {total} memories of {len(targets)} agents with model {model}\n")


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


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value!r}")
    return number


def _embedder_spec(value: str) -> str:
    module, sep, name = value.partition(":")
    if value != WORDLLAMA and not (sep and module and name):
        raise argparse.ArgumentTypeError(f"give {WORDLLAMA} or MODULE:FUNCTION, not {value!r}")
    return value


AGENT_HELP = "the agent: its handle or its id (a value that reads as a uuid is the id)"
TIME_HELP = "ISO 8601 with time zone, e.g. 2025-06-03T09:00:00+00:00"
DSN_HELP = (
    "libpq connection string or URI of the database (default: $AGENT_STATE_DSN, else $DATABASE_URL)"
)

EPILOG = """\
The database: --dsn, else $AGENT_STATE_DSN, else $DATABASE_URL. Given none, only
`demo` runs (on a throwaway PostgreSQL started from the local server binaries and
removed afterwards); every other command says "no database given".

--agent takes an agent's handle or its id; `agent-state agents` lists them.

exit status:
  0  done
  1  the command failed: an error of the database (printed with its SQLSTATE),
     no connection, a restore not confirmed, no embedder for `embed`
  2  usage error: bad or missing arguments, or no database given
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-state",
        description="Versioned, perspective-isolated agent state in PostgreSQL.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agent-state {__version__}")
    parser.add_argument("--dsn", default=None, help=DSN_HELP)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dsn", default=argparse.SUPPRESS, help=DSN_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "install",
        parents=[common],
        help="install or upgrade the bundled SQL; says what it did and what comes next",
        description=(
            "Installs agent_state as plain SQL (the bundle in this package), upgrades an "
            "older plain install, or does nothing when it is current or installed with "
            "CREATE EXTENSION; prints which. When the installing role is not a member of "
            "agent_state_operator it prints the GRANT to run next."
        ),
    )
    p.set_defaults(func=_cmd_install)

    p = sub.add_parser(
        "demo",
        parents=[common],
        help="walk through persona, memory and a turn (a throwaway server without a DSN)",
    )
    p.set_defaults(func=_cmd_demo, throwaway=True)

    p = sub.add_parser(
        "agents",
        parents=[common],
        help="list the agents this role may act for",
        description=(
            "The agents the connecting role may act for right now (operators: every "
            "agent; runtimes: the agents they host), oldest first: id, created, handle, "
            "display name."
        ),
    )
    p.add_argument("--json", action="store_true", help="print a JSON array instead")
    p.set_defaults(func=_cmd_agents)

    p = sub.add_parser("recall", parents=[common], help="rank an agent's eligible memories")
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument("query", nargs="?", default="", help="words to match (websearch syntax)")
    p.add_argument("--conversation", type=_uuid, default=None, help="target conversation id")
    p.add_argument("--subject", type=_uuid, default=None, help="id of the actor spoken with")
    p.add_argument("--max-results", type=int, default=None, help="at most this many (10)")
    p.add_argument("--as-of", type=_timestamp, default=None, help=TIME_HELP)
    p.set_defaults(func=_cmd_recall)

    p = sub.add_parser(
        "history", parents=[common], help="persona history, or one memory entry's or tool's"
    )
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--entry", type=_uuid, default=None, help="a memory entry's history")
    what.add_argument("--tool", default=None, help="a tool grant's history (tool name)")
    p.set_defaults(func=_cmd_history)

    p = sub.add_parser(
        "import",
        parents=[common],
        help="import a markdown memory file into an agent (import_markdown)",
        description=(
            "Migrates a markdown memory file into memory entries with source_type import, "
            "keeping the file's text as their evidence (docs/markdown.md). Needs an operator."
        ),
    )
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument("--file", default="-", help="the markdown file (default: stdin)")
    p.set_defaults(func=_cmd_import)

    p = sub.add_parser(
        "export-agent",
        parents=[common],
        help="write an agent's whole state as a JSON document (export_agent)",
        description=(
            "Writes export_agent's document: every row of every table the agent owns, ids, "
            "revision numbers and stamps kept, its hosting grants by role name and a digest. "
            "import-agent loads it into another database. Needs an operator."
        ),
    )
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument("--file", default="-", help="where to write it (default: stdout)")
    p.set_defaults(func=_cmd_export_agent)

    p = sub.add_parser(
        "import-agent",
        parents=[common],
        help="load a document export-agent wrote (import_agent); prints the agent's id",
        description=(
            "Loads the document into this database with import_agent: all or nothing. The "
            "agent's id and handle must be free here, its hosting roles must exist and the "
            "tools its grants name must be registered. Needs an operator."
        ),
    )
    p.add_argument("--file", default="-", help="the document (default: stdin)")
    p.set_defaults(func=_cmd_import_agent)

    p = sub.add_parser("export", parents=[common], help="print the markdown export")
    p.add_argument("--agent", required=True, help=AGENT_HELP)
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
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument("--since", type=_timestamp, default=None, help=TIME_HELP)
    p.add_argument("--until", type=_timestamp, default=None, help=TIME_HELP)
    p.add_argument("--max-results", type=int, default=None, help="1 to 100000 (default 1000)")
    p.set_defaults(func=_cmd_timeline)

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
    p.add_argument("--agent", required=True, help=f"the agent to fork: {AGENT_HELP}")
    p.add_argument("--handle", required=True, help="handle of the new agent (unique)")
    p.add_argument("--as-of", type=_timestamp, default=None, help=TIME_HELP)
    p.add_argument("--display-name", default=None, help="display name of the new agent")
    p.set_defaults(func=_cmd_fork)

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
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument("--as-of", type=_timestamp, required=True, help=TIME_HELP)
    p.add_argument("--reason", required=True, help="recorded with the restore")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=_cmd_restore)

    p = sub.add_parser(
        "embed",
        parents=[common],
        help="embed the memories still waiting for an embedding (one agent or all)",
        description=(
            "Runs embed_pending: every current memory revision without an embedding of "
            "the model is embedded and attached, in batches of one transaction each, for "
            "--agent or, without it, for every agent this role may act for. Progress goes "
            "to stderr; one line per agent and a total to stdout. Needs pgvector in the "
            "database."
        ),
    )
    p.add_argument(
        "--agent", default=None, help=f"{AGENT_HELP} (default: every agent this role may act for)"
    )
    p.add_argument(
        "--embedder",
        type=_embedder_spec,
        default=WORDLLAMA,
        help=(
            f"{WORDLLAMA} (the semantic extra's bundled model, the default) or MODULE:FUNCTION,"
            " a callable taking a list of texts and returning one vector per text"
        ),
    )
    p.add_argument(
        "--model",
        default=None,
        help="the embedding model's name, stored with each embedding (needed with "
        "MODULE:FUNCTION; default for wordllama: its model's name)",
    )
    p.add_argument(
        "--batch", type=_positive, default=100, help="texts per batch and transaction (100)"
    )
    p.set_defaults(func=_cmd_embed)

    p = sub.add_parser(
        "verify",
        parents=[common],
        help="check every invariant and the hash chains (one agent or all); exit 1 on a problem",
        description=(
            "Runs agent_state.verify: every invariant over the stored rows and the hash "
            "chains of the agent (or of every agent), one tab-separated line per problem "
            "(check, object, detail). With --witness FILE (or --expected-head), also checks "
            "that the agent's history up to the newest head kept there is intact: not "
            "truncated, rolled back or rewritten. Exit status 1 when anything is found. "
            "Operators only."
        ),
    )
    p.add_argument("--agent", default=None, help=f"{AGENT_HELP} (default: every agent)")
    p.add_argument(
        "--witness", default=None, help="a witness file (JSON lines of heads; see `head`)"
    )
    p.add_argument("--expected-head", default=None, help="a head that chain_head returned")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser(
        "head",
        parents=[common],
        help="print an agent's current head (and append it to a witness file)",
        description=(
            "Prints the digest chain_head returns for the agent: keep it outside the "
            "database and give it back to `verify --expected-head`. With --witness FILE the "
            "head is also appended to that file as a JSON line."
        ),
    )
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument("--witness", default=None, help="a witness file to append the head to")
    p.set_defaults(func=_cmd_head)

    # `mcp`: registered by its own module, which loads the mcp SDK only when it runs.
    from .integrations.mcp_cli import add_mcp_command

    add_mcp_command(sub, common)

    # `inspect`: registered by its own module, which loads Starlette only when it runs.
    from .inspector.command import add_inspect_command

    add_inspect_command(sub, common)

    # `shard`: a PL/Proxy router over several databases (agent_state.router).
    from .router.command import add_shard_command

    add_shard_command(sub, common)
    return parser


@contextmanager
def _throwaway(err: TextIO) -> Iterator[str]:
    """A throwaway cluster with the bundle installed (for ``demo`` without a DSN)."""
    err.write("agent-state: no DSN given; starting a throwaway PostgreSQL (removed on exit)\n")
    # Imported here: with a DSN the command never needs the cluster launcher.
    from .embedded import ClusterError, TemporaryCluster

    try:
        with TemporaryCluster(fsync=False, demo=True) as cluster:
            embedded_dsn = cluster.dsn()
            install(embedded_dsn)
            yield embedded_dsn
    except ClusterError as e:
        raise _NoServer(str(e)) from e


class _NoServer(Exception):
    """No throwaway PostgreSQL could be started (no usable local server binaries)."""


@contextmanager
def _store(args: argparse.Namespace, err: TextIO) -> Iterator[Store]:
    if default_dsn(args.dsn) and not getattr(args, "demo", False):
        conn = _connect(args.dsn, "--dsn", autocommit=True)
        with Store(conn, owned=True) as store:
            yield store
        return
    with _throwaway(err) as dsn:
        conn = _connect(dsn, "the throwaway server", autocommit=True)
        with Store(conn, owned=True) as store:
            yield store


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agent-state`` command; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    if args.command == "embed" and args.embedder != WORDLLAMA and not args.model:
        parser.error("embed: --model is needed with --embedder MODULE:FUNCTION")
    if getattr(args, "check", None) is not None:  # a command's own cross-argument checks
        args.check(parser, args)
    func: Callable[[Store, argparse.Namespace, TextIO], None] = args.func
    if not default_dsn(args.dsn) and not getattr(args, "throwaway", False):
        # A throwaway database would hold no state to read or change.
        err.write(f"agent-state: error: {NO_DATABASE}\n")
        return 2
    try:
        with _store(args, err) as store:
            if getattr(args, "agent", None) is not None:
                args.agent_id = _resolve_agent(store, args.agent)
            func(store, args, out)
    except Error as e:
        code = f"[{e.sqlstate}] " if e.sqlstate else ""
        text = str(e)
        err.write(f"agent-state: error: {code}{text}\n")
        if isinstance(e, NotInstalled):
            err.write("agent-state: hint: run `agent-state install` against this database\n")
        elif e.hint and e.hint not in text:
            err.write(f"agent-state: hint: {e.hint}\n")
        return 1
    except (_Refused, _Failed) as e:
        err.write(f"agent-state: {'' if isinstance(e, _Refused) else 'error: '}{e}\n")
        return 1
    except (_NoServer, FileNotFoundError) as e:  # no usable local server binaries
        err.write(f"agent-state: error: embedded PostgreSQL: {e}\n")
        return 1
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
