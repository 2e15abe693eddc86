"""Every pip route gives a complete package (SPEC section 2, pip).

From a copy of the tracked tree with nothing built in it (no build/, no
python/agent_state/sql/), the sdist and the wheel are built the way `python -m build`
does (sdist first, the wheel from the sdist), then the checkout, the sdist, the
wheel and an editable checkout are each installed into a fresh virtual environment.
There, from a directory outside any checkout, `agent-state install` installs into a
new empty database with the SQL the package ships, and a short flow (connect,
create_agent, list_agents) runs on it. The build itself runs no make: setup.py's
build step writes agent_state/sql/ with scripts/build_sql.py.

The virtual environments see the test interpreter's site-packages through a .pth
file (psycopg and setuptools come from there, nothing is downloaded), but not the
.pth files in it, so no editable install of this checkout leaks in.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import psycopg
import pytest
from psycopg import sql

from conftest import with_dbname

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BUILT = ("build/", "dist/", "python/agent_state/sql/")

SMOKE = """
import sys
from pathlib import Path

import agent_state

where = Path(agent_state.__file__).resolve()
assert where.is_relative_to(Path(sys.argv[2]).resolve()), where
with agent_state.connect(sys.argv[1]) as store:
    agent = store.create_agent(handle="pkg-smoke", display_name="Packaged")
    listed = {a.agent: a.handle for a in store.list_agents()}
    assert listed.get(agent) == "pkg-smoke", listed
print("smoke ok", where)
"""


def load_build_sql() -> ModuleType:
    path = ROOT / "scripts" / "build_sql.py"
    spec = importlib.util.spec_from_file_location("_test_build_sql", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_sql = load_build_sql()


def importable(name: str) -> bool:
    # Not the checkout's build/ directory, which imports as a namespace package.
    spec = importlib.util.find_spec(name)
    return spec is not None and spec.origin is not None


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, (
        f"{' '.join(map(str, args))} exited with {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    )
    return proc.stdout


def copy_tree(dest: Path) -> Path:
    """The tracked and new files, as git sees them, without anything built."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if name.startswith(BUILT) or not source.is_file():
            continue
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest / name)
    return dest


def clean_env() -> dict[str, str]:
    """The environment without anything that points into this checkout or a database."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "DATABASE_URL")
        and not k.startswith(("AGENT_STATE_", "PG"))
    }


def outer_site_dirs() -> list[str]:
    return [
        entry
        for entry in sys.path
        if Path(entry).name in ("site-packages", "dist-packages") and Path(entry).is_dir()
    ]


def make_venv(path: Path) -> Path:
    """A new virtual environment that sees this interpreter's packages; its python."""
    run([sys.executable, "-m", "venv", path], cwd=path.parent)
    python = path / "bin" / "python"
    purelib = run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        cwd=path,
        env=clean_env(),
    ).strip()
    (Path(purelib) / "_outer_site.pth").write_text("\n".join(outer_site_dirs()) + "\n")
    return python


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel built from a clean copy of the tree."""
    base = tmp_path_factory.mktemp("dists")
    tree = copy_tree(base / "tree")
    assert not (tree / "build").exists() and not (tree / "python/agent_state/sql").exists()
    out = base / "dist"
    env = clean_env()
    if importable("build"):
        run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, tree], base, env)
    else:  # what build does, with setuptools and pip
        run([sys.executable, "setup.py", "-q", "sdist", "--dist-dir", out], tree, env)
        sdist = next(out.glob("*.tar.gz"))
        pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        run([*pip, "--wheel-dir", out, sdist], base, env)
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"tree": tree, "sdist": sdist, "wheel": wheel}


@pytest.fixture
def empty_db(admin_dsn: str) -> Iterator[str]:
    """A new empty database (template0), dropped afterwards."""
    name = f"pkg_{secrets.token_hex(4)}"
    admin = with_dbname(admin_dsn, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name)))
    try:
        yield with_dbname(admin_dsn, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def test_the_dists_carry_the_sources_and_the_built_scripts(dists: dict[str, Path]) -> None:
    tree = dists["tree"]
    version = build_sql.default_version(tree)
    updates = [p.name for p in (tree / "sql" / "updates").glob("*.sql")]
    assert updates
    assert f"-{version}" in dists["sdist"].name and f"-{version}-" in dists["wheel"].name
    with tarfile.open(dists["sdist"]) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        names = {name.removeprefix(f"{top}/") for name in sdist.getnames()}
    assert {"agent_state.control", "setup.py", "scripts/build_sql.py"} <= names
    assert set(build_sql.sources(tree)) <= names
    assert {f"sql/updates/{name}" for name in updates} <= names
    # Built by the wheel's build step from the sources, never carried over.
    assert not [name for name in names if name.startswith("python/agent_state/sql/")]

    with zipfile.ZipFile(dists["wheel"]) as wheel:
        shipped = {n for n in wheel.namelist() if n.startswith("agent_state/sql/")}
        bundle = wheel.read("agent_state/sql/agent_state.sql")
    assert shipped == {f"agent_state/sql/{name}" for name in ["agent_state.sql", *updates]}
    assert bundle == build_sql.bundle(tree)
    assert bundle.startswith(f"-- agent_state {version}: install script.".encode())


@pytest.mark.skipif(not importable("twine"), reason="twine is not installed")
def test_twine_check_passes(dists: dict[str, Path]) -> None:
    run(
        [sys.executable, "-m", "twine", "check", "--strict", dists["sdist"], dists["wheel"]],
        dists["sdist"].parent,
        clean_env(),
    )


@pytest.mark.parametrize("route", ["checkout", "sdist", "wheel", "editable"])
def test_each_pip_route_installs_and_runs_outside_the_checkout(
    route: str, dists: dict[str, Path], empty_db: str, tmp_path: Path
) -> None:
    env = clean_env()
    python = make_venv(tmp_path / "venv")
    # Nothing fetched: no dependencies, no build isolation, no index.
    pip: list[str | Path] = [python, "-m", "pip", "install", "-q", "--no-deps"]
    pip += ["--no-build-isolation", "--no-index"]
    package_home = tmp_path / "venv"
    if route in ("checkout", "editable"):
        tree = copy_tree(tmp_path / "checkout")
        if route == "checkout":
            run([*pip, tree], tmp_path, env)
            assert not (tree / "python/agent_state/sql").exists()
        else:
            run([*pip, "--editable", tree], tmp_path, env)
            assert (tree / "python/agent_state/sql/agent_state.sql").is_file()
            package_home = tree
    else:
        run([*pip, dists[route]], tmp_path, env)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cli = python.parent / "agent-state"
    version = build_sql.default_version(dists["tree"])
    out = run([cli, "install", "--dsn", empty_db], elsewhere, env)
    assert version in out, out
    with psycopg.connect(empty_db) as conn:
        # Installed as plain SQL from the package, not from the server's extension files.
        row = conn.execute(
            "SELECT agent_state.version(),"
            " (SELECT count(*) FROM pg_catalog.pg_extension WHERE extname = 'agent_state')"
        ).fetchone()
    assert row == (version, 0)
    out = run([python, "-c", SMOKE, empty_db, package_home], elsewhere, env)
    assert "smoke ok" in out
    # The command-line view of the same agents, where the CLI has it.
    has_agents = subprocess.run(
        [cli, "agents", "--help"], cwd=elsewhere, env=env, capture_output=True, check=False
    )
    if has_agents.returncode == 0:
        assert "pkg-smoke" in run([cli, "agents", "--dsn", empty_db], elsewhere, env)
