"""What the inspector reads out of ``export_agent`` (an operator's read function): the
rows no other read function lists, namely evidence messages with their text and
audiences, sharing grants, and a run's snapshots, model calls, tool calls, results and
checkpoints. A runtime role may not call ``export_agent``; its pages say so and show
what its own read functions return.

Also the "eligible in" reasons: whether an entry may enter a conversation's context is
``memory_entry(agent, entry, conversation => c)``'s answer (a row or none); why one may
not is derived here from what the read functions returned (the entry's state from
``list_memories``, its current revision's visibility and evidence from
``memory_history``, and, for operators, the messages' audiences and the sharing grants
from ``export_agent``), following SPEC's three eligibility rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

__all__ = ["Ledger", "budget_over_run", "iso_moment", "why_eligible", "why_not_eligible"]


def iso_moment(text: str) -> datetime:
    """An ISO 8601 moment as PostgreSQL's JSON and a browser's form write it: a
    space or T, a Z or an offset, and a fraction without its trailing zeros (before
    Python 3.11, fromisoformat takes 3 or 6 fraction digits only). ValueError when
    it is none."""
    text = text.strip().replace(" ", "T")
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = re.sub(r"(T\d\d:\d\d:\d\d)\.(\d{1,6})", lambda m: f"{m[1]}.{m[2]:0<6}", text)
    return datetime.fromisoformat(text)


def _when(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    return iso_moment(str(value))


class Ledger:
    """One agent's ``export_agent`` document, indexed for the pages."""

    def __init__(self, document: dict[str, Any]) -> None:
        tables: dict[str, list[dict[str, Any]]] = document.get("tables") or {}
        self.tables = tables
        self.actors = {r["actor_id"]: r for r in tables.get("actors", [])}
        self.messages = {r["message_id"]: r for r in tables.get("messages", [])}
        self.conversations = {r["conversation_id"]: r for r in tables.get("conversations", [])}
        self.revisions = {
            (r["entry_id"], r["revision"]): r for r in tables.get("memory_revisions", [])
        }
        self.redacted = {r["entry_id"] for r in tables.get("memory_redactions", [])}

    def rows(self, table: str, **match: Any) -> list[dict[str, Any]]:
        return [
            r
            for r in self.tables.get(table, [])
            if all(str(r.get(k)) == str(v) for k, v in match.items())
        ]

    def actor_name(self, actor: Any) -> str:
        row = self.actors.get(str(actor))
        if row is None:
            return str(actor)
        return str(row.get("display_name") or actor)

    def conversation_name(self, conversation: Any) -> str:
        row = self.conversations.get(str(conversation))
        if row is None:
            return str(conversation)
        return f"{row['connector']} {row['external_ref']} ({row['kind']})"

    def message(self, message: Any) -> dict[str, Any]:
        """A message with its author, conversation and audience (None: public)."""
        row = self.messages.get(str(message))
        if row is None:
            return {"message": str(message), "known": False}
        audience = row.get("audience")
        return {
            "message": str(message),
            "known": True,
            "body": row.get("body"),
            "author": self.actor_name(row.get("author_id")),
            "conversation": row.get("conversation_id"),
            "conversation_name": self.conversation_name(row.get("conversation_id")),
            "observed_at": row.get("observed_at"),
            "public": audience is None,
            "audience": [self.actor_name(a) for a in audience or []],
            "audience_ids": [str(a) for a in audience or []],
        }

    def shares(self, entry: Any) -> list[dict[str, Any]]:
        """Every sharing grant of the entry (revoked ones too), oldest first."""
        out = []
        for r in sorted(self.rows("memory_shares", entry_id=entry), key=lambda r: r["share_id"]):
            out.append(
                {
                    **r,
                    "conversation_name": self.conversation_name(r["conversation_id"]),
                    "live": r.get("revoked_at") is None,
                }
            )
        return out

    def latest_audience(self, conversation: Any) -> tuple[bool, list[str] | None]:
        """(has messages, audience ids of its latest message; None = public). Latest:
        latest observed_at, then latest recorded (SPEC 6, eligibility)."""
        rows = self.rows("messages", conversation_id=conversation)
        if not rows:
            return False, None
        latest = max(
            rows,
            key=lambda r: (
                _when(r.get("observed_at")) or _when(r["created_at"]),
                _when(r["created_at"]),
                int(r.get("chain_xact") or 0),
            ),
        )
        audience = latest.get("audience")
        return True, None if audience is None else [str(a) for a in audience]

    def run(self, run: Any, sources: dict[str, list[Any]]) -> dict[str, Any]:
        """A run's snapshots (with the sources ``snapshot_sources`` returned for each, in
        prompt order), model calls, tool calls with their results, and checkpoints."""
        snapshots = []
        for s in sorted(self.rows("prompt_snapshots", run_id=run), key=lambda r: r["created_at"]):
            memories, messages = [], []
            for src in sources.get(s["snapshot_id"], []):
                if src.kind == "memory":
                    rev = self.revisions.get((str(src.entry), src.revision), {})
                    memories.append(
                        {"entry": src.entry, "revision": src.revision, "body": rev.get("body")}
                    )
                elif src.kind == "message":
                    messages.append(self.message(src.message))
            snapshots.append({**s, "memories": memories, "messages": messages})
        model_calls = sorted(self.rows("model_calls", run_id=run), key=lambda r: r["created_at"])
        tool_calls = []
        for c in sorted(self.rows("tool_calls", run_id=run), key=lambda r: r["created_at"]):
            results = sorted(
                self.rows("tool_results", tool_call_id=c["tool_call_id"]),
                key=lambda r: r["result_no"],
            )
            latest = results[-1]["status"] if results else "none"
            tool_calls.append(
                {
                    **c,
                    "results": results,
                    "outcome": latest,
                    "unconfirmed": latest in ("unconfirmed", "none"),
                }
            )
        checkpoints = sorted(self.rows("checkpoints", run_id=run), key=lambda r: r["checkpoint"])
        return {
            "snapshots": snapshots,
            "model_calls": model_calls,
            "tool_calls": tool_calls,
            "checkpoints": checkpoints,
        }


def why_not_eligible(
    state: Any,
    evidence_of: Callable[[], list[Any]],
    conversation: UUID,
    ledger: Ledger | None,
) -> tuple[str, str, list[str]]:
    """(rule, reason, details) for an entry that memory_entry(conversation) did not return.

    ``state``: its list_memories row (the current revision's visibility and source type);
    ``evidence_of``: the current revision's evidence messages (memory_history), asked for
    only when the explanation names them; ``ledger``: export_agent's rows, or None when
    this role may not read them (then the reason names the rule only).
    """
    if not state.live:
        redacted = ledger is not None and str(state.entry) in ledger.redacted
        what = "redacted" if redacted else "forgotten"
        return "rule 1", f"the entry is {what}: only live entries enter a context", []
    evidence = [str(m) for m in evidence_of()] if ledger is not None else []
    if state.visibility == "conversation":
        if ledger is None:
            return (
                "rule 2",
                "visibility 'conversation': it may enter only the conversation its evidence "
                "came from, and this is not that conversation (the evidence's conversations "
                "are shown to operators)",
                [],
            )
        came_from = {str(ledger.message(m).get("conversation")) for m in evidence}
        if came_from != {str(conversation)}:
            where = sorted(ledger.conversation_name(c) for c in came_from)
            return (
                "rule 2",
                "visibility 'conversation': its evidence came from "
                + (", ".join(where) or "no conversation")
                + ", not from this conversation",
                [],
            )
        # Its evidence came from here: what keeps it out is who is in the
        # audience now (the audience test below, as for 'perspective').
    if ledger is None:
        return (
            "rule 2",
            "visibility 'perspective': someone in this conversation's audience (the audience of "
            "its latest message) could not observe one of its evidence messages, and no sharing "
            "grant admits its current revision here (the audiences and grants are shown to "
            "operators: export_agent)",
            [],
        )
    has_messages, audience = ledger.latest_audience(conversation)
    details = []
    if not has_messages:
        return (
            "rule 2",
            "this conversation has no message yet, so only operator notes and revisions whose "
            "evidence is all public are eligible; this revision's evidence is not all public",
            [],
        )
    for m in evidence:
        msg = ledger.message(m)
        if msg.get("public"):
            continue
        seen = set(msg.get("audience_ids") or [])
        if audience is None:
            details.append(
                f"the audience here is public; evidence message {m} was seen only by "
                + ", ".join(msg.get("audience") or [])
            )
            continue
        missing = [ledger.actor_name(a) for a in audience if a not in seen]
        if missing:
            details.append(
                f"{', '.join(missing)} could not observe evidence message {m} "
                f"(its audience: {', '.join(msg.get('audience') or [])})"
            )
    older = [
        s for s in ledger.shares(state.entry)
        if str(s["conversation_id"]) == str(conversation) and s["live"]
        and s["revision"] != state.revision
    ]  # fmt: skip
    for s in older:
        details.append(
            f"a sharing grant admits revision {s['revision']} here, not the current "
            f"revision {state.revision} (grants are revision-specific: rule 3)"
        )
    return (
        "rule 2",
        f"visibility '{state.visibility}': not everyone in this conversation's audience could "
        "observe its evidence, and no sharing grant admits its current revision here",
        details,
    )


def why_eligible(state: Any, conversation: UUID, ledger: Ledger | None) -> str:
    """Which rule admits an entry memory_entry(conversation) returned (best derivation)."""
    if ledger is not None:
        for s in ledger.shares(state.entry):
            if (
                str(s["conversation_id"]) == str(conversation)
                and s["live"]
                and s["revision"] == state.revision
            ):
                return "rule 3: a sharing grant for this revision and conversation"
    if state.source_type == "operator":
        return "rule 2: an operator note restricts nobody"
    if state.visibility == "conversation":
        return "rule 2: visibility 'conversation', and its evidence came from this conversation"
    return "rule 2: everyone in this conversation's audience could observe its evidence"


def budget_over_run(ledger: Ledger, run: Any, state: dict[str, Any]) -> dict[str, Any] | None:
    """A step chart of spending over the run, as a share of each limit: tokens and cost
    from its model calls, one tool_calls unit per tool call. The run's spent amounts
    include what the runs it continues spent, so each line starts there."""
    budget = state.get("budget") or {}
    limits, spent = budget.get("limits") or {}, budget.get("spent") or {}
    events: list[tuple[datetime, str, float]] = []
    for c in ledger.rows("model_calls", run_id=run):
        at = _when(c["created_at"])
        assert at is not None
        events.append((at, "tokens", float(c.get("tokens") or 0)))
        events.append((at, "cost_usd", float(c.get("cost_usd") or 0)))
    for c in ledger.rows("tool_calls", run_id=run):
        at = _when(c["created_at"])
        assert at is not None
        events.append((at, "tool_calls", 1.0))
    start = _when(state.get("started_at"))
    if start is None:
        return None
    events.sort(key=lambda e: e[0])
    end = _when(state.get("finished_at")) or (events[-1][0] if events else start)
    span = max((end - start).total_seconds(), 1e-6)
    width, height, left, top = 560, 200, 44, 10
    colours = {"tokens": "#0969da", "cost_usd": "#8250df", "tool_calls": "#bc4c00"}
    lines = []
    for name, colour in colours.items():
        limit = float(limits[name]) if limits.get(name) else None
        total = float(spent.get(name) or 0)
        ours = [e for e in events if e[1] == name]
        if not ours and not total:
            continue
        scale = limit or max(total, 1e-9)
        value = max(total - sum(e[2] for e in ours), 0.0)

        def point(at: datetime, v: float, scale: float = scale) -> str:
            x = left + width * min(max((at - start).total_seconds() / span, 0.0), 1.0)
            y = top + height * (1 - min(v / scale, 1.1) / 1.1)
            return f"{x:.1f},{y:.1f}"

        points = [point(start, value)]
        for at, _, amount in ours:
            points.append(point(at, value))
            value += amount
            points.append(point(at, value))
        points.append(point(end, value))
        label = f"{name}: {value:g}" + (f" of {limit:g}" if limit else " (no limit)")
        lines.append({"name": name, "colour": colour, "points": " ".join(points), "label": label})
    if not lines:
        return None
    limit_y = top + height * (1 - 1 / 1.1)
    return {
        "lines": lines,
        "width": left + width + 10,
        "height": top + height + 40,
        "left": left,
        "top": top,
        "plot_width": width,
        "plot_height": height,
        "limit_y": round(limit_y, 1),
        "half_y": round(top + height * (1 - 0.5 / 1.1), 1),
        "zero_y": top + height,
        "start": start,
        "end": end,
    }
