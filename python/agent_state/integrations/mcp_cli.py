"""The ``agent-state mcp`` command's arguments. This module does not import the ``mcp``
SDK, so ``agent-state --help`` works without the extra; the server
(:mod:`agent_state.integrations.mcp_server`) is imported when the command runs."""

from __future__ import annotations

import argparse
from typing import Any, TextIO
from uuid import UUID

from ..errors import Error

__all__ = ["LOOPBACK", "TOKEN_ENV", "StartRefused", "add_mcp_command", "parse_http", "parse_user"]

TOKEN_ENV = "AGENT_STATE_MCP_TOKEN"
"""The environment variable holding the bearer token HTTP clients must send."""

LOOPBACK = "127.0.0.1"
"""Where ``--http PORT`` listens."""


class StartRefused(Error):
    """``agent-state mcp`` will not start: no SDK, or HTTP without a token."""


def parse_user(value: str) -> tuple[str, str]:
    """``--user CONNECTOR:EXTERNAL_ID`` (the id may contain colons)."""
    connector, sep, external_id = value.partition(":")
    if not sep or not connector or not external_id:
        raise argparse.ArgumentTypeError(
            f"give CONNECTOR:EXTERNAL_ID, e.g. slack:U024BE7LH, not {value!r}"
        )
    return connector, external_id


def parse_http(value: str) -> tuple[str, int]:
    """``--http HOST:PORT``, ``:PORT`` or ``PORT`` (then the loopback address); an
    IPv6 host in brackets, ``[::1]:8000``. Port 0 picks a free port (printed)."""
    host, sep, port_text = value.rpartition(":")
    if not sep:
        host, port_text = "", value
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host or LOOPBACK
    try:
        port = int(port_text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give HOST:PORT or PORT, not {value!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range: {value!r}")
    return host, port


def _uuid(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a uuid: {value!r}") from None


DESCRIPTION = f"""\
A Model Context Protocol server bound to one agent, acting as the DSN's role (a role
that may not act for the agent is refused at start). Tools: remember, recall, context,
amend, forget, memory_history, active_persona; each calls stored functions only. The
user's words a memory rests on are recorded as the --user actor's message in the
session's conversation (connector mcp, one per client session unless --conversation
is given), in the same transaction as the memory.

stdio by default; --http serves streamable HTTP at /mcp, on the loopback address
unless a host is given, and only with a bearer token in ${TOKEN_ENV} (a request
without it gets 401)."""


def add_mcp_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """Register ``mcp`` on the command line's subparsers (``common`` gives ``--dsn``)."""
    from ..cli import AGENT_HELP, WORDLLAMA, _embedder_spec  # cli is loaded: it calls us

    p = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve an agent's memory to MCP clients (stdio, or HTTP with a token)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--agent", required=True, help=AGENT_HELP)
    p.add_argument(
        "--user",
        required=True,
        type=parse_user,
        metavar="CONNECTOR:EXTERNAL_ID",
        help="the person the server speaks with (resolve_actor), e.g. mcp:alice",
    )
    p.add_argument(
        "--conversation",
        type=_uuid,
        default=None,
        help="record into this conversation of the agent (default: one new conversation "
        "per client session, connector mcp)",
    )
    p.add_argument(
        "--http",
        type=parse_http,
        default=None,
        metavar="HOST:PORT",
        help=f"serve streamable HTTP instead of stdio (PORT alone: {LOOPBACK}); needs ${TOKEN_ENV}",
    )
    p.add_argument(
        "--embedder",
        type=_embedder_spec,
        default=None,
        help=f"hybrid recall: {WORDLLAMA} or MODULE:FUNCTION (as for `agent-state embed`); "
        "new revisions get their embedding when written",
    )
    p.add_argument("--model", default=None, help="the embedding model's name (see embed)")
    p.set_defaults(func=_cmd_mcp)


def _cmd_mcp(store: Any, args: argparse.Namespace, out: TextIO) -> None:
    try:
        from .mcp_server import run
    except ImportError as e:
        if (e.name or "").split(".")[0] not in ("mcp", "mcp_types", "uvicorn", "starlette"):
            raise
        raise StartRefused(
            f"the Model Context Protocol SDK is not installed ({e}): pip install 'agent-state[mcp]'"
        ) from e
    run(store, args)
