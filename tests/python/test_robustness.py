"""Bad and oversized input: refused early, with documented SQLSTATEs, no noise.

- A text argument far over its limit is refused before anything copies it, and a
  JSON argument over its size or depth limit is refused (22023): the backend's peak
  memory for the refused call stays within what PostgreSQL itself needs to receive
  the argument, plus one copy.
- Timestamps: recall and memory_entry refuse an infinite as_of (22023 naming
  it), active_persona documents what infinity means.
- Normal calls emit no NOTICE (full-text parsing of very long words).
- The Python wrapper maps JSON nested too deep for Python's json module to
  InvalidArgument, like the server's own depth limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest

import agent_state
from agent_state import Store


@pytest.fixture
def setup(store: Store, agent: UUID) -> dict[str, Any]:
    ann = store.resolve_actor(agent=agent, connector="c", external_id="ann")
    conv = store.open_conversation(agent=agent, connector="c", external_ref="c1", kind="direct")
    msg = store.record_message(
        agent=agent, conversation=conv, author=ann, body="hi", audience=[ann]
    )
    run = store.start_run(agent=agent, conversation=conv)
    return {"agent": agent, "ann": ann, "conv": conv, "msg": msg, "run": run}


def peak_rss(pid: int) -> int:
    path = Path(f"/proc/{pid}/status")
    try:
        text = path.read_text()
    except OSError:
        pytest.skip("the server's processes are not readable here (remote server?)")
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    pytest.skip("no VmHWM in /proc")


def growth(dsn: str, query: str, params: list[Any]) -> tuple[int, str | None]:
    """Peak memory growth of a fresh backend running one statement, and its SQLSTATE."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        pid = conn.info.backend_pid
        conn.execute("SELECT 1")
        before = peak_rss(pid)
        state = None
        try:
            conn.execute(query, params)
        except psycopg.Error as e:
            state = e.sqlstate
        return peak_rss(pid) - before, state


SIZE = 40_000_000


def test_an_oversized_text_is_refused_before_it_is_copied(dsn: str, setup: dict[str, Any]) -> None:
    body = "x " * (SIZE // 2)
    base, _ = growth(dsn, "SELECT pg_catalog.length(%s::text)", [body])
    used, state = growth(
        dsn,
        "SELECT * FROM agent_state.remember(agent => %s, body => %s, source_message => %s)",
        [setup["agent"], body, setup["msg"]],
    )
    assert state == "22023"
    # PostgreSQL needs about 3x the argument to receive it; at most one more copy.
    assert used <= base + 1.5 * SIZE, (used / SIZE, base / SIZE)


def test_an_oversized_json_is_refused_before_it_is_read(dsn: str, setup: dict[str, Any]) -> None:
    frontier = json.dumps({"a": "x" * SIZE})
    base, _ = growth(dsn, "SELECT pg_catalog.pg_column_size(%s::jsonb)", [frontier])
    used, state = growth(
        dsn,
        "SELECT agent_state.checkpoint(agent => %s, run => %s, frontier => %s::jsonb)",
        [setup["agent"], setup["run"], frontier],
    )
    assert state == "22023"
    assert used <= base + 1.5 * SIZE, (used / SIZE, base / SIZE)


def nested(depth: int) -> Any:
    """A scalar inside depth - 1 arrays: its deepest level is depth - 1 (the top-level
    value is level 0)."""
    value: Any = 1
    for _ in range(depth - 1):
        value = [value]
    return value


def empty_arrays(levels: int) -> Any:
    """levels arrays inside one another, the innermost empty: nested levels levels."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("call", "arg", "limit"),
    [
        ("checkpoint", "frontier", 10_000_000),
        ("record_tool_call", "input", 10_000_000),
        ("finish_run", "detail", 10_000_000),
        ("continue_run", "task_context", 10_000_000),
        ("record_model_call", "request", 10_000_000),
        ("start_run", "budget", 1_000_000),
    ],
)
def test_json_limits(dsn: str, setup: dict[str, Any], call: str, arg: str, limit: int) -> None:
    s = setup
    calls = {
        "checkpoint": ("SELECT agent_state.checkpoint(agent => %s, run => %s, frontier => %s)",
                       [s["agent"], s["run"]]),
        "record_tool_call": ("SELECT agent_state.record_tool_call(agent => %s, run => %s,"
                             " tool => 't', input => %s)", [s["agent"], s["run"]]),
        "finish_run": ("SELECT agent_state.finish_run(agent => %s, run => %s, outcome => 'failed',"
                       " detail => %s)", [s["agent"], s["run"]]),
        "continue_run": ("SELECT agent_state.continue_run(agent => %s, run => %s,"
                         " task_context => %s)", [s["agent"], s["run"]]),
        "record_model_call": ("SELECT agent_state.record_model_call(agent => %s, run => %s,"
                              " snapshot => gen_random_uuid(), provider => 'p', model => 'm',"
                              " request => %s)", [s["agent"], s["run"]]),
        "start_run": ("SELECT agent_state.start_run(agent => %s, budget => %s)", [s["agent"]]),
    }  # fmt: skip
    query, params = calls[call]
    # finish_run and start_run take objects: the wrapping object is one level.
    extra = 1 if call in ("finish_run", "start_run") else 0
    wrap = (lambda v: {"k": v}) if extra else (lambda v: v)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for value, expected in (
            (wrap(nested(202 - extra)), f"{arg}: nested deeper than 200 levels"),
            # 201 levels with nothing inside the innermost array are 201 levels too.
            (wrap(empty_arrays(201 - extra)), f"{arg}: nested deeper than 200 levels"),
            (wrap("x" * limit), f"{arg}: larger than {limit:,} bytes"),
        ):
            with pytest.raises(psycopg.errors.InvalidParameterValue, match=expected):
                conn.execute(query, [*params, psycopg.types.json.Jsonb(value)])
        # 200 levels pass this check (whatever the call then says about the value).
        for value in (wrap(nested(201 - extra)), wrap(empty_arrays(200 - extra))):
            try:
                conn.execute(query, [*params, psycopg.types.json.Jsonb(value)])
            except psycopg.Error as e:
                assert "nested deeper" not in str(e)


def test_reads_refuse_an_infinite_as_of(dsn: str, setup: dict[str, Any]) -> None:
    # One rule for both reads as of a moment (_need_as_of).
    reads = (
        "SELECT * FROM agent_state.recall(agent => %s, query => 'x', as_of => %s::timestamptz)",
        "SELECT * FROM agent_state.memory_entry(agent => %s, entry => gen_random_uuid(),"
        " as_of => %s::timestamptz)",
    )
    with psycopg.connect(dsn, autocommit=True) as conn:
        for read in reads:
            for moment in ("infinity", "-infinity"):
                with pytest.raises(
                    psycopg.errors.InvalidParameterValue, match="as_of: must be a finite timestamp"
                ):
                    conn.execute(read, [setup["agent"], moment])


def test_active_persona_at_infinity(store: Store, setup: dict[str, Any], dsn: str) -> None:
    store.revise_persona(agent=setup["agent"], body="Persona one")
    with psycopg.connect(dsn) as conn:
        now = conn.execute(
            "SELECT revision FROM agent_state.active_persona(agent => %s, as_of => 'infinity')",
            [setup["agent"]],
        ).fetchall()
        before = conn.execute(
            "SELECT revision FROM agent_state.active_persona(agent => %s, as_of => '-infinity')",
            [setup["agent"]],
        ).fetchall()
    assert now == [(1,)]
    assert before == []


@pytest.fixture
def notices(dsn: str) -> Iterator[tuple[psycopg.Connection[Any], list[str]]]:
    seen: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.add_notice_handler(lambda d: seen.append(str(d.message_primary)))
        yield conn, seen


def test_normal_calls_emit_no_notice(
    notices: tuple[psycopg.Connection[Any], list[str]], setup: dict[str, Any]
) -> None:
    conn, seen = notices
    s = setup
    word = "y" * 3000  # longer than full-text search indexes (2,047 characters)
    msg = conn.execute(
        "SELECT agent_state.record_message(agent => %s, conversation => %s, author => %s,"
        " body => %s, audience => ARRAY[%s]::uuid[])",
        [s["agent"], s["conv"], s["ann"], f"hi {word}", s["ann"]],
    ).fetchone()
    assert msg is not None
    row = conn.execute(
        "SELECT entry FROM agent_state.remember(agent => %s, body => %s, source_message => %s)",
        [s["agent"], f"long {word}", msg[0]],
    ).fetchone()
    assert row is not None
    entry = row[0]
    for query, params in (
        ("SELECT agent_state.amend(agent => %s, entry => %s, body => %s, expected_revision => 1)",
         [s["agent"], entry, f"longer {word}"]),
        ("SELECT * FROM agent_state.recall(agent => %s, query => 'long', conversation => %s,"
         " as_of => now())", [s["agent"], s["conv"]]),
        ("SELECT * FROM agent_state.recall(agent => %s, query => %s, conversation => %s)",
         [s["agent"], f"long {word}", s["conv"]]),
        ("SELECT * FROM agent_state.context_for(agent => %s, conversation => %s, message => %s)",
         [s["agent"], s["conv"], msg[0]]),
        ("SELECT agent_state.forget(agent => %s, entry => %s, expected_revision => 2)",
         [s["agent"], entry]),
        ("SELECT * FROM agent_state.note(agent => %s, body => %s)", [s["agent"], f"note {word}"]),
    ):  # fmt: skip
        conn.execute(query, params)
    assert seen == []


def test_the_wrapper_refuses_json_too_deep_for_python(store: Store, setup: dict[str, Any]) -> None:
    with pytest.raises(agent_state.InvalidArgument, match="nested too deeply"):
        store.checkpoint(agent=setup["agent"], run=setup["run"], frontier=nested(5000))
    with pytest.raises(agent_state.InvalidArgument, match="nested deeper than 200 levels"):
        store.checkpoint(agent=setup["agent"], run=setup["run"], frontier=nested(300))
    assert store.checkpoint(agent=setup["agent"], run=setup["run"], frontier=nested(150)) == 1


def test_a_granted_role_writes_entries_in_a_fresh_session(
    fresh_db_dsn: str, make_role: Any
) -> None:
    """A session expands an index's expressions once, as the first role that reads
    the index. An expression calling a function that role may not execute failed
    the first write of a role granted table privileges (42501 on the function);
    the search index must call none."""
    role = make_role("agent_state_runtime")
    with psycopg.connect(fresh_db_dsn, autocommit=True) as admin:
        agent = admin.execute("SELECT agent_state.create_agent('fresh-session')").fetchone()[0]  # type: ignore[index]
        admin.execute("SELECT agent_state.grant_hosting(%s, %s::regrole)", [agent, role.name])
        admin.execute(f'GRANT ALL ON ALL TABLES IN SCHEMA agent_state TO "{role.name}"')
    with psycopg.connect(role.dsn(fresh_db_dsn)) as conn:  # its first statement
        conn.execute(
            "INSERT INTO agent_state.memory_entries (runtime_agent_id, current_revision, body,"
            " visibility, source_type, revised_at)"
            " VALUES (%s, 1, 'x', 'perspective', 'agent', now())",
            [agent],
        )
        conn.rollback()  # the commit checks would refuse the entry without its revision
    with psycopg.connect(fresh_db_dsn) as admin:
        exprs = admin.execute(
            "SELECT pg_get_indexdef(indexrelid) FROM pg_index"
            " WHERE indrelid = 'agent_state.memory_entries'::regclass"
        ).fetchall()
    assert not any("agent_state." in d.split(" USING ", 1)[1] for (d,) in exprs), exprs
