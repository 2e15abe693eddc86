"""``agent-state``: install, demo, recall, history, export.

Every command works against ``--dsn`` (default ``$AGENT_STATE_DSN``, else
``$DATABASE_URL``). With no DSN at all it starts a throwaway PostgreSQL from the local
server binaries, installs the bundled SQL into it, runs the command and removes the
cluster again.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import TextIO
from uuid import UUID, uuid4

from . import __version__
from ._install import install
from .embedded import ClusterError, TemporaryCluster
from .errors import Duplicate, Error, NotInstalled
from .results import MemoryRevision, PersonaRevision, RecallHit, ToolGrantRevision
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


# ------------------------------------------------------------------ demo


class _Demo:
    """The walkthrough printed by ``agent-state demo``."""

    def __init__(self, store: Store, out: TextIO) -> None:
        self.s = store
        self.out = out

    def say(self, line: str = "") -> None:
        self.out.write(line + "\n")

    def section(self, title: str, body: Callable[[], None], *, optional: bool = False) -> bool:
        """Run one part of the demo.

        An ``optional`` part is skipped with a note when its functions are not in the
        database (an older or partial install); the rest of the demo goes on.
        """
        self.say()
        self.say(f"== {title}")
        if not optional:
            body()
            return True
        try:
            body()
        except NotInstalled as e:
            self.say(f"  skipped: this database does not have it ({e.message})")
            return False
        return True

    def run(self) -> None:
        s = self.s
        self.say(f"agent_state {s.version()} (Python wrapper {__version__})")
        handle = f"demo-{uuid4().hex[:8]}"
        self.agent = s.create_agent(
            handle=handle,
            display_name="Demo Agent",
            settings={"subject_boost": 1.0, "recency_half_life": "30 days"},
        )
        self.say(f"Created agent {handle}: {self.agent}")
        self.section("Actors and conversations", self.foundation)
        self.section("Persona", self.persona)
        if self.section("Memory", self.memory, optional=True):
            self.section("One turn", self.turn, optional=True)
        self.section("Markdown export", self.export, optional=True)

    def foundation(self) -> None:
        s, a = self.s, self.agent
        self.alice = s.resolve_actor(
            agent=a, connector="slack", external_id="U-ALICE", display_name="Alice"
        )
        self.bob = s.resolve_actor(
            agent=a, connector="slack", external_id="U-BOB", display_name="Bob"
        )
        self.me = s.resolve_actor(
            agent=a, connector="slack", external_id="U-DEMO", display_name="Demo", kind="agent"
        )
        s.link_identity(agent=a, actor=self.alice, connector="github", external_id="alice")
        self.say(f"  Alice {self.alice} (slack U-ALICE, linked to github alice)")
        self.say(f"  Bob   {self.bob} (slack U-BOB)")
        self.say(f"  agent {self.me} (slack U-DEMO)")
        self.dm = s.open_conversation(
            agent=a, connector="slack", external_ref="D-ALICE", kind="direct"
        )
        self.team = s.open_conversation(
            agent=a, connector="slack", external_ref="C-TEAM", kind="group"
        )
        self.say(f"  direct conversation with Alice {self.dm}")
        self.say(f"  group conversation #team       {self.team}")
        dm_audience = [self.alice, self.me]
        team_audience = [self.alice, self.bob, self.me]
        self.m_allergy = self._message(
            self.dm,
            self.alice,
            "Alice",
            dm_audience,
            "Just so you know, I am allergic to peanuts. Please keep that in mind.",
        )
        self._message(self.dm, self.me, "agent", dm_audience, "Noted, I will remember that.")
        self.m_question = self._message(
            self.dm,
            self.alice,
            "Alice",
            dm_audience,
            "Can you suggest a snack for my flight tomorrow?",
        )
        self.m_team = self._message(
            self.team,
            self.bob,
            "Bob",
            team_audience,
            "Who is bringing snacks to the offsite?",
        )

    def _message(
        self, conversation: UUID, author: UUID, name: str, audience: list[UUID], body: str
    ) -> UUID:
        where = "DM" if conversation == self.dm else "#team"
        msg = self.s.record_message(
            agent=self.agent,
            conversation=conversation,
            author=author,
            body=body,
            audience=audience,
        )
        self.say(f"  [{where}] {name}: {body}")
        return msg

    def persona(self) -> None:
        s, a = self.s, self.agent
        bodies = [
            "You are Demo, a friendly assistant for a small team.",
            "You are Demo, a friendly and concise assistant for a small team.",
            "You are Demo. Answer in haiku.",
        ]
        revisions = [s.revise_persona(agent=a, body=b) for b in bodies]
        self.say(
            f"  wrote revision {revisions[0]}, then revised it twice: revisions {revisions[1:]}"
        )
        s.activate_persona(agent=a, revision=revisions[0])
        self.say(f"  reverted to revision {revisions[0]} (re-activated, nothing copied)")
        self.say("  history:")
        _print_persona_history(self.out, s.persona_history(agent=a))
        active = s.active_persona(agent=a)
        if active is not None:
            self.say(
                f"  active now: revision {active.revision} since {_when(active.activated_at)}: "
                f"{active.body!r}"
            )

    def memory(self) -> None:
        s, a = self.s, self.agent
        ref = s.remember(
            agent=a,
            body="Alice is allergic to peanuts.",
            source_message=self.m_allergy,
            subject=self.alice,
        )
        self.memory_ref = ref
        self.say(f"  remembered from Alice's DM: entry {ref.entry} revision {ref.revision}")
        self.say("  recall 'peanuts' in the DM with Alice:")
        _print_hits(
            self.out,
            s.recall(agent=a, query="peanuts", conversation=self.dm, current_subject=self.alice),
        )
        self.say("  recall 'peanuts' in #team (Bob never saw the DM, so it must not appear):")
        _print_hits(self.out, s.recall(agent=a, query="peanuts", conversation=self.team))

    def turn(self) -> None:
        s, a = self.s, self.agent
        run = s.start_run(
            agent=a,
            conversation=self.dm,
            trigger_message=self.m_question,
            budget={"tokens": 20000, "cost_usd": 0.5, "tool_calls": 5},
        )
        self.say(f"  run {run} for Alice's question")
        context = s.context_for(agent=a, conversation=self.dm, message=self.m_question)
        self.say(f"  context_for: {len(context)} memory entr{'y' if len(context) == 1 else 'ies'}")
        _print_hits(self.out, context)
        persona = s.active_persona(agent=a)
        prompt = "\n".join(
            [
                persona.body if persona is not None else "",
                "Known facts:",
                *(f"- {h.body}" for h in context),
                "Alice: Can you suggest a snack for my flight tomorrow?",
            ]
        )
        snapshot = s.snapshot_prompt(
            agent=a,
            run=run,
            prompt=prompt,
            persona_revision=persona.revision if persona is not None else None,
            memory=[{"entry": str(h.entry), "revision": h.revision} for h in context],
            messages=[self.m_question],
        )
        self.say(f"  prompt snapshot {snapshot} ({len(prompt)} characters)")
        call = s.record_model_call(
            agent=a,
            run=run,
            snapshot=snapshot,
            provider="demo",
            model="echo-1",
            request={"prompt_chars": len(prompt)},
            response={"text": "Let me check the airline menu first."},
            usage={"tokens": 350, "cost_usd": 0.002},
        )
        self.say(f"  model call {call} (350 tokens charged to the run)")
        tool = "demo.menu_lookup"
        with suppress(Duplicate):
            s.register_tool(
                name=tool,
                version="1",
                config_schema={
                    "type": "object",
                    "properties": {"region": {"type": "string", "enum": ["eu", "us"]}},
                    "required": ["region"],
                },
            )
        grant = s.grant_tool(agent=a, tool=tool, enabled=True, config={"region": "eu"})
        auth = s.authorize_tool(agent=a, tool=tool)
        self.say(
            f"  tool {tool}: granted revision {grant}, authorized under revision {auth.revision}"
        )
        tool_call = s.record_tool_call(
            agent=a, run=run, tool=tool, input={"flight": "LH123"}, model_call=call
        )
        s.record_tool_result(
            agent=a, tool_call=tool_call, output={"snacks": ["pretzels", "fruit"]}, status="ok"
        )
        self.say(f"  tool call {tool_call}: ok")
        frontier = s.checkpoint(agent=a, run=run, frontier={"step": "answer", "pending": []})
        self.say(f"  checkpoint {frontier}")
        s.finish_run(agent=a, run=run, outcome="succeeded", detail={"answer": "pretzels"})
        state = s.recover_run(agent=a, run=run)
        self.say(
            f"  finished: status {state.get('status')}, budget spent "
            f"{json.dumps(state.get('budget', {}).get('spent'), sort_keys=True)}"
        )

    def export(self) -> None:
        text = self.s.export_markdown(agent=self.agent)
        for line in text.rstrip("\n").splitlines():
            self.say(f"  | {line}")


# ------------------------------------------------------------------ commands


def _cmd_install(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    conn = store.connection
    assert conn is not None
    version = install(conn)
    out.write(f"agent_state {version} is installed\n")


def _cmd_demo(store: Store, args: argparse.Namespace, out: TextIO) -> None:
    _Demo(store, out).run()


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
    return parser


@contextmanager
def _database(dsn: str | None, err: TextIO) -> Iterator[str]:
    """The DSN to use; an embedded throwaway cluster (with the bundle installed) if none."""
    resolved = default_dsn(dsn)
    if resolved:
        yield resolved
        return
    err.write("agent-state: no DSN given; starting a throwaway PostgreSQL (removed on exit)\n")
    cluster = TemporaryCluster(fsync=False)
    with cluster:
        embedded_dsn = cluster.dsn()
        install(embedded_dsn)
        yield embedded_dsn


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agent-state`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    func: Callable[[Store, argparse.Namespace, TextIO], None] = args.func
    try:
        with _database(args.dsn, err) as dsn, connect(dsn) as store:
            func(store, args, out)
    except Error as e:
        code = f"[{e.sqlstate}] " if e.sqlstate else ""
        err.write(f"agent-state: error: {code}{e}\n")
        if isinstance(e, NotInstalled):
            err.write("agent-state: hint: run `agent-state install` against this database\n")
        return 1
    except (ClusterError, FileNotFoundError) as e:  # no usable local server binaries
        err.write(f"agent-state: error: embedded PostgreSQL: {e}\n")
        return 1
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
