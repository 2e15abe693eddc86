"""The ``agent-state`` command line, against the test DSN and against an embedded cluster."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from uuid import UUID, uuid4

import psycopg
import pytest

from agent_state import __version__
from agent_state.cli import main
from conftest import offers_pgvector

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "python"


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ if env is None else env)
    environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PACKAGE_DIR), environ.get("PYTHONPATH", "")) if p
    )
    return subprocess.run(
        [sys.executable, "-m", "agent_state", *args],
        capture_output=True,
        text=True,
        env=environ,
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
    for command in ("install", "demo", "recall", "history", "export"):
        assert command in result.stdout


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
    assert "pip install -e '.[semantic]'" in meaning and "\n" not in meaning
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
    assert re.match(r"agent_state \d+\.\d+\.\d+ is installed", capsys.readouterr().out)


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
    assert "is installed" in capsys.readouterr().out


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
        main(["history", "--dsn", "unused", "--agent", "not-a-uuid"])
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


@pytest.mark.slow
@pytest.mark.skipif(not bundle_built(), reason="bundled SQL not built: run make")
@pytest.mark.skipif(not server_binaries(), reason="no local PostgreSQL server binaries")
def test_demo_on_an_embedded_cluster() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AGENT_STATE_DSN", "DATABASE_URL") and not k.startswith("PG")
    }
    result = run_cli("demo", env=env)
    assert result.returncode == 0, result.stderr
    assert "starting a throwaway PostgreSQL" in result.stderr
    check_demo_output(result.stdout)


def test_no_dsn_and_no_server_binaries_is_an_error(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AGENT_STATE_DSN", "DATABASE_URL") and not k.startswith("PG")
    }
    env["AGENT_STATE_PG_BINDIR"] = str(tmp_path)  # no initdb there
    result = run_cli("export", "--agent", str(uuid4()), env=env)
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
    assert main(["export", "--agent", str(uuid4())]) == 1
    assert "agent-state: error: embedded PostgreSQL: initdb failed" in capsys.readouterr().err
