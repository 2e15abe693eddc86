"""The release process (SPEC section 2, RELEASING.md): a released script never
changes, the lint says so when one does, make rebuilds what a source feeds and
nothing it must not, and `make release` freezes one version and opens the next.

These tests need make and the source tree, not a database.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
FROZEN_STEP = "sql/updates/agent_state--0.1.0--0.2.0.sql"

# What the 0.2.0 build (commit a1a141c) produced: the shipped 0.1.0 -> 0.2.0 step
# and 0.2.0's install script.
SHIPPED_0_2_0 = {
    "agent_state--0.1.0--0.2.0.sql": (
        "a0e93a706729ef938a9f87180815c68c88bb87c21f7d6a340caff7d441ea41ae"
    ),
    "agent_state--0.2.0.sql": "359e4ddb272f7fcfa4cfa8aaa1953f5dcbecf70375604bc159011d79cdeb0fb5",
}


def load_release() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = load_release()


def make(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # Without PGXS the Makefile still builds every script; the tests need no server.
    return subprocess.run(
        ["make", "--no-print-directory", "PG_CONFIG=/nonexistent", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the source tree (tracked and new files, as git sees them)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    copy = tmp_path / "tree"
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def test_the_tree_passes_the_release_lint() -> None:
    assert release.check(ROOT) == []


def test_the_shipped_step_and_install_script_are_byte_identical_to_0_2_0() -> None:
    built = make("all")
    assert built.returncode == 0, built.stderr
    for name, digest in SHIPPED_0_2_0.items():
        assert hashlib.sha256((ROOT / "build" / name).read_bytes()).hexdigest() == digest, name
    kept = ROOT / "sql" / "releases" / "agent_state--0.2.0.sql"
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == SHIPPED_0_2_0[kept.name]


def test_an_edited_line_in_a_released_script_fails_make_lint(tree: Path) -> None:
    assert make("lint-releases", cwd=tree).returncode == 0
    path = tree / FROZEN_STEP
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("CREATE OR REPLACE FUNCTION"))
    lines[at] = lines[at].replace("FUNCTION", "FUNCTION ", 1)
    path.write_text("".join(lines))
    result = make("lint-releases", cwd=tree)
    assert result.returncode != 0
    assert f"{FROZEN_STEP}: changed since it was released" in result.stderr


def test_an_include_added_to_a_released_script_fails_make_lint(tree: Path) -> None:
    path = tree / "sql" / "releases" / "agent_state--0.2.0.sql"
    path.write_text(path.read_text() + "-- include: functions/core/version.sql\n")
    result = make("lint-releases", cwd=tree)
    assert result.returncode != 0
    assert "agent_state--0.2.0.sql" in result.stderr and "build directive" in result.stderr


def test_an_include_added_to_a_released_upgrade_step_fails_make_lint(tree: Path) -> None:
    path = tree / FROZEN_STEP
    path.write_text(path.read_text() + "-- include: functions/core/version.sql\n")
    result = make("lint-releases", cwd=tree)
    assert result.returncode != 0
    assert FROZEN_STEP in result.stderr and "build directive" in result.stderr


def test_make_lint_runs_the_release_lint_and_fails_with_it(tree: Path) -> None:
    # `make lint` is the run_suite lint stages; the release stage is one of them,
    # and run through run_suite it fails the run on an edited released script.
    lint_recipe = next(
        line
        for line in (tree / "Makefile").read_text().splitlines()
        if "run_suite.py --stages" in line and "sqlfluff" in line
    )
    assert "releases" in lint_recipe.split("--stages", 1)[1].split()[0].split(",")
    path = tree / "sql" / "releases" / "agent_state--0.1.0.sql"
    path.write_text(path.read_text().replace("CREATE", "CREATE ", 1))
    result = subprocess.run(
        ["python3", "tests/run_suite.py", "--stages", "releases"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0, result.stdout
    assert "changed since it was released" in result.stdout + result.stderr


def test_a_release_without_a_path_to_the_default_fails_the_lint(tree: Path) -> None:
    (tree / "sql" / "updates" / "agent_state--0.2.0--0.3.0.sql").unlink()
    problems = release.check(tree)
    assert "no upgrade path from released 0.1.0 to 0.3.0" in problems
    assert "no upgrade path from released 0.2.0 to 0.3.0" in problems


def test_an_unlisted_or_missing_checksum_fails_the_lint(tree: Path) -> None:
    sums = tree / "sql" / "releases" / "SHA256SUMS"
    kept = [line for line in sums.read_text().splitlines() if "0.1.0.sql" not in line]
    sums.write_text("\n".join(kept) + "\n" + "0" * 64 + "  sql/releases/gone.sql\n")
    problems = release.check(tree)
    assert any("agent_state--0.1.0.sql: released but not listed" in p for p in problems)
    assert any("gone.sql is listed but is not a released script" in p for p in problems)


def sources() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "sql", "functions"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [
        name
        for name in listed
        if name.endswith(".sql") and not name.startswith(("sql/releases", "sql/updates"))
    ]


def test_touching_any_source_rebuilds_the_scripts_that_include_it_and_no_frozen_one() -> None:
    assert make("all").returncode == 0
    current = release.default_version(ROOT)
    developed = [f"build/agent_state--{current}.sql"] + [
        f"build/{p.name}" for p in (ROOT / "sql" / "updates").glob(f"*--{current}.sql")
    ]
    frozen = [f"build/{p.name}" for p in (ROOT / "sql" / "updates").glob("*.sql")]
    frozen = [name for name in frozen if name not in developed]
    assert len(developed) == 2 and frozen
    names = sources()
    assert "sql/triggers.sql" in names and "functions/core/version.sql" in names
    stale = []
    for name in names:
        for target in developed:
            # -q: exit 1 when the target would be rebuilt; -W: as if name had just changed.
            if make("-q", "-W", name, target).returncode != 1:
                stale.append(f"{target} ignores {name}")
        for target in frozen:
            if make("-q", "-W", name, target).returncode != 0:
                stale.append(f"{target} is frozen but would be rebuilt from {name}")
    assert stale == []


def test_make_release_freezes_the_version_and_opens_the_next(tree: Path) -> None:
    current = release.default_version(tree)
    step = tree / "sql" / "updates" / f"agent_state--0.2.0--{current}.sql"
    assert "-- include:" in step.read_text()
    result = make("release", "NEXT=9.0.0", cwd=tree)
    assert result.returncode == 0, result.stdout + result.stderr
    built = tree / "build"
    assert step.read_bytes() == (built / step.name).read_bytes()
    assert "-- include:" not in step.read_text()
    kept = tree / "sql" / "releases" / f"agent_state--{current}.sql"
    assert kept.read_bytes() == (built / kept.name).read_bytes()
    assert release.default_version(tree) == "9.0.0"
    opened = tree / "sql" / "updates" / f"agent_state--{current}--9.0.0.sql"
    assert "-- include: functions/*/*.sql" in opened.read_text()
    assert release.check(tree) == []
    # The next build makes 9.0.0 and copies the step just frozen as it is.
    assert make("all", cwd=tree).returncode == 0
    assert (built / "agent_state--9.0.0.sql").is_file()
    assert (built / step.name).read_bytes() == step.read_bytes()
    assert "SELECT '9.0.0'" in (built / "agent_state--9.0.0.sql").read_text()
