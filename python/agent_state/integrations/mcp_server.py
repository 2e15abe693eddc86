"""``agent-state mcp``: a Model Context Protocol server bound to one agent.

Install with the ``mcp`` extra (the official ``mcp`` SDK). The server speaks stdio by
default, or streamable HTTP (``--http HOST:PORT``, loopback unless told otherwise)
behind a bearer token read from ``AGENT_STATE_MCP_TOKEN``: a request without it, or
with another, gets 401 before it reaches the protocol. The token is compared in
constant time.

What it is bound to, all fixed at start (SPEC section 12):

- one agent (``--agent``), acted for as the DSN's role: the database decides what the
  role may see and write (row-level security, hosting), so no tool takes an agent and
  no argument can reach another agent's rows. A role that may not act for the agent
  is refused at start;
- one actor, the user the server speaks with (``--user CONNECTOR:EXTERNAL_ID``,
  ``resolve_actor``);
- one conversation per client session (connector ``mcp``, an external_ref unique to
  the session), or the conversation given with ``--conversation``.

Evidence: ``remember`` (and, optionally, ``amend``, ``recall`` and ``context``) take
the user's own words and record them as that actor's message in the session's
conversation (audience: the user) in the same transaction as the memory verb, so a
call that fails writes nothing, and the message is the memory's evidence. The server
never makes up a message. The same words recorded again in one conversation are the
same message (its external_ref is a digest of the author and the words).

Every tool is one or a few stored-function calls through :class:`~agent_state.AsyncStore`.
A failure is returned as a tool error (``isError``) whose text and structured content
carry the SQLSTATE and the message; the server keeps serving.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar
from uuid import UUID, uuid4

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel, Field, ValidationError

from .. import __version__
from .._calls import is_uuid_text
from .._common import Embedder, check_dsn, resolve_dsn
from ..aio import AsyncStore
from ..errors import Error, InvalidArgument, MissingArgument, NotFound, PermissionDenied
from ..results import RecallHit
from ..store import Store
from .mcp_cli import TOKEN_ENV, StartRefused

__all__ = ["CONNECTOR", "AgentStateMCP", "BearerGuard", "Binding", "run"]

CONNECTOR = "mcp"
"""The connector of the conversations the server opens (one per client session)."""


INSTRUCTIONS = """\
Long-term memory of one agent, kept in PostgreSQL with its history and its evidence.
You speak with one user. When the user tells you something worth keeping, call
`remember` with the memory and the user's own words it rests on, quoted exactly as the
user sent them (never paraphrase or invent them: they are stored as the user's message
and become the memory's evidence). Before answering from memory, call `recall` (or
`context`) and pass the user's latest message as `user_message`, so that the memories
this user may see become eligible. To change a memory, call `amend` with the revision
you last saw (`expected_revision`); a stale revision is refused (SQLSTATE 40001): read
`memory_history` and try again. Errors carry a SQLSTATE and a message naming the
argument at fault."""


# ------------------------------------------------------------------ results


class Remembered(BaseModel):
    """What ``remember`` wrote."""

    entry: UUID = Field(description="id of the new memory entry")
    revision: int = Field(description="its revision number (1); amend needs it")
    message: UUID = Field(description="the user's message recorded as its evidence")
    conversation: UUID = Field(description="the conversation the message is in")


class Memory(BaseModel):
    """One memory found by ``recall`` or ``context``."""

    entry: UUID
    revision: int = Field(description="current revision: pass it to amend/forget")
    body: str
    subject: UUID | None = Field(description="the actor the memory is about, if known")
    about_user: bool = Field(description="true when it is about the user you speak with")
    score: float
    age_seconds: float = Field(description="age of this revision")


class Recalled(BaseModel):
    """What ``recall`` found."""

    memories: list[Memory]
    conversation: UUID | None = Field(
        description="the conversation ranked for (its latest message's audience decides "
        "what is eligible); null before any of the user's words were recorded"
    )
    message: UUID | None = Field(description="the user's message recorded by this call, if any")


class ContextMemories(BaseModel):
    """What ``context`` found for a message."""

    memories: list[Memory]
    conversation: UUID
    message: UUID = Field(description="the user's message recorded by this call")


class Amended(BaseModel):
    """What ``amend`` wrote."""

    entry: UUID
    revision: int = Field(description="the new revision number")
    message: UUID | None = Field(description="the user's message recorded as new evidence")


class Forgotten(BaseModel):
    """What ``forget`` wrote."""

    entry: UUID
    revision: int = Field(description="the forget revision's number")


class Revision(BaseModel):
    """One revision of a memory entry."""

    revision: int
    operation: str = Field(description="create, amend or forget")
    body: str
    subject: UUID | None
    visibility: str
    source_type: str = Field(description="operator, agent or import")
    source_actor: UUID | None = Field(description="who supplied it (the evidence's author)")
    source_messages: list[UUID] = Field(description="the evidence: message ids")
    created_at: datetime


class History(BaseModel):
    """What ``memory_history`` returns."""

    entry: UUID
    revisions: list[Revision] = Field(description="oldest first")


class Persona(BaseModel):
    """What ``active_persona`` returns (all null when no revision was active)."""

    revision: int | None
    body: str | None
    activated_at: datetime | None


class Failure(BaseModel):
    """The structured content of a tool error."""

    sqlstate: str | None = Field(description="the SQLSTATE (SPEC section 10), if any")
    message: str
    hint: str | None = None


# ------------------------------------------------------------------ arguments

EntryArg = Annotated[
    str,
    Field(
        description="id (uuid) of a memory entry of this agent, as returned by remember or recall",
        json_schema_extra={"format": "uuid"},
    ),
]
UserMessageArg = Annotated[
    str,
    Field(
        description="the user's own message this rests on, quoted word for word as the "
        "user sent it in this conversation. It is recorded as the user's message and "
        "becomes the evidence. Never paraphrase it, and never pass words the user did not "
        "send.",
        min_length=1,
    ),
]
OptionalUserMessageArg = Annotated[
    str | None,
    Field(
        description="the user's latest message, word for word, if it is not recorded in "
        "this conversation yet. Recording it makes the memories this user may see "
        "eligible; before any of the user's words are recorded only operator notes and "
        "public memories are. Never pass words the user did not send.",
    ),
]
MatchArg = Annotated[
    Literal["any", "all"],
    Field(
        description="'any' (default): a memory matches when it shares any word of the "
        "query, more shared words rank higher; 'all': every word (web search syntax: "
        '"quoted phrases", -excluded, or)'
    ),
]
MaxResultsArg = Annotated[int, Field(ge=1, le=100, description="at most this many memories")]
AsOfArg = Annotated[
    datetime | None,
    Field(description="an ISO 8601 moment with time zone: answer as of then (default: now)"),
]

_Model = TypeVar("_Model", bound=BaseModel)

_SESSIONS_KEPT = 10_000
"""How many HTTP sessions' conversations a server keeps in mind (the SDK's default
session limit); an older session's reads rank for no conversation until it writes."""


# ------------------------------------------------------------------ the server


@dataclass(frozen=True)
class Binding:
    """What a server is bound to at start: the agent, the user it speaks with and,
    optionally, one conversation for every client session (else one per session)."""

    agent: UUID
    user: UUID
    agent_label: str = ""
    conversation: UUID | None = None


def _failure(sqlstate: str | None, message: str, hint: str | None = None) -> CallToolResult:
    failure = Failure(sqlstate=sqlstate, message=message, hint=hint)
    text = f"SQLSTATE {sqlstate}: {message}" if sqlstate else f"error: {message}"
    if hint and hint not in message:
        text += f" (hint: {hint})"
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=failure.model_dump(mode="json"),
        is_error=True,
    )


def _success(result: BaseModel) -> CallToolResult:
    data = result.model_dump(mode="json")
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
    )


# Pydantic's error types for an argument that is missing or null, where the database
# would say 22004 (required argument is null); every other rejection is 22023.
_MISSING = frozenset({"missing", "none_required"})


def _validation_failure(tool: str, exc: ValidationError) -> CallToolResult:
    errors = exc.errors()
    missing = all(e["type"] in _MISSING for e in errors)
    parts = []
    for e in errors:
        where = ".".join(str(p) for p in e["loc"]) or tool
        parts.append(f"{where}: {e['msg'].lower()}")
    return _failure("22004" if missing else "22023", "; ".join(parts))


class _Server(MCPServer[Any]):
    """MCPServer whose argument-validation errors carry a SQLSTATE like the database's."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if isinstance(e.__cause__, ValidationError):
                return _validation_failure(name, e.__cause__)
            raise


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


class AgentStateMCP:
    """The MCP server of one agent: its tools call stored functions through ``store``.

    ``store`` is an :class:`~agent_state.AsyncStore` (on a pool for HTTP, where sessions
    run concurrently); ``binding`` the agent, the user and optionally a fixed
    conversation. With ``embedder`` and ``embedding_model``, ``recall`` and ``context``
    are hybrid, and ``remember``/``amend`` attach the new revision's embedding in the
    same transaction.
    """

    def __init__(
        self,
        store: AsyncStore,
        binding: Binding,
        *,
        embedder: Embedder | None = None,
        embedding_model: str | None = None,
    ) -> None:
        self.store = store
        self.binding = binding
        self.embedder = embedder
        self.embedding_model = embedding_model if embedder is not None else None
        # A stdio server has exactly one client session: the process's.
        self._process_session = uuid4().hex
        self._conversations: OrderedDict[str, UUID] = OrderedDict()
        self.server: MCPServer[Any] = _Server(
            name="agent-state",
            title=f"agent_state memory of {binding.agent_label or binding.agent}",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        self._register()

    # -- plumbing ----------------------------------------------------------------------

    def _session_ref(self, ctx: Context[Any, Any]) -> str:
        """The external_ref of this client session's conversation."""
        headers = ctx.headers
        if headers is None:  # stdio: one client per process
            return f"stdio:{self._process_session}"
        session = headers.get("mcp-session-id")
        if session:  # issued by the server; the SDK refuses unknown ones
            return f"http:{self._process_session}:{session}"
        # A sessionless (2026-07-28) request is a session of its own.
        return f"request:{uuid4().hex}"

    async def _open_conversation(self, ctx: Context[Any, Any]) -> tuple[str | None, UUID]:
        """The session's external_ref and conversation, opened if new (idempotent; inside
        the caller's transaction, so a failing call does not leave it behind). Once the
        transaction commits, :meth:`_opened` remembers it for reads."""
        if self.binding.conversation is not None:
            return None, self.binding.conversation
        ref = self._session_ref(ctx)
        conversation = await self.store.open_conversation(
            agent=self.binding.agent, connector=CONNECTOR, external_ref=ref, kind="direct"
        )
        return ref, conversation

    def _opened(self, ref: str | None, conversation: UUID) -> None:
        if ref is None or ref.startswith("request:"):
            return
        self._conversations[ref] = conversation
        self._conversations.move_to_end(ref)
        while len(self._conversations) > _SESSIONS_KEPT:
            self._conversations.popitem(last=False)

    def _known_conversation(self, ctx: Context[Any, Any]) -> UUID | None:
        """The session's conversation for a read, without writing: ``None`` when none was
        opened yet (nothing of the user's is recorded in it then, and no conversation
        ranks the same as an empty one). Its external_ref names this process, so no other
        process can have opened it."""
        if self.binding.conversation is not None:
            return self.binding.conversation
        return self._conversations.get(self._session_ref(ctx))

    async def _record(self, conversation: UUID, words: str) -> UUID:
        """The user's words as their message in ``conversation`` (audience: the user)."""
        user = self.binding.user
        return await self.store.record_message(
            agent=self.binding.agent,
            conversation=conversation,
            author=user,
            body=words,
            audience=[user],
            external_ref=f"mcp-words:{_digest(str(user), words)}",
        )

    async def _embed_revision(self, entry: UUID, revision: int, body: str) -> None:
        if self.embedder is None or self.embedding_model is None:
            return
        embedder = self.embedder
        vectors = await anyio.to_thread.run_sync(lambda: list(embedder([body])))
        await self.store.attach_embedding(
            agent=self.binding.agent,
            entry=entry,
            revision=revision,
            model=self.embedding_model,
            embedding=vectors[0],
        )

    def _memories(self, hits: Sequence[RecallHit]) -> list[Memory]:
        return [
            Memory(
                entry=h.entry,
                revision=h.revision,
                body=h.body,
                subject=h.subject,
                about_user=h.subject == self.binding.user,
                score=h.score,
                age_seconds=h.age.total_seconds(),
            )
            for h in hits
        ]

    @staticmethod
    async def _guarded(work: Callable[[], Awaitable[_Model]]) -> CallToolResult:
        """Run one tool's work; any failure becomes a tool error with its SQLSTATE."""
        try:
            return _success(await work())
        except Error as e:
            # A value psycopg refuses before sending it (a NUL character) has no SQLSTATE:
            # it is a bad argument value like any other.
            bad_value = e.sqlstate is None and isinstance(e, InvalidArgument)
            return _failure("22023" if bad_value else e.sqlstate, e.message, e.hint)
        except Exception as e:  # never end the server, never hide what happened
            return _failure(None, f"{type(e).__name__}: {e}")

    # -- tools -------------------------------------------------------------------------

    async def remember(
        self,
        body: Annotated[
            str,
            Field(
                description="the memory, one self-contained statement, e.g. 'Alice is "
                "allergic to peanuts.' (1 to 100,000 characters)"
            ),
        ],
        user_message: UserMessageArg,
        about_user: Annotated[
            bool,
            Field(
                description="true when the memory is about the user you speak with (it then "
                "ranks higher while you speak with them); false when it is about someone or "
                "something else, or unknown"
            ),
        ] = False,
        visibility: Annotated[
            Literal["perspective", "conversation"],
            Field(
                description="'perspective' (default): usable in any conversation whose "
                "audience may see the user's message; 'conversation': only in this one"
            ),
        ] = "perspective",
        *,
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, Remembered]:
        """Keep a memory, with the user's words it rests on as its evidence.

        The words are recorded as the user's message in this conversation and the memory
        is written with that message as its source, in one transaction: if anything
        fails, nothing is written. Returns the entry id and revision (for amend/forget).
        """
        agent = self.binding.agent

        async def work() -> Remembered:
            async with self.store.transaction():
                session, conversation = await self._open_conversation(ctx)
                message = await self._record(conversation, user_message)
                ref = await self.store.remember(
                    agent=agent,
                    body=body,
                    source_message=message,
                    subject=self.binding.user if about_user else None,
                    visibility=visibility,
                )
                await self._embed_revision(ref.entry, ref.revision, body)
            self._opened(session, conversation)
            return Remembered(
                entry=ref.entry, revision=ref.revision, message=message, conversation=conversation
            )

        return await self._guarded(work)

    async def recall(
        self,
        query: Annotated[
            str,
            Field(description="what to look for, in natural language or keywords"),
        ],
        user_message: OptionalUserMessageArg = None,
        match: MatchArg = "any",
        max_results: MaxResultsArg = 10,
        as_of: AsOfArg = None,
        *,
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, Recalled]:
        """Find the memories relevant to a query that may be used in this conversation.

        Only memories the user may see are eligible (their evidence was said where the
        user could hear it). Ranked by text match, higher when about the user, and newer
        first. Pass the user's latest message as user_message at the start of a
        conversation.
        """
        agent = self.binding.agent

        async def work() -> Recalled:
            query_embedding = await self._query_embedding(query) if query.strip() else None
            message: UUID | None = None
            session: str | None = None
            conversation = self._known_conversation(ctx)
            async with self.store.transaction():
                if user_message is not None:
                    session, conversation = await self._open_conversation(ctx)
                    message = await self._record(conversation, user_message)
                hits = await self.store.recall(
                    agent=agent,
                    query=query,
                    conversation=conversation,
                    current_subject=self.binding.user,
                    max_results=max_results,
                    as_of=as_of,
                    match=match,
                    query_embedding=query_embedding,
                    embedding_model=self.embedding_model if query_embedding is not None else None,
                )
            if conversation is not None and message is not None:
                self._opened(session, conversation)
            return Recalled(
                memories=self._memories(hits), conversation=conversation, message=message
            )

        return await self._guarded(work)

    async def context(
        self,
        user_message: UserMessageArg,
        max_results: Annotated[
            int, Field(ge=1, le=100, description="at most this many memories")
        ] = 20,
        *,
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, ContextMemories]:
        """Record the user's latest message and return the memories to keep in mind when
        answering it: the eligible memories most relevant to it first, then the newest
        other eligible ones."""
        agent = self.binding.agent

        async def work() -> ContextMemories:
            query_embedding = await self._query_embedding(user_message)
            async with self.store.transaction():
                session, conversation = await self._open_conversation(ctx)
                message = await self._record(conversation, user_message)
                hits = await self.store.context_for(
                    agent=agent,
                    conversation=conversation,
                    message=message,
                    max_results=max_results,
                    query_embedding=query_embedding,
                    embedding_model=self.embedding_model if query_embedding is not None else None,
                )
            self._opened(session, conversation)
            return ContextMemories(
                memories=self._memories(hits), conversation=conversation, message=message
            )

        return await self._guarded(work)

    async def _query_embedding(self, text: str) -> Sequence[float] | None:
        if self.embedder is None or self.embedding_model is None:
            return None
        embedder = self.embedder
        vectors = await anyio.to_thread.run_sync(lambda: list(embedder([text])))
        return vectors[0]

    async def amend(
        self,
        entry: EntryArg,
        body: Annotated[str, Field(description="the memory's new text (replaces the old)")],
        expected_revision: Annotated[
            int,
            Field(
                description="the entry's current revision as you last saw it (from remember, "
                "recall or memory_history); if it changed since, nothing is written and the "
                "error has SQLSTATE 40001"
            ),
        ],
        user_message: Annotated[
            str | None,
            Field(
                description="the user's own words this change rests on, word for word; "
                "recorded as the user's message and added to the evidence. Never pass words "
                "the user did not send."
            ),
        ] = None,
        narrow_to_conversation: Annotated[
            bool,
            Field(
                description="true to narrow the memory to the conversation of its evidence "
                "(visibility can only narrow, never widen)"
            ),
        ] = False,
        *,
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, Amended]:
        """Change a memory: appends a revision (earlier ones stay in its history).

        Refused when the memory changed since expected_revision (40001), when it is
        forgotten (55000) or unknown (P0002)."""
        agent = self.binding.agent

        async def work() -> Amended:
            message: UUID | None = None
            session: str | None = None
            conversation: UUID | None = None
            async with self.store.transaction():
                if user_message is not None:
                    session, conversation = await self._open_conversation(ctx)
                    message = await self._record(conversation, user_message)
                revision = await self.store.amend(
                    agent=agent,
                    entry=entry,
                    body=body,
                    expected_revision=expected_revision,
                    source_message=message,
                    visibility="conversation" if narrow_to_conversation else None,
                )
                await self._embed_revision(UUID(entry), revision, body)
            if conversation is not None:
                self._opened(session, conversation)
            return Amended(entry=UUID(entry), revision=revision, message=message)

        return await self._guarded(work)

    async def forget(
        self,
        entry: EntryArg,
        expected_revision: Annotated[
            int | None,
            Field(
                description="the entry's current revision as you last saw it; if given and "
                "it changed since, nothing is written (SQLSTATE 40001)"
            ),
        ] = None,
        reason: Annotated[
            str | None, Field(description="why it is forgotten (kept in the history)")
        ] = None,
    ) -> Annotated[CallToolResult, Forgotten]:
        """Retire a memory: it is no longer recalled; its history is kept."""
        agent = self.binding.agent

        async def work() -> Forgotten:
            revision = await self.store.forget(
                agent=agent, entry=entry, expected_revision=expected_revision, reason=reason
            )
            return Forgotten(entry=UUID(entry), revision=revision)

        return await self._guarded(work)

    async def memory_history(self, entry: EntryArg) -> Annotated[CallToolResult, History]:
        """Every revision of a memory, oldest first: what it said, who supplied it, on
        which evidence (message ids), and when."""
        agent = self.binding.agent

        async def work() -> History:
            rows = await self.store.memory_history(agent=agent, entry=entry)
            if not rows:
                raise NotFound(f"entry: no memory entry {entry}", sqlstate="P0002")
            revisions = [
                Revision(
                    revision=r.revision,
                    operation=r.operation,
                    body=r.body,
                    subject=r.subject,
                    visibility=r.visibility,
                    source_type=r.source_type,
                    source_actor=r.source_actor,
                    source_messages=list(r.source_messages or []),
                    created_at=r.created_at,
                )
                for r in rows
            ]
            return History(entry=UUID(entry), revisions=revisions)

        return await self._guarded(work)

    async def active_persona(self, as_of: AsOfArg = None) -> Annotated[CallToolResult, Persona]:
        """The agent's persona: the operator-authored identity text to act by (the
        revision active now, or at as_of)."""
        agent = self.binding.agent

        async def work() -> Persona:
            p = await self.store.active_persona(agent=agent, as_of=as_of)
            if p is None:
                return Persona(revision=None, body=None, activated_at=None)
            return Persona(revision=p.revision, body=p.body, activated_at=p.activated_at)

        return await self._guarded(work)

    async def persona_resource(self) -> str:
        p = await self.store.active_persona(agent=self.binding.agent)
        return "" if p is None else p.body

    def _register(self) -> None:
        s = self.server
        read = ToolAnnotations(read_only_hint=True, open_world_hint=False)
        write = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
        s.add_tool(self.remember, name="remember", title="Remember", annotations=write)
        s.add_tool(self.recall, name="recall", title="Recall memories", annotations=write)
        s.add_tool(self.context, name="context", title="Memory for a message", annotations=write)
        s.add_tool(self.amend, name="amend", title="Amend a memory", annotations=write)
        s.add_tool(
            self.forget,
            name="forget",
            title="Forget a memory",
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=True, open_world_hint=False
            ),
        )
        s.add_tool(
            self.memory_history,
            name="memory_history",
            title="History of a memory",
            annotations=read,
        )
        s.add_tool(
            self.active_persona, name="active_persona", title="Active persona", annotations=read
        )
        s.resource(
            "agent-state://persona",
            name="persona",
            title="Active persona",
            description="the agent's active persona (operator-authored identity text)",
            mime_type="text/markdown",
        )(self.persona_resource)


# ------------------------------------------------------------------ HTTP: the bearer token

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BearerGuard:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``
    (compared in constant time), else 401 and the request goes no further."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("BearerGuard needs a non-empty token")
        self.app = app
        self._token = token.encode("utf-8")

    def _authorized(self, scope: Scope) -> bool:
        values = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, given = bytes(values[0]).strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        return hmac.compare_digest(given.strip(), self._token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = json.dumps(
                {"error": "unauthorized", "error_description": f"send the token of ${TOKEN_ENV}"}
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="agent-state"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


# ------------------------------------------------------------------ the command


def _is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "::1", "localhost") or host.startswith("127.")


def _check_start(store: Store, agent: UUID, label: str, conversation: UUID | None) -> None:
    """Refuse at start a role that may not act for the agent (and an unknown
    ``--conversation``), with a message saying so."""
    conn = store.connection
    role = conn.info.user if conn is not None else "this role"
    try:
        store.active_persona(agent=agent)
    except (PermissionDenied, NotFound) as e:
        raise type(e)(
            f"role {role} may not act for agent {label}: {e.message}",
            sqlstate=e.sqlstate,
            hint=e.hint
            or "connect as an operator, or as a runtime role that hosts the agent "
            "(agent_state.grant_hosting); `agent-state agents` lists the agents a role may "
            "act for",
        ) from e
    if conversation is not None:
        try:
            store.context_for(agent=agent, conversation=conversation, max_results=1)
        except NotFound as e:
            raise NotFound(
                f"--conversation {conversation}: not a conversation of agent {label}",
                sqlstate=e.sqlstate,
            ) from e


async def _serve(
    app: AgentStateMCP, pool: AsyncConnectionPool[Any], http: tuple[str, int] | None, token: str
) -> None:
    async with pool:
        if http is None:
            await app.server.run_stdio_async()
            return
        import uvicorn

        host, port = http
        asgi = BearerGuard(app.server.streamable_http_app(host=host), token)
        config = uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve)
            while not server.started:
                if server.should_exit:
                    break
                await anyio.sleep(0.02)
            else:
                for s in server.servers:
                    for sock in s.sockets:
                        addr = sock.getsockname()
                        where = f"[{addr[0]}]" if ":" in addr[0] else addr[0]
                        sys.stderr.write(
                            f"agent-state mcp: listening on http://{where}:{addr[1]}/mcp\n"
                        )
                sys.stderr.flush()


def run(store: Store, args: argparse.Namespace, env: Mapping[str, str] | None = None) -> None:
    """``agent-state mcp``: check the binding with ``store`` (the command line's
    connection), then serve until the client (stdio) or a signal (HTTP) ends it.

    ``args``: ``agent_id`` (resolved by the command line), ``agent``, ``user``
    ((connector, external_id)), ``conversation``, ``http`` ((host, port) or ``None``),
    ``dsn``, and optionally ``embedder``/``model``.
    """
    env = os.environ if env is None else env
    http: tuple[str, int] | None = args.http
    token = env.get(TOKEN_ENV, "").strip()
    if http is not None and not token:
        raise StartRefused(
            f"--http needs a bearer token: set {TOKEN_ENV} to a long random secret "
            "(clients send it as 'Authorization: Bearer <token>'); refusing to serve without"
        )
    agent = UUID(str(args.agent_id))
    label = args.agent if is_uuid_text(args.agent) else f"{args.agent} ({agent})"
    _check_start(store, agent, label, args.conversation)
    connector, external_id = args.user
    user = store.resolve_actor(agent=agent, connector=connector, external_id=external_id)

    embedder: Embedder | None = None
    model: str | None = None
    if getattr(args, "embedder", None):
        from ..cli import _load_embedder  # the same embedders as `agent-state embed`

        embedder, default_model = _load_embedder(args.embedder)
        model = args.model or default_model
        if not model:
            raise MissingArgument("--model: needed with --embedder MODULE:FUNCTION")
        store.pending_embeddings(agent=agent, model=model, max_results=1)  # pgvector there?

    dsn, source = resolve_dsn(args.dsn, "--dsn")
    check_dsn(dsn, source)
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        dsn,
        kwargs={"autocommit": True},
        min_size=1,
        max_size=4 if http is None else 10,
        open=False,
        check=AsyncConnectionPool.check_connection,
        name="agent-state-mcp",
    )
    app = AgentStateMCP(
        AsyncStore(pool),
        Binding(agent=agent, user=user, agent_label=label, conversation=args.conversation),
        embedder=embedder,
        embedding_model=model,
    )
    conn = store.connection
    role = conn.info.user if conn is not None else "?"
    where = "stdio" if http is None else f"http {http[0]}:{http[1]}"
    sys.stderr.write(
        f"agent-state mcp: agent {label} as role {role}, speaking with "
        f"{connector}:{external_id}, over {where}\n"
    )
    if http is not None and not _is_loopback(http[0]):
        sys.stderr.write(
            "agent-state mcp: warning: listening beyond the loopback address over plain "
            "HTTP: the token travels in clear text; put TLS in front\n"
        )
    sys.stderr.flush()
    anyio.run(_serve, app, pool, http, token)
