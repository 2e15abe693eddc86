"""The foundation functions (agents, hosting, actors, conversations, messages, persona)
through the synchronous wrapper, and the SQLSTATE → exception mapping."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import datetime, timedelta
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg_pool import ConnectionPool

import agent_state
from agent_state import Store
from conftest import RuntimeRole, new_handle

# ---------------------------------------------------------------- basics


def test_version_is_the_installed_version(store: Store) -> None:
    v = store.version()
    assert isinstance(v, str)
    assert v == agent_state.__version__


def test_install_is_a_noop_on_an_installed_database(store: Store) -> None:
    assert store.connection is not None
    assert agent_state.install(store.connection) == store.version()


def test_connect_reads_the_dsn_from_the_environment(
    dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_STATE_DSN", dsn)
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@invalid.invalid/none")
    with agent_state.connect() as s:
        assert s.version() == agent_state.__version__
    monkeypatch.delenv("AGENT_STATE_DSN")
    monkeypatch.setenv("DATABASE_URL", dsn)
    with agent_state.connect() as s:
        assert s.version() == agent_state.__version__


def test_connection_failure_is_an_agent_state_error() -> None:
    with pytest.raises(agent_state.Error) as info:
        agent_state.connect("host=127.0.0.1 port=1 connect_timeout=2")
    assert isinstance(info.value.__cause__, psycopg.OperationalError)


def test_store_from_dsn_string_owns_its_connection(dsn: str) -> None:
    s = Store(dsn)
    conn = s.connection
    assert conn is not None and conn.autocommit
    assert s.version() == agent_state.__version__
    s.close()
    assert conn.closed


def test_store_does_not_close_a_callers_connection(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        with Store(conn) as s:
            s.version()
        assert not conn.closed


def test_store_rejects_other_sources() -> None:
    with pytest.raises(TypeError):
        Store(42)  # type: ignore[arg-type]


# ---------------------------------------------------------------- agents


def test_create_agent_returns_uuid_and_handle_is_unique(store: Store) -> None:
    handle = new_handle()
    a = store.create_agent(handle=handle, display_name='Ünïcode "display"')
    assert isinstance(a, UUID)
    with pytest.raises(agent_state.Duplicate) as info:
        store.create_agent(handle=handle)
    assert info.value.sqlstate == "23505"
    assert "handle" in info.value.message


def test_create_agent_settings(store: Store) -> None:
    store.create_agent(
        handle=new_handle(), settings={"subject_boost": 2.5, "recency_half_life": "7 days"}
    )
    with pytest.raises(agent_state.InvalidArgument):
        store.create_agent(handle=new_handle(), settings={"subject_boost": "lots"})
    with pytest.raises(agent_state.InvalidArgument):
        store.create_agent(handle=new_handle(), settings=[1, 2])


def test_missing_argument(store: Store) -> None:
    with pytest.raises(agent_state.MissingArgument) as info:
        store.create_agent(handle=None)  # type: ignore[arg-type]
    assert info.value.sqlstate == "22004"
    assert isinstance(info.value, agent_state.InvalidArgument)


def test_error_keeps_sqlstate_diag_and_cause(store: Store) -> None:
    unknown = uuid4()
    with pytest.raises(agent_state.NotFound) as info:
        store.persona_history(agent=unknown)
    err = info.value
    assert err.sqlstate == "P0002"
    assert err.diag is not None and err.diag.sqlstate == "P0002"
    assert err.message.startswith("agent")
    assert str(unknown) in err.message
    assert isinstance(err.__cause__, psycopg.Error)
    assert err.__cause__.sqlstate == "P0002"


def test_malformed_uuid_is_invalid_argument(store: Store) -> None:
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.persona_history(agent="not-a-uuid")
    assert info.value.sqlstate == "22P02"


def test_an_error_does_not_poison_the_store(store: Store, agent: UUID) -> None:
    with pytest.raises(agent_state.NotFound):
        store.persona_history(agent=uuid4())
    assert store.persona_history(agent=agent) == []


# ---------------------------------------------------------------- actors and conversations


def test_resolve_actor_is_idempotent_per_identity(store: Store, agent: UUID) -> None:
    alice = store.resolve_actor(
        agent=agent, connector="slack", external_id="U1", display_name="Alice"
    )
    assert store.resolve_actor(agent=agent, connector="slack", external_id="U1") == alice
    bot = store.resolve_actor(agent=agent, connector="slack", external_id="B1", kind="bot")
    assert bot != alice
    with pytest.raises(agent_state.InvalidArgument):
        store.resolve_actor(agent=agent, connector="slack", external_id="X", kind="alien")
    with pytest.raises(agent_state.InvalidArgument):
        store.resolve_actor(agent=agent, connector="slack", external_id="   ")


def test_the_same_human_is_two_actors_in_two_perspectives(store: Store) -> None:
    a1 = store.create_agent(handle=new_handle())
    a2 = store.create_agent(handle=new_handle())
    x1 = store.resolve_actor(agent=a1, connector="slack", external_id="U-SAME")
    x2 = store.resolve_actor(agent=a2, connector="slack", external_id="U-SAME")
    assert x1 != x2
    # Using an actor of another perspective is refused.
    conv = store.open_conversation(agent=a2, connector="slack", external_ref="C1")
    with pytest.raises(agent_state.CrossPerspectiveReference):
        store.record_message(agent=a2, conversation=conv, author=x1, body="hi", audience=[x2])


def test_link_identity(store: Store, agent: UUID) -> None:
    alice = store.resolve_actor(agent=agent, connector="slack", external_id="U-ALICE")
    bob = store.resolve_actor(agent=agent, connector="slack", external_id="U-BOB")
    store.link_identity(agent=agent, actor=alice, connector="github", external_id="alice")
    assert store.resolve_actor(agent=agent, connector="github", external_id="alice") == alice
    # Linking again to the same actor is a no-op; to another actor a duplicate.
    store.link_identity(agent=agent, actor=alice, connector="github", external_id="alice")
    with pytest.raises(agent_state.Duplicate):
        store.link_identity(agent=agent, actor=bob, connector="github", external_id="alice")
    with pytest.raises(agent_state.NotFound):
        store.link_identity(agent=agent, actor=uuid4(), connector="github", external_id="z")


def test_open_conversation_is_idempotent(store: Store, agent: UUID) -> None:
    c = store.open_conversation(agent=agent, connector="slack", external_ref="C-1")
    assert store.open_conversation(agent=agent, connector="slack", external_ref="C-1") == c
    d = store.open_conversation(agent=agent, connector="slack", external_ref="D-1", kind="direct")
    assert d != c
    with pytest.raises(agent_state.InvalidArgument):
        store.open_conversation(agent=agent, connector="slack", external_ref="X", kind="room")


def test_record_message(store: Store, agent: UUID) -> None:
    alice = store.resolve_actor(agent=agent, connector="slack", external_id="U-A")
    bob = store.resolve_actor(agent=agent, connector="slack", external_id="U-B")
    group = store.open_conversation(agent=agent, connector="slack", external_ref="G")
    public = store.open_conversation(agent=agent, connector="web", external_ref="P", kind="public")
    m = store.record_message(
        agent=agent, conversation=group, author=alice, body="hello", audience=[alice, bob]
    )
    assert isinstance(m, UUID)
    # audience as text uuids works too (cast server-side)
    store.record_message(
        agent=agent, conversation=group, author=bob, body="hi", audience=[str(alice)]
    )
    with pytest.raises(agent_state.MissingArgument):
        store.record_message(agent=agent, conversation=group, author=alice, body="no audience")
    assert isinstance(
        store.record_message(agent=agent, conversation=public, author=alice, body="to all"), UUID
    )
    with pytest.raises(agent_state.InvalidArgument):
        store.record_message(
            agent=agent, conversation=group, author=alice, body="   ", audience=[alice]
        )
    with pytest.raises(agent_state.NotFound):
        store.record_message(
            agent=agent, conversation=uuid4(), author=alice, body="x", audience=[alice]
        )


def test_record_message_external_ref_and_observed_at(store: Store, agent: UUID) -> None:
    alice = store.resolve_actor(agent=agent, connector="slack", external_id="U-A")
    group = store.open_conversation(agent=agent, connector="slack", external_ref="G")
    when = datetime.now().astimezone() - timedelta(hours=3)
    m1 = store.record_message(
        agent=agent,
        conversation=group,
        author=alice,
        body="once",
        audience=[alice],
        external_ref="ts-1",
        observed_at=when,
    )
    m2 = store.record_message(
        agent=agent,
        conversation=group,
        author=alice,
        body="once",
        audience=[alice],
        external_ref="ts-1",
        observed_at=when,
    )
    assert m1 == m2


# ---------------------------------------------------------------- persona


def test_persona_revise_activate_history(store: Store, agent: UUID) -> None:
    assert store.active_persona(agent=agent) is None
    r1 = store.revise_persona(agent=agent, body="You are one.")
    r2 = store.revise_persona(agent=agent, body="You are two.")
    r3 = store.revise_persona(agent=agent, body="You are three (draft).", activate=False)
    assert (r1, r2, r3) == (1, 2, 3)

    active = store.active_persona(agent=agent)
    assert active is not None
    assert isinstance(active, agent_state.ActivePersona)
    assert (active.revision, active.body) == (2, "You are two.")

    store.activate_persona(agent=agent, revision=1)
    history = store.persona_history(agent=agent)
    assert [h.revision for h in history] == [1, 2, 3]
    assert [h.is_active for h in history] == [True, False, False]
    assert all(isinstance(h, agent_state.PersonaRevision) for h in history)
    assert history[2].body == "You are three (draft)."
    assert history[0].created_by  # the role that made the change
    with pytest.raises(FrozenInstanceError):
        history[0].body = "changed"  # type: ignore[misc]

    # Reverting re-activates, it never copies: still three revisions.
    now = store.active_persona(agent=agent)
    assert now is not None and now.revision == 1 and now.body == "You are one."
    assert len(store.persona_history(agent=agent)) == 3


def test_active_persona_as_of(store: Store, agent: UUID) -> None:
    store.revise_persona(agent=agent, body="first")
    first = store.active_persona(agent=agent)
    store.revise_persona(agent=agent, body="second")
    second = store.active_persona(agent=agent)
    assert first is not None and second is not None
    assert second.activated_at > first.activated_at

    assert store.active_persona(agent=agent, as_of=first.activated_at - timedelta(days=1)) is None
    at_first = store.active_persona(agent=agent, as_of=first.activated_at)
    assert at_first is not None and at_first.revision == 1
    at_second = store.active_persona(agent=agent, as_of=second.activated_at)
    assert at_second is not None and at_second.revision == 2


def test_activate_unknown_revision(store: Store, agent: UUID) -> None:
    store.revise_persona(agent=agent, body="only")
    with pytest.raises(agent_state.NotFound):
        store.activate_persona(agent=agent, revision=7)
    with pytest.raises(agent_state.InvalidArgument):
        store.revise_persona(agent=agent, body="")


# ---------------------------------------------------------------- transactions and pools


def test_transaction_groups_calls(store: Store) -> None:
    handle = new_handle()

    class Boom(Exception):
        pass

    with pytest.raises(Boom), store.transaction() as tx:
        assert tx is store
        a = store.create_agent(handle=handle)
        store.revise_persona(agent=a, body="never committed")
        raise Boom
    # Rolled back: the handle is free again.
    a = store.create_agent(handle=handle)
    with store.transaction():
        store.revise_persona(agent=a, body="one")
        with pytest.raises(agent_state.NotFound), store.transaction():  # savepoint
            store.activate_persona(agent=a, revision=99)
        store.revise_persona(agent=a, body="two")
    assert [h.revision for h in store.persona_history(agent=a)] == [1, 2]


def test_store_on_a_pool(dsn: str) -> None:
    with ConnectionPool(dsn, min_size=1, max_size=2, open=True) as pool:
        s = Store(pool)
        assert s.pool is pool and s.connection is None
        a = s.create_agent(handle=new_handle())
        assert s.revise_persona(agent=a, body="pooled") == 1
        history = s.persona_history(agent=a)
        assert [h.body for h in history] == ["pooled"]
        with pytest.raises(agent_state.NotFound):
            s.persona_history(agent=uuid4())

        handle = new_handle()
        with pytest.raises(RuntimeError), s.transaction():
            s.create_agent(handle=handle)
            raise RuntimeError("roll back")
        s.create_agent(handle=handle)  # not a duplicate: the block was rolled back

        with s.transaction():
            b = s.create_agent(handle=new_handle())
            s.revise_persona(agent=b, body="in one transaction")
        assert s.active_persona(agent=b) is not None


def test_non_autocommit_connection_is_used_as_is(dsn: str) -> None:
    with psycopg.connect(dsn) as conn:
        s = Store(conn)
        handle = new_handle()
        s.create_agent(handle=handle)
        conn.rollback()
        s.create_agent(handle=handle)  # the first one was never committed
        conn.commit()


# ---------------------------------------------------------------- roles and hosting


def runtime_store(role: RuntimeRole) -> Store:
    return agent_state.connect(role.dsn)


def test_runtime_role_needs_hosting(store: Store, runtime_role: RuntimeRole) -> None:
    a = store.create_agent(handle=new_handle())
    store.revise_persona(agent=a, body="hosted persona")
    with runtime_store(runtime_role) as rt:
        with pytest.raises(agent_state.PermissionDenied) as info:
            rt.persona_history(agent=a)
        assert info.value.sqlstate == "42501"
        # An unknown agent looks exactly like one that is not hosted.
        with pytest.raises(agent_state.PermissionDenied):
            rt.persona_history(agent=uuid4())
        with pytest.raises(agent_state.PermissionDenied):
            rt.create_agent(handle=new_handle())

        store.grant_hosting(agent=a, host=runtime_role.name)
        runtime_role.hosted.append(a)
        store.grant_hosting(agent=a, host=runtime_role.name)  # twice is a no-op
        assert [h.body for h in rt.persona_history(agent=a)] == ["hosted persona"]
        active = rt.active_persona(agent=a)
        assert active is not None and active.revision == 1
        actor = rt.resolve_actor(agent=a, connector="slack", external_id="U-RT")
        assert isinstance(actor, UUID)
        # Persona is written by operators only.
        with pytest.raises(agent_state.PermissionDenied):
            rt.revise_persona(agent=a, body="runtime may not")
        with pytest.raises(agent_state.PermissionDenied):
            rt.grant_hosting(agent=a, host=runtime_role.name)

        store.revoke_hosting(agent=a, host=runtime_role.name)
        with pytest.raises(agent_state.PermissionDenied):
            rt.persona_history(agent=a)


def test_grant_hosting_unknown_role(store: Store, agent: UUID) -> None:
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.grant_hosting(agent=agent, host=f"no such role {uuid4().hex}")
    assert info.value.sqlstate == "42704"  # undefined_object, from regrole input
