"""The ``agent-state shard`` command: create a router over shards, move an agent,
compare the shards (SPEC section 15; docs/scaling.md)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

import psycopg

from ..errors import Error, from_psycopg

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["add_shard_command"]


def _shard_spec(value: str) -> tuple[str, str]:
    name, sep, dsn = value.partition("=")
    if not sep or not name or not dsn:
        raise argparse.ArgumentTypeError(
            f"give NAME=DSN, e.g. a='host=db1 dbname=agents', not {value!r}"
        )
    return name, dsn


def _connect(dsn: str) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(dsn, autocommit=True)
    except psycopg.Error as e:
        raise from_psycopg(e) from e


def _init(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    from . import add_shards, install

    with _connect(args.dsn) as conn:
        try:
            created = install(conn)
            out.write("router created\n" if created else "router already there\n")
            for name, count in add_shards(conn, dict(args.shard)).items():
                out.write(f"shard {name}: added, {count} agents entered in the directory\n")
        except psycopg.Error as e:
            raise from_psycopg(e) from e


def _move(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    from . import move

    with _connect(args.dsn) as conn:
        try:
            agent = str(getattr(args, "agent_id", args.agent))  # main() resolved a handle
            done = threading.Event()

            def progress() -> None:  # a move of a big agent takes seconds
                started = time.monotonic()
                while not done.wait(1.0):
                    sys.stderr.write(
                        f"agent-state: moving {args.agent} to {args.to}: "
                        f"{time.monotonic() - started:.0f} s\n"
                    )

            ticker = threading.Thread(target=progress, daemon=True)
            ticker.start()
            try:
                result = move(conn, agent, args.to)
            finally:
                done.set()
        except psycopg.Error as e:
            raise from_psycopg(e, function="move_agent") from e
    out.write(json.dumps(result, sort_keys=True) + "\n")


def _check(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    """Report (and with --repair fix) what the shards disagree on. The exit status
    is what a check finds afterwards: one repair can settle several rows (a move
    is reported by both shards and resolved once), so the rows' own flags do not
    tell whether anything is left."""
    with _connect(args.dsn) as conn:
        try:
            query = "SELECT * FROM agent_state.shard_check(repair => %s)"
            rows = conn.execute(query, (args.repair,)).fetchall()
            left = conn.execute(query, (False,)).fetchall() if args.repair and rows else rows
        except psycopg.Error as e:
            raise from_psycopg(e, function="shard_check") from e
    for shard, problem, obj, detail, repaired in rows:
        out.write(f"{shard}\t{problem}\t{obj}\t{detail}{'  (repaired)' if repaired else ''}\n")
    if left:
        raise _Disagree(f"{len(left)} problems left")
    out.write("the shards agree\n")


class _Disagree(Error):
    """``shard check`` found problems it did not (or could not) repair."""


def add_shard_command(sub: Any, common: argparse.ArgumentParser) -> None:
    """Register ``agent-state shard init|move|check``."""
    p = sub.add_parser(
        "shard",
        help="a PL/Proxy router over several agent_state databases (init, move, check)",
        description=(
            "Agents spread over several PostgreSQL databases (shards, each a plain "
            "agent_state install) behind a router database with PL/Proxy (docs/scaling.md)."
        ),
    )
    shard_sub = p.add_subparsers(dest="shard_command", required=True, metavar="ACTION")

    router_help = "the router database's DSN (it needs the plproxy extension available)"
    q = shard_sub.add_parser(
        "init",
        help="create a router over named shards",
        description=(
            "Creates the router in the --router database (as a superuser) and adds each "
            "shard: NAME=DSN, where DSN names no user or password (each caller reaches "
            "the shard as its own role). The shards' agents enter the directory."
        ),
    )
    q.add_argument("--router", dest="dsn", required=True, help=router_help)
    q.add_argument(
        "--shard",
        action="append",
        type=_shard_spec,
        required=True,
        metavar="NAME=DSN",
        help="a shard (repeat for each)",
    )
    q.set_defaults(func=_init)

    q = shard_sub.add_parser(
        "move",
        help="move an agent to another shard (agent_state.move_agent)",
        description=(
            "Freezes the agent on its shard, exports it, imports it on SHARD, compares "
            "and verifies, switches the directory and retires the old copy. Calls for the "
            "agent wait meanwhile, then fail with 55006 (retry). Progress on stderr."
        ),
    )
    q.add_argument("--router", dest="dsn", required=True, help=router_help)
    q.add_argument("agent", help="the agent's handle or id")
    q.add_argument("to", metavar="SHARD", help="the shard to move it to")
    q.set_defaults(func=_move)

    q = shard_sub.add_parser(
        "check",
        help="compare the shards (tools, directory, unfinished moves); --repair fixes",
        description=(
            "Prints what agent_state.shard_check finds; exit status 1 if anything is "
            "left. --repair registers missing tools, enters missing agents and finishes "
            "or undoes interrupted moves."
        ),
    )
    q.add_argument("--router", dest="dsn", required=True, help=router_help)
    q.add_argument("--repair", action="store_true")
    q.set_defaults(func=_check)
