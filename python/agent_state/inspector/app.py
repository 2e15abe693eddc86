"""The inspector's ASGI app (Starlette): server-rendered pages over the read functions,
as the store's role. Only GET and HEAD are answered (any other method: 405); requests
must name a loopback host (a page read through DNS rebinding is refused); every page
carries a strict Content-Security-Policy (no script at all) and every stored text is
escaped by the templates."""

from __future__ import annotations

import base64
import difflib
import hmac
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime, timezone
from functools import partial
from typing import Any, TypeVar
from urllib.parse import quote
from uuid import UUID

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import (
    CrossPerspectiveReference,
    Error,
    InvalidArgument,
    NotFound,
    NotInstalled,
    PermissionDenied,
)
from ..store import Store
from .command import is_loopback
from .ledger import Ledger, budget_over_run, iso_moment, why_eligible, why_not_eligible
from .templates import ICON, STYLE, environment

__all__ = ["CSP", "create_app"]

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
"""No script from anywhere, styles from the app's own stylesheet only."""

_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]

T = TypeVar("T")

_MAX_LIST = 1000  # rows shown in listings; one more is asked for, to tell a cut list


def _cut(rows: Sequence[T]) -> tuple[Sequence[T], bool]:
    """The rows a listing shows, and whether there were more (asked for _MAX_LIST + 1)."""
    return rows[:_MAX_LIST], len(rows) > _MAX_LIST


class _Guard:
    """Pure ASGI middleware: 405 for every method but GET and HEAD (on every path),
    400 for a Host that is not a loopback name, and the security headers."""

    def __init__(self, app: ASGIApp, token: str | None = None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            response: Response = PlainTextResponse(
                "the inspector is read-only: only GET and HEAD are answered\n",
                status_code=405,
                headers={"Allow": "GET, HEAD"},
            )
            await response(scope, receive, self._with_headers(send))
            return
        headers = dict(scope["headers"])
        if self.token is not None:
            # Served beyond this machine: every request carries the token (HTTP Basic,
            # any user name). The token, not the Host, then keeps other pages out.
            if not _token_matches(headers.get(b"authorization", b""), self.token):
                response = PlainTextResponse(
                    "the inspector needs its token (the password of HTTP Basic auth)\n",
                    status_code=401,
                    headers={"WWW-Authenticate": 'Basic realm="agent_state inspector"'},
                )
                await response(scope, receive, self._with_headers(send))
                return
            await self.app(scope, receive, self._with_headers(send))
            return
        host = _host_name(headers.get(b"host", b"").decode("latin-1"))
        if not is_loopback(host):
            response = PlainTextResponse(
                "the inspector answers requests for a loopback host only\n", status_code=400
            )
            await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send))

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        return wrapped


def _token_matches(header: bytes, token: str) -> bool:
    """Whether an Authorization header is HTTP Basic with ``token`` as the password."""
    scheme, _, value = header.decode("latin-1").partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    password = decoded.partition(":")[2]
    return hmac.compare_digest(password.encode(), token.encode())


def _host_name(header: str) -> str:
    """The host of a Host header, without the port (``[::1]:8765`` -> ``::1``)."""
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _line_diff(old: str, new: str) -> list[tuple[str, str]]:
    """A unified line diff as (css class, line) pairs; empty when the texts are equal."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=2)
    out: list[tuple[str, str]] = []
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            out.append(("hunk", line))
        elif line.startswith("+"):
            out.append(("add", line))
        elif line.startswith("-"):
            out.append(("del", line))
        else:
            out.append(("same", line))
    return out


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _profile_text(display_name: str | None, settings: Any) -> str:
    return f"display_name: {display_name if display_name is not None else '(none)'}\n" + (
        f"settings: {_json(settings)}"
    )


def _parse_moment(value: str | None, name: str) -> datetime | None:
    """An ISO 8601 moment from the query string; without a zone it is UTC."""
    if not value:
        return None
    try:
        moment = iso_moment(value)
    except ValueError:
        raise InvalidArgument(
            f"{name}: not a moment: {value[:40]!r} (give e.g. 2025-06-03T09:00:00)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _picked(params: Any, name: str) -> datetime | None:
    """A moment from the picker: the input holds milliseconds, so the form also sends
    the exact moment it was filled with (``<name>_exact``), used while the input
    still shows it; a moment the user typed is taken as typed."""
    moment = _parse_moment(params.get(name), name)
    exact = _parse_moment(params.get(f"{name}_exact"), f"{name}_exact")
    if moment is not None and exact is not None and _input_value(exact) == _input_value(moment):
        return exact
    return moment


def _evidence(store: Store, agent: UUID, memory: Any) -> list[Any]:
    """The evidence messages of a list_memories row's current revision (memory_history)."""
    history = store.memory_history(agent=agent, entry=memory.entry)
    current = next((h for h in history if h.revision == memory.revision), None)
    return list(current.source_messages or []) if current is not None else []


def _input_value(moment: datetime | None) -> str:
    """A moment as a datetime-local input's value (UTC, milliseconds)."""
    if moment is None:
        return ""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _budget_chart(budget: dict[str, Any]) -> dict[str, Any]:
    """Bars of spent against limit for each budget dimension (no limit: spent only)."""
    limits = budget.get("limits") or {}
    spent = budget.get("spent") or {}
    names = ["tokens", "cost_usd", "tool_calls", "wall_time_seconds"]
    names += sorted((set(limits) | set(spent)) - set(names))
    left, bar, row = 130, 320, 26
    bars = []
    for i, name in enumerate(names):
        limit, used = _number(limits.get(name)), _number(spent.get(name)) or 0.0
        if limit:
            share = min(used / limit, 1.0)
            label = f"{used:g} of {limit:g} ({100 * used / limit:.0f}%)"
            colour = "#cf222e" if used >= limit else "#d4a72c" if share >= 0.8 else "#2da44e"
        else:
            share = 0.0
            label = f"{used:g}, no limit"
            colour = "#8c959f"
        bars.append(
            {
                "name": name,
                "y": 4 + i * row,
                "filled": round(share * bar, 1),
                "label": label,
                "colour": colour,
            }
        )
    return {
        "bars": bars,
        "left": left,
        "bar": bar,
        "width": left + bar + 200,
        "height": 8 + len(names) * row,
    }


class _Inspector:
    """The pages; one store, used by one request at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.lock = threading.Lock()
        self.env = environment()
        self._role: str | None = None

    @contextmanager
    def reading(self) -> Iterator[Store]:
        with self.lock:
            yield self.store

    def role(self) -> str:
        if self._role is None:
            conn = self.store.connection
            if conn is not None:
                self._role = conn.info.user
            else:
                pool = self.store.pool
                assert pool is not None
                with pool.connection() as c:
                    self._role = c.info.user
        return self._role

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("agent_id", None)
        body = self.env.get_template(template).render(role=self.role(), **context)
        return HTMLResponse(body, status_code=status)

    def handle_of(self, store: Store, agent: UUID) -> str:
        """The agent's handle, from list_agents (what this role may act for)."""
        for a in store.list_agents():
            if a.agent == agent:
                return a.handle
        return str(agent)

    @staticmethod
    def ledger(store: Store, agent: UUID) -> Ledger | None:
        """export_agent's rows (operators only); None when this role may not read them."""
        try:
            return Ledger(store.export_agent(agent=agent))
        except PermissionDenied:
            return None

    # -- pages ---------------------------------------------------------------------------

    def agents(self, request: Request) -> Response:
        with self.reading() as s:
            rows = []
            for a in s.list_agents():
                memories, more_memories = _cut(
                    s.list_memories(agent=a.agent, max_results=_MAX_LIST + 1)
                )
                runs, more_runs = _cut(s.list_runs(agent=a.agent, max_results=_MAX_LIST + 1))
                counted = {
                    "memories": f"{len(memories)}+" if more_memories else len(memories),
                    "runs": f"{len(runs)}+" if more_runs else len(runs),
                }
                rows.append({**asdict(a), **counted})
        return self.page("agents.html", agents=rows)

    def agent(self, request: Request) -> Response:
        agent: UUID = request.path_params["agent"]
        with self.reading() as s:
            personas = s.persona_history(agent=agent)
            profiles = s.profile_history(agent=agent)
            grants = s.tool_grants(agent=agent)
            histories = {g.tool: s.tool_grant_history(agent=agent, tool=g.tool) for g in grants}
            handle = self.handle_of(s, agent)
        persona_rows, previous = [], None
        for p in personas:
            persona_rows.append(
                {**asdict(p), "diff": None if previous is None else _line_diff(previous, p.body)}
            )
            previous = p.body
        profile_rows, prev_text = [], None
        for r in profiles:
            text = _profile_text(r.display_name, r.settings)
            profile_rows.append(
                {
                    **asdict(r),
                    "text": text,
                    "diff": None if prev_text is None else _line_diff(prev_text, text),
                }
            )
            prev_text = text
        grant_rows = [
            {**asdict(g), "config": _json(g.config), "history": histories[g.tool]} for g in grants
        ]
        return self.page(
            "agent.html",
            agent_id=agent,
            handle=handle,
            personas=persona_rows,
            profiles=profile_rows,
            grants=grant_rows,
        )

    def memory(self, request: Request) -> Response:
        agent: UUID = request.path_params["agent"]
        with self.reading() as s:
            rows, cut = _cut(
                s.list_memories(agent=agent, include_forgotten=True, max_results=_MAX_LIST + 1)
            )
            handle = self.handle_of(s, agent)
        return self.page(
            "memory.html", agent_id=agent, handle=handle, memories=rows, cut=cut, shown=_MAX_LIST
        )

    def entry(self, request: Request) -> Response:
        agent: UUID = request.path_params["agent"]
        entry: UUID = request.path_params["entry"]
        with self.reading() as s:
            history = s.memory_history(agent=agent, entry=entry)
            handle = self.handle_of(s, agent)
            ledger = self.ledger(s, agent)
        rows, previous = [], None
        for r in history:
            evidence = [
                ledger.message(m) if ledger is not None else {"message": str(m), "known": False}
                for m in r.source_messages or []
            ]
            rows.append(
                {
                    **asdict(r),
                    "diff": None if previous is None else _line_diff(previous, r.body),
                    "evidence": evidence,
                    "subject_name": (
                        ledger.actor_name(r.subject)
                        if ledger is not None and r.subject is not None
                        else None
                    ),
                    "source_actor_name": (
                        ledger.actor_name(r.source_actor)
                        if ledger is not None and r.source_actor is not None
                        else None
                    ),
                }
            )
            previous = r.body
        return self.page(
            "entry.html",
            agent_id=agent,
            handle=handle,
            entry=entry,
            revisions=rows,
            operator_view=ledger is not None,
            shares=ledger.shares(entry) if ledger is not None else [],
            redacted=ledger is not None and str(entry) in ledger.redacted,
        )

    def eligible(self, request: Request) -> Response:
        """For a chosen conversation: which entries may enter its context
        (memory_entry with that conversation), and for each that may not, the rule."""
        agent: UUID = request.path_params["agent"]
        chosen = request.query_params.get("conversation") or None
        with self.reading() as s:
            handle = self.handle_of(s, agent)
            conversations = s.list_conversations(agent=agent, max_results=_MAX_LIST)
            rows: list[Any] = []
            cut = False
            ledger = None
            conversation: UUID | None = None
            if chosen is not None:
                try:
                    conversation = UUID(chosen)
                except ValueError:
                    raise InvalidArgument(f"conversation: not an id: {chosen[:40]!r}") from None
                ledger = self.ledger(s, agent)
                memories, cut = _cut(
                    s.list_memories(agent=agent, include_forgotten=True, max_results=_MAX_LIST + 1)
                )
                for m in memories:
                    admitted = s.memory_entry(agent=agent, entry=m.entry, conversation=conversation)
                    if admitted is not None:
                        rule = why_eligible(m, conversation, ledger)
                        rows.append({"m": m, "eligible": True, "rule": rule, "details": []})
                    else:
                        evidence = partial(_evidence, s, agent, m)
                        rule, reason, details = why_not_eligible(m, evidence, conversation, ledger)
                        rows.append(
                            {
                                "m": m,
                                "eligible": False,
                                "rule": f"{rule}: {reason}",
                                "details": details,
                            }
                        )
        names = {
            c.conversation: f"{c.connector} {c.external_ref} ({c.kind})" for c in conversations
        }
        return self.page(
            "eligible.html",
            agent_id=agent,
            handle=handle,
            conversations=conversations,
            chosen=conversation,
            chosen_name=names.get(conversation, str(conversation)) if conversation else None,
            rows=rows,
            operator_view=ledger is not None,
            eligible_count=sum(1 for r in rows if r["eligible"]),
            cut=cut,
            shown=_MAX_LIST,
        )

    def timeline(self, request: Request) -> Response:
        agent: UUID = request.path_params["agent"]
        at = _picked(request.query_params, "at")
        since = _picked(request.query_params, "since") if at else None
        context: dict[str, Any] = {"at": at, "since": since}
        with self.reading() as s:
            handle = self.handle_of(s, agent)
            events, cut = _cut(
                s.timeline(
                    agent=agent, since=since, until=at if since else None, max_results=_MAX_LIST + 1
                )
            )
            if at is not None:
                context["persona"] = s.active_persona(agent=agent, as_of=at)
                profiles = [p for p in s.profile_history(agent=agent) if p.created_at <= at]
                context["profile"] = (
                    {
                        "revision": profiles[-1].revision,
                        "text": _profile_text(profiles[-1].display_name, profiles[-1].settings),
                    }
                    if profiles
                    else None
                )
                context["grants"] = [
                    {**asdict(g), "config": _json(g.config)}
                    for g in s.tool_grants(agent=agent, as_of=at)
                ]
                context["markdown"] = s.export_markdown(agent=agent, as_of=at)
                if since is not None:
                    before = s.export_markdown(agent=agent, as_of=since)
                    context["changes"] = _line_diff(before, context["markdown"])
        event_rows = [{**asdict(e), "at_query": quote(e.at.isoformat(), safe="")} for e in events]
        return self.page(
            "timeline.html",
            agent_id=agent,
            handle=handle,
            events=event_rows,
            cut=cut,
            shown=_MAX_LIST,
            at_input=_input_value(at),
            since_input=_input_value(since),
            at_exact=at.isoformat() if at else "",
            since_exact=since.isoformat() if since else "",
            **context,
        )

    def runs(self, request: Request) -> Response:
        agent: UUID = request.path_params["agent"]
        with self.reading() as s:
            rows, cut = _cut(s.list_runs(agent=agent, max_results=_MAX_LIST + 1))
            handle = self.handle_of(s, agent)
        return self.page(
            "runs.html", agent_id=agent, handle=handle, runs=rows, cut=cut, shown=_MAX_LIST
        )

    def run(self, request: Request) -> Response:
        agent: UUID = request.path_params["agent"]
        run: UUID = request.path_params["run"]
        with self.reading() as s:
            state = s.recover_run(agent=agent, run=run)
            handle = self.handle_of(s, agent)
            ledger = self.ledger(s, agent)
            ledger_run: dict[str, Any] | None = None
            over_run = None
            if ledger is not None:
                sources = {
                    snap["snapshot_id"]: s.snapshot_sources(
                        agent=agent, snapshot=snap["snapshot_id"]
                    )
                    for snap in ledger.rows("prompt_snapshots", run_id=run)
                }
                ledger_run = ledger.run(run, sources)
                for c in ledger_run["model_calls"]:
                    c["request_json"] = _json(c.get("request"))
                    c["response_json"] = _json(c.get("response"))
                for c in ledger_run["tool_calls"]:
                    c["input_json"] = _json(c.get("input"))
                    for r in c["results"]:
                        r["output_json"] = _json(r.get("output"))
                for cp in ledger_run["checkpoints"]:
                    cp["frontier_json"] = _json(cp.get("frontier"))
                over_run = budget_over_run(ledger, run, state)
        unconfirmed = [
            {**c, "input": _json(c.get("input")), "output": _json(c.get("output"))}
            for c in state.get("unconfirmed_tool_calls") or []
        ]
        return self.page(
            "run.html",
            agent_id=agent,
            handle=handle,
            state=state,
            chart=_budget_chart(state.get("budget") or {}),
            unconfirmed=unconfirmed,
            frontier=_json(state.get("frontier")),
            task_context=_json(state.get("task_context")),
            detail=_json(state.get("detail")),
            raw=_json(state),
            ledger=ledger_run,
            over_run=over_run,
        )

    def verify(self, request: Request) -> Response:
        try:
            with self.reading() as s:
                violations = s.verify()
                heads = []
                for a in s.list_agents():
                    try:
                        heads.append({"agent": a, "head": s.chain_head(agent=a.agent)})
                    except NotInstalled:
                        break
        except PermissionDenied as e:
            return self.page(
                "verify.html", status=403, refused=_refusal(e), violations=[], heads=[]
            )
        return self.page("verify.html", refused=None, violations=violations, heads=heads)

    def style(self, request: Request) -> Response:
        return Response(STYLE, media_type="text/css")

    def icon(self, request: Request) -> Response:
        """The tab's icon, served by the app (a browser asks for /favicon.ico anyway)."""
        return Response(ICON, media_type="image/svg+xml")


def _refusal(e: Error) -> str:
    return f"{e.sqlstate}: {e}" if e.sqlstate else str(e)


_STATUS = [
    (PermissionDenied, 403, "Not visible to this role"),
    (NotFound, 404, "Not found"),
    (CrossPerspectiveReference, 404, "Not found"),
    (InvalidArgument, 400, "Bad request"),
]


def _error_page(inspector: _Inspector, e: Error) -> Response:
    status, title = next(
        ((code, text) for cls, code, text in _STATUS if isinstance(e, cls)),
        (500, "The database refused"),
    )
    return inspector.page(
        "error.html", status=status, title=title, message=f"the database said: {_refusal(e)}"
    )


def _guarded(inspector: _Inspector, page: Callable[[Request], Response]) -> Any:
    """A sync endpoint (run in Starlette's thread pool) answering an agent_state error
    with a page saying what the database refused."""

    def endpoint(request: Request) -> Response:
        try:
            return page(request)
        except Error as e:
            return _error_page(inspector, e)

    return endpoint


def create_app(store: Store, token: str | None = None) -> Starlette:
    """The inspector over ``store``, which it only reads (its role decides what is seen).

    With a ``token``, every request must carry it (HTTP Basic auth, as the password) and
    any Host is answered: that is how it is served beyond the loopback address."""
    ins = _Inspector(store)

    def get(path: str, page: Callable[[Request], Response]) -> Route:
        return Route(path, _guarded(ins, page), methods=["GET"])

    routes = [
        get("/", ins.agents),
        get("/agents/{agent:uuid}", ins.agent),
        get("/agents/{agent:uuid}/memory", ins.memory),
        get("/agents/{agent:uuid}/memory/{entry:uuid}", ins.entry),
        get("/agents/{agent:uuid}/eligible", ins.eligible),
        get("/agents/{agent:uuid}/timeline", ins.timeline),
        get("/agents/{agent:uuid}/runs", ins.runs),
        get("/agents/{agent:uuid}/runs/{run:uuid}", ins.run),
        get("/verify", ins.verify),
        get("/static/style.css", ins.style),
        get("/favicon.ico", ins.icon),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(_Guard, token=token)
    return app
