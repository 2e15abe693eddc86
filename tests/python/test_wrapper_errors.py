"""Errors a newcomer can act on: no DSN, a failed connection, PostgreSQL's own
"permission denied for function", and a malformed uuid argument."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from uuid import UUID, uuid4

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg.conninfo import conninfo_to_dict

import agent_state
from agent_state import AsyncStore, ConnectionFailed, PermissionDenied, Store
from agent_state._calls import is_uuid_text
from agent_state._install import operator_only_functions
from conftest import RuntimeRole, TestRole, new_handle

SECRET = "s3cr3t-pw"
UNREACHABLE = f"host=127.0.0.1 port=1 user=ann password={SECRET} connect_timeout=2"
UNREACHABLE_URI = f"postgresql://ann:{SECRET}@127.0.0.1:1/db?connect_timeout=2"


@pytest.fixture
def no_dsn(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An environment with no AGENT_STATE_DSN, DATABASE_URL or libpq PG* variable."""
    for name in list(os.environ):
        if name in ("AGENT_STATE_DSN", "DATABASE_URL") or name.startswith("PG"):
            monkeypatch.delenv(name)
    yield


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# ---------------------------------------------------------------- no DSN


def test_errors_module_exports_connection_failed() -> None:
    assert issubclass(ConnectionFailed, agent_state.Error)
    assert "ConnectionFailed" in agent_state.__all__
    assert "ConnectionFailed" in agent_state.errors.__all__


@pytest.mark.usefixtures("no_dsn")
def test_connect_without_any_dsn_names_agent_state_dsn() -> None:
    attempts: list[Callable[[], object]] = [
        agent_state.connect,
        lambda: agent_state.connect(""),
        lambda: Store(""),
        lambda: agent_state.install(""),
    ]
    for attempt in attempts:
        with pytest.raises(ConnectionFailed) as info:
            attempt()
        message = str(info.value)
        assert message.startswith("no database given: set AGENT_STATE_DSN"), message
        assert info.value.__cause__ is None


@pytest.mark.usefixtures("no_dsn")
async def test_connect_async_without_any_dsn_names_agent_state_dsn() -> None:
    with pytest.raises(ConnectionFailed, match=r"^no database given: set AGENT_STATE_DSN"):
        await agent_state.connect_async()
    store = AsyncStore("")  # connects on first use
    with pytest.raises(ConnectionFailed, match=r"^no database given: set AGENT_STATE_DSN"):
        await store.version()


@pytest.mark.usefixtures("no_dsn")
def test_libpq_environment_still_counts_as_a_database(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    params = conninfo_to_dict(dsn)
    for key, var in (("host", "PGHOST"), ("port", "PGPORT"), ("user", "PGUSER")):
        if params.get(key):
            monkeypatch.setenv(var, str(params[key]))
    monkeypatch.setenv("PGDATABASE", str(params["dbname"]))
    if params.get("password"):
        monkeypatch.setenv("PGPASSWORD", str(params["password"]))
    with agent_state.connect() as s:
        assert s.version() == agent_state.__version__


# ---------------------------------------------------------------- connection failures


@pytest.mark.usefixtures("no_dsn")
@pytest.mark.parametrize("dsn_text", [UNREACHABLE, UNREACHABLE_URI], ids=["keywords", "uri"])
@pytest.mark.parametrize("source", ["the dsn argument", "AGENT_STATE_DSN", "DATABASE_URL"])
def test_connection_failure_names_the_source_without_the_password(
    dsn_text: str, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if source != "the dsn argument":
        monkeypatch.setenv(source, dsn_text)
    with pytest.raises(ConnectionFailed) as info:
        agent_state.connect(dsn_text if source == "the dsn argument" else None)
    err = info.value
    text = str(err)
    assert text.startswith(f"cannot connect to PostgreSQL with the DSN from {source} ("), text
    assert "host=127.0.0.1 port=1" in text and "user=ann" in text
    assert SECRET not in text and SECRET not in repr(err)
    assert isinstance(err.__cause__, psycopg.OperationalError)


@pytest.mark.usefixtures("no_dsn")
def test_store_and_async_store_name_their_argument() -> None:
    with pytest.raises(ConnectionFailed, match="with the DSN from the Store argument"):
        Store(UNREACHABLE)


@pytest.mark.usefixtures("no_dsn")
async def test_async_connection_failure_is_connection_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", UNREACHABLE_URI)
    with pytest.raises(ConnectionFailed) as info:
        await agent_state.connect_async()
    assert "with the DSN from DATABASE_URL (" in str(info.value)
    assert SECRET not in str(info.value)
    store = AsyncStore(UNREACHABLE)
    with pytest.raises(ConnectionFailed, match="with the DSN from the AsyncStore argument"):
        await store.version()


@pytest.mark.usefixtures("no_dsn")
def test_a_malformed_dsn_is_not_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    """libpq's own message would quote a piece of it: here, half of the password."""
    monkeypatch.setenv("AGENT_STATE_DSN", "host=db password=half s3cr3t")
    with pytest.raises(ConnectionFailed) as info:
        agent_state.connect()
    err = info.value
    assert str(err).startswith("the DSN from AGENT_STATE_DSN is not a valid libpq connection")
    assert "s3cr3t" not in str(err)
    assert err.__cause__ is None and err.__suppress_context__


def test_install_with_an_unreachable_dsn_is_connection_failed() -> None:
    with pytest.raises(ConnectionFailed, match="with the DSN from the conn argument"):
        agent_state.install(UNREACHABLE)


# ---------------------------------------------------------------- permission hints


def test_operator_only_functions_are_those_the_catalog_grants_operators_only(
    store: Store,
) -> None:
    conn = store.connection
    assert conn is not None
    rows = conn.execute(
        """
        SELECT DISTINCT p.proname FROM pg_proc AS p
        WHERE p.pronamespace = 'agent_state'::regnamespace AND p.proname NOT LIKE '\\_%'
          AND has_function_privilege('agent_state_operator', p.oid, 'EXECUTE')
          AND NOT has_function_privilege('agent_state_runtime', p.oid, 'EXECUTE')
        """
    ).fetchall()
    assert operator_only_functions() == frozenset(r[0] for r in rows)


def test_a_runtime_calling_an_operator_function_is_told_the_grant(
    admin_dsn: str, runtime_role: RuntimeRole
) -> None:
    with agent_state.connect(runtime_role.dsn) as rt, pytest.raises(PermissionDenied) as info:
        rt.create_agent(handle=new_handle("hint"))
    err = info.value
    grant = f"GRANT agent_state_operator TO {quoted(runtime_role.name)};"
    assert err.sqlstate == "42501"
    assert err.diag is not None and err.diag.sqlstate == "42501"
    assert err.message == "permission denied for function create_agent"
    assert isinstance(err.__cause__, psycopg.errors.InsufficientPrivilege)
    assert str(err).startswith(
        "permission denied for function create_agent: agent_state.create_agent is for "
        "members of agent_state_operator; "
    )
    assert err.hint is not None and err.hint in str(err) and grant in err.hint
    # The statement is exact: run as printed, the call works.
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(grant)
    with agent_state.connect(runtime_role.dsn) as rt:
        assert isinstance(rt.create_agent(handle=new_handle("hint")), UUID)


def test_a_role_in_no_group_is_told_both_grants(
    dsn: str, make_role: Callable[..., TestRole]
) -> None:
    role = make_role(name=f"plain 'ü {uuid4().hex[:6]}")
    with agent_state.connect(role.dsn(dsn)) as s, pytest.raises(PermissionDenied) as info:
        s.list_agents()
    err = info.value
    assert err.message == "permission denied for schema agent_state"
    assert str(err).startswith(
        "permission denied for schema agent_state: agent_state.list_agents is for members "
        "of agent_state_runtime (for the agents they host) and of agent_state_operator"
    )
    assert f"GRANT agent_state_runtime TO {quoted(role.name)};" in str(err)
    assert f"GRANT agent_state_operator TO {quoted(role.name)};" in str(err)


async def test_async_store_gives_the_same_hint(
    dsn: str, make_role: Callable[..., TestRole]
) -> None:
    role = make_role("agent_state_runtime")
    async with AsyncStore(role.dsn(dsn)) as s:
        with pytest.raises(PermissionDenied) as info:
            await s.revise_persona(agent=uuid4(), body="x")
    assert info.value.hint is not None
    assert f"GRANT agent_state_operator TO {role.name};" in str(info.value)


def test_agent_states_own_42501_gets_no_grant_hint(store: Store, runtime_role: RuntimeRole) -> None:
    """A runtime that may call the function but not act for that agent: the
    function's own message, naming the argument; no GRANT would help."""
    a = store.create_agent(handle=new_handle("not hosted"))
    with agent_state.connect(runtime_role.dsn) as rt, pytest.raises(PermissionDenied) as info:
        rt.persona_history(agent=a)
    err = info.value
    assert err.message.startswith("agent")
    assert str(err) == err.message
    assert "GRANT agent_state_" not in str(err)
    assert err.diag is not None and err.hint == err.diag.message_hint  # the server's own


# ---------------------------------------------------------------- malformed uuids


def test_a_malformed_uuid_names_the_argument(store: Store, agent: UUID) -> None:
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.recall(agent="not-a-uuid", query="anything")
    assert info.value.sqlstate == "22P02"
    assert str(info.value) == "agent: not a uuid: 'not-a-uuid'"
    with pytest.raises(agent_state.InvalidArgument, match=r"^entry: not a uuid: 'nope'$"):
        store.memory_history(agent=agent, entry="nope")
    long = "x" * 100
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.persona_history(agent=long)
    assert str(info.value) == f"agent: not a uuid: {'x' * 64!r}..."


def test_a_malformed_uuid_in_an_array_names_its_position(store: Store, agent: UUID) -> None:
    alice = store.resolve_actor(agent=agent, connector="c", external_id="alice")
    dm = store.open_conversation(agent=agent, connector="c", external_ref="dm", kind="direct")
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.record_message(
            agent=agent, conversation=dm, author=alice, body="hi", audience=[alice, "bob"]
        )
    assert info.value.sqlstate == "22P02"
    assert str(info.value) == "audience[2]: not a uuid: 'bob'"


EDGE_CASES = [
    str(uuid4()),
    str(uuid4()).upper(),
    "{" + str(uuid4()) + "}",
    uuid4().hex,
    "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
    "a0eebc999c0b4ef8-bb6d6bb9bd380a11",
    "a0eeb-c999c0b4ef8bb6d6bb9bd380a11",
    "a0ee--bc999c0b4ef8bb6d6bb9bd380a11",
    "{" + str(uuid4()),
    str(uuid4()) + "}",
    " " + str(uuid4()),
    str(uuid4()) + "\n",
    "urn:uuid:" + str(uuid4()),
    uuid4().hex[:31],
    uuid4().hex + "0",
    "",
    "-" + uuid4().hex,
    uuid4().hex + "-",
]


def server_reads_uuid(conn: psycopg.Connection[tuple[object, ...]], text: str) -> bool:
    try:
        with conn.transaction():
            conn.execute("SELECT %s::text::uuid", [text])
    except psycopg.errors.InvalidTextRepresentation:
        return False
    return True


def test_uuid_text_check_agrees_with_the_server_on_edge_cases(store: Store) -> None:
    conn = store.connection
    assert conn is not None
    for text in EDGE_CASES:
        assert is_uuid_text(text) == server_reads_uuid(conn, text), repr(text)


@st.composite
def near_uuids(draw: st.DrawFn) -> str:
    """32 hex digits (sometimes one more or less) with hyphens, braces or a stray
    character inserted anywhere: mostly what the server's grammar decides on."""
    digits = list(draw(st.uuids()).hex)
    if draw(st.booleans()):
        digits = [*digits[: draw(st.sampled_from([31, 32, 33]))], "a"]
    for _ in range(draw(st.integers(0, 8))):
        at = draw(st.integers(0, len(digits)))
        digits.insert(at, draw(st.sampled_from(["-", "-", "-", "{", "}", " ", "G", "--"])))
    text = "".join(digits)
    if draw(st.booleans()):
        text = "{" + text + "}"
    return text.upper() if draw(st.booleans()) else text


@pytest.fixture(scope="module")
def uuid_conn(dsn: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


@settings(max_examples=400, deadline=None)
@given(text=near_uuids())
def test_uuid_text_check_agrees_with_the_server(
    uuid_conn: psycopg.Connection[tuple[object, ...]], text: str
) -> None:
    assert is_uuid_text(text) == server_reads_uuid(uuid_conn, text), repr(text)
