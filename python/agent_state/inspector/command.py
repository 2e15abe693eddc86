"""The ``agent-state inspect`` command's arguments and start-up. Starlette, Jinja2 and
uvicorn are imported only when the command runs (the ``inspect`` extra)."""

from __future__ import annotations

import argparse
import io
import ipaddress
import os
import secrets
from typing import Any, TextIO

from ..errors import Error

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "TOKEN_ENV",
    "StartRefused",
    "add_inspect_command",
    "check_args",
    "is_loopback",
]

DEFAULT_HOST = "127.0.0.1"
"""Where the inspector listens unless told otherwise: the loopback address."""

DEFAULT_PORT = 8765


class StartRefused(Error):
    """``agent-state inspect`` will not start: no extra installed, or a non-loopback bind."""


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP address (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {value!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range: {value!r}")
    return port


TOKEN_ENV = "AGENT_STATE_INSPECT_TOKEN"
"""Where ``--allow-remote`` takes its token from (else one is generated and printed)."""


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """What argparse cannot check alone: a non-loopback ``--host`` needs
    ``--allow-remote``; ``--demo`` starts its own database, so it takes no ``--dsn``."""
    if not is_loopback(args.host) and not args.allow_remote:
        parser.error(
            f"inspect: --host {args.host!r} is not a loopback address: the inspector shows "
            "everything the DSN's role may read, so it listens on this machine only "
            "(127.0.0.1, ::1 or localhost) unless given --allow-remote, which also makes "
            f"every request carry a token (${TOKEN_ENV}, else a generated one)"
        )
    if args.demo:
        if args.dsn:
            parser.error("inspect: --demo starts a throwaway database of its own; omit --dsn")
        # Refused before a throwaway server is started for nothing.
        try:
            _web_server()
        except StartRefused as e:
            parser.exit(1, f"agent-state: error: {e}\n")
        args.throwaway = True


DESCRIPTION = """\
Serves a read-only web page over the read functions, as the DSN's role (it sees what
that role may see): the agents; per agent the persona and profile history with what
changed between revisions, the tool grants, the memory entries with their revisions and
provenance, which entries may enter a chosen conversation and the rule that keeps each
other one out, the timeline with a moment picker that shows the state as it was then,
the runs with their budget and unconfirmed tool calls, and verify() with each agent's
chain head. As an operator also the evidence messages with their audiences, sharing
grants, and each run's snapshots, model and tool calls and checkpoints.

It listens on the loopback address unless given --allow-remote (then every request
must carry a token), answers GET and HEAD (any other method: 405) and escapes every
stored text. --demo serves on a throwaway database holding the demo's agent. Stop it
with Ctrl-C."""


def add_inspect_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """Register ``inspect`` on the command line's subparsers (``common`` gives ``--dsn``)."""
    p = sub.add_parser(
        "inspect",
        parents=[common],
        help="browse agents, memory, timeline and runs in a local read-only web page",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on (default {DEFAULT_HOST}; a loopback one unless --allow-remote)",
    )
    p.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help=(
            "allow a --host that is not a loopback address; every request must then carry "
            f"a token as the password of HTTP Basic auth (${TOKEN_ENV}, else generated and "
            "printed once)"
        ),
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help=(
            "start a throwaway PostgreSQL, fill it with the demo's agent (agent-state demo) "
            "and serve on it; removed on exit"
        ),
    )
    p.set_defaults(func=_cmd_inspect, check=check_args, throwaway=False)


def _web_server() -> tuple[Any, Any]:
    """uvicorn and the app factory; StartRefused naming the extra when missing."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as e:
        if (e.name or "").split(".")[0] not in ("starlette", "jinja2", "uvicorn"):
            raise
        raise StartRefused(
            f"the inspector's web server is not installed ({e}): pip install 'agent-state[inspect]'"
        ) from e
    return uvicorn, create_app


def _cmd_inspect(store: Any, args: argparse.Namespace, out: TextIO) -> None:
    uvicorn, create_app = _web_server()
    if args.demo:
        from .._demo import Demo

        Demo(store, io.StringIO(), own_server=True).run()
        handles = ", ".join(a.handle for a in store.list_agents())
        out.write(f"agent-state inspect: demo data loaded (agent {handles})\n")
    token = None
    if args.allow_remote:
        token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
        if not os.environ.get(TOKEN_ENV):
            out.write(
                f"agent-state inspect: token (the password of HTTP Basic auth; set "
                f"${TOKEN_ENV} to choose one): {token}\n"
            )
    host = args.host
    shown = f"[{host}]" if ":" in host else host
    out.write(f"agent-state inspect: http://{shown}:{args.port}/ (read-only; Ctrl-C stops)\n")
    out.flush()
    uvicorn.run(create_app(store, token=token), host=host, port=args.port, log_level="warning")
