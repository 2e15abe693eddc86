"""Property-based checks of argument adaptation: arbitrary text and JSON reach the
database unchanged, and what it cannot hold raises InvalidArgument (never a raw psycopg
error or an internal error)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agent_state
from agent_state import Store
from agent_state import _functions as F

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def store(dsn: str) -> Iterator[Store]:
    with agent_state.connect(dsn) as s:
        yield s


@pytest.fixture(scope="module")
def agent(store: Store) -> UUID:
    return store.create_agent(handle=f"props {uuid4().hex[:12]}")


def acceptable_text(text: str) -> bool:
    """What ``_need_text`` accepts (blank means only space, tab, CR, LF)."""
    return "\x00" not in text and text.strip(" \t\r\n") != "" and len(text) <= 100_000


@SETTINGS
@given(body=st.text(max_size=300))
def test_persona_text_round_trips(store: Store, agent: UUID, body: str) -> None:
    if not acceptable_text(body):
        with pytest.raises(agent_state.InvalidArgument):
            store.revise_persona(agent=agent, body=body, activate=False)
        return
    revision = store.revise_persona(agent=agent, body=body, activate=False)
    history = store.persona_history(agent=agent)
    assert history[revision - 1].revision == revision
    assert history[revision - 1].body == body


@SETTINGS
@given(
    connector=st.text(min_size=1, max_size=40),
    external_id=st.text(min_size=1, max_size=80),
)
def test_resolve_actor_is_idempotent_for_any_identity(
    store: Store, agent: UUID, connector: str, external_id: str
) -> None:
    if not (acceptable_text(connector) and acceptable_text(external_id)):
        with pytest.raises(agent_state.InvalidArgument):
            store.resolve_actor(agent=agent, connector=connector, external_id=external_id)
        return
    first = store.resolve_actor(agent=agent, connector=connector, external_id=external_id)
    again = store.resolve_actor(agent=agent, connector=connector, external_id=external_id)
    assert first == again


# No NUL and no lone surrogates: jsonb cannot hold them (tested separately below).
JSON_CHARS = st.characters(codec="utf-8", exclude_characters="\x00")
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=JSON_CHARS, max_size=20)
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(alphabet=JSON_CHARS, max_size=10),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def open_tool(store: Store, dsn: str) -> str:
    with psycopg.connect(dsn, autocommit=True) as conn:
        names = {
            r[0]
            for r in conn.execute(
                "SELECT p.proname FROM pg_catalog.pg_proc p"
                " JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
                " WHERE n.nspname = 'agent_state'"
            )
        }
    missing = {"register_tool", "grant_tool", "tool_grant_history"} - names
    if missing:
        pytest.skip("not in the database yet: " + ", ".join(sorted(missing)))
    tool = f"props.any.{uuid4().hex[:10]}"
    store.register_tool(name=tool, version="1", config_schema={"type": "object"})
    return tool


def jsonb_safe(text: str) -> bool:
    return "\x00" not in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


@SETTINGS
@given(config=st.dictionaries(st.text(max_size=10), JSON, max_size=5))
def test_jsonb_config_round_trips(
    store: Store, agent: UUID, open_tool: str, config: dict[str, Any]
) -> None:
    if not all(jsonb_safe(key) for key in config):
        with pytest.raises(agent_state.InvalidArgument):
            store.grant_tool(agent=agent, tool=open_tool, enabled=True, config=config)
        return
    revision = store.grant_tool(agent=agent, tool=open_tool, enabled=True, config=config)
    history = store.tool_grant_history(agent=agent, tool=open_tool)
    assert history[-1].revision == revision
    # jsonb keeps numbers as numeric: 5.615039194817977e+16 comes back as an int.
    assert numbers_as_floats(history[-1].config) == numbers_as_floats(config)


def numbers_as_floats(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [numbers_as_floats(v) for v in value]
    assert isinstance(value, dict)
    return {k: numbers_as_floats(v) for k, v in value.items()}


@given(
    data=st.data(),
    name=st.sampled_from(sorted(F.FUNCTIONS)),
)
def test_only_given_optional_arguments_are_sent(data: st.DataObject, name: str) -> None:
    fn = F.FUNCTIONS[name]
    args: dict[str, object] = {}
    for p in fn.params:
        if p.default and not data.draw(st.booleans(), label=f"give {p.name}"):
            args[p.name] = None
        else:
            value = str(uuid4()) if p.type.startswith("uuid") else "x"
            args[p.name] = [value] if p.type.endswith("[]") else value
    query, params = fn.build(args)
    text = query.as_string(None)
    sent = [p.name for p in fn.params if args[p.name] is not None or not p.default]
    assert len(params) == len(sent)
    for p in fn.params:
        assert (f'"{p.name}" => %s::{p.type}' in text) == (p.name in sent)


def test_lone_surrogate_is_invalid_argument(store: Store, agent: UUID) -> None:
    with pytest.raises(agent_state.InvalidArgument):
        store.revise_persona(agent=agent, body="bad \ud800 text", activate=False)


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800"])
def test_nul_or_surrogate_in_json_is_invalid_argument(
    store: Store, open_tool: str, agent: UUID, bad: str
) -> None:
    with pytest.raises(agent_state.InvalidArgument):
        store.grant_tool(agent=agent, tool=open_tool, enabled=True, config={"k": bad})
