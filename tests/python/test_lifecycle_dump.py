"""pg_dump and pg_restore keep every agent_state row (SPEC section 2, Lifecycle).

A realistic state (tests/lifecycle/realistic_state.sql) is dumped in each format
and restored into an empty database, for both install modes; every row of every
table must come back unchanged (ids, revision numbers, stamps, sequences), the
restored database must pass agent_state.verify() and keep working.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

import lifecycle as lc

FORMATS = ("plain", "custom", "directory")


@pytest.fixture(scope="module")
def bindir(admin_dsn: str) -> Path:
    return lc.server_bindir(admin_dsn)


@pytest.fixture(scope="module", params=("extension", "plain"))
def source(request: pytest.FixtureRequest, admin_dsn: str) -> Iterator[tuple[str, str]]:
    """(install mode, DSN) of a database holding the realistic state."""
    mode = str(request.param)
    if mode == "extension" and not lc.extension_available(admin_dsn, lc.control_version()):
        pytest.skip("agent_state extension files are not installed on this server")
    lc.ensure_host_role(admin_dsn)
    with lc.scratch_db(admin_dsn, f"dump_src_{mode}") as dsn:
        lc.install(dsn, mode)
        lc.write_state(dsn)
        yield mode, dsn


def dump(bindir: Path, dsn: str, fmt: str, target: Path, *extra: str) -> None:
    flag = {"plain": "p", "custom": "c", "directory": "d"}[fmt]
    lc.run_tool(bindir, "pg_dump", ["-F", flag, "-f", str(target), *extra], dsn)


def restore(bindir: Path, dsn: str, fmt: str, path: Path, *extra: str, check: bool = True) -> str:
    """Restore as a DBA would, all or nothing; returns the tool's output."""
    if fmt == "plain":
        proc = lc.run_tool(
            bindir, "psql",
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "--single-transaction", "-f", str(path)],
            dsn, check=check,
        )  # fmt: skip
    else:
        proc = lc.run_tool(
            bindir, "pg_restore",
            ["--exit-on-error", "--single-transaction", "-d", lc.conninfo_dbname(dsn), *extra,
             str(path)],
            dsn, check=check,
        )  # fmt: skip
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_every_row(
    source: tuple[str, str], bindir: Path, admin_dsn: str, tmp_path: Path, fmt: str
) -> None:
    mode, src = source
    before = lc.table_rows(src)
    assert all(before[t] for t in before if not t.endswith("_seq")), (
        "the realistic state must put rows in every table: "
        + ", ".join(t for t in before if not before[t])
    )
    path = tmp_path / f"dump.{fmt}"
    dump(bindir, src, fmt, path)
    with lc.scratch_db(admin_dsn, f"dump_dst_{mode}_{fmt}") as dst:
        restore(bindir, dst, fmt, path)
        assert lc.table_rows(dst) == before
        assert lc.catalog_diff(lc.catalog(src), lc.catalog(dst)) == []
        assert lc.verify(dst) == []
        lc.still_works(dst)


def test_round_trip_without_single_transaction(
    source: tuple[str, str], bindir: Path, admin_dsn: str, tmp_path: Path
) -> None:
    """pg_restore's default, one transaction per table: load order is pg_dump's."""
    mode, src = source
    before = lc.table_rows(src)
    path = tmp_path / "dump.custom"
    dump(bindir, src, "custom", path)
    with lc.scratch_db(admin_dsn, f"dump_dst_{mode}_each") as dst:
        lc.run_tool(
            bindir, "pg_restore", ["--exit-on-error", "-d", lc.conninfo_dbname(dst), str(path)], dst
        )
        assert lc.table_rows(dst) == before
        assert lc.verify(dst) == []


def test_data_only_restore_into_a_fresh_install(
    source: tuple[str, str], bindir: Path, admin_dsn: str, tmp_path: Path
) -> None:
    """pg_dump -a restored into a database where agent_state was just installed."""
    mode, src = source
    before = lc.table_rows(src)
    path = tmp_path / "data.custom"
    dump(bindir, src, "custom", path, "--data-only", "--schema=agent_state")
    with lc.scratch_db(admin_dsn, f"dump_data_{mode}") as dst:
        lc.install(dst, mode)
        restore(bindir, dst, "custom", path, "--data-only")
        assert lc.table_rows(dst) == before
        assert lc.verify(dst) == []
        lc.still_works(dst)


def test_a_partial_dump_is_caught(
    source: tuple[str, str], bindir: Path, admin_dsn: str, tmp_path: Path
) -> None:
    """pg_dump -t of some tables is not a backup of agent_state: restored next to a
    fresh install, the foreign keys refuse it or verify() reports what is missing."""
    mode, src = source
    path = tmp_path / "partial.custom"
    dump(bindir, src, "custom", path, "--data-only", "-t", "agent_state.agents",
         "-t", "agent_state.persona_revisions")  # fmt: skip
    with lc.scratch_db(admin_dsn, f"dump_partial_{mode}") as dst:
        lc.install(dst, mode)
        restore(bindir, dst, "custom", path, "--data-only")
        problems = lc.verify(dst)
        assert {p[0] for p in problems} == {"persona"}, problems
        path2 = tmp_path / "partial2.custom"
        dump(bindir, src, "custom", path2, "--data-only", "-t", "agent_state.memory_entries")
        out = restore(bindir, dst, "custom", path2, "--data-only", check=False)
        assert "violates foreign key constraint" in out


def test_dump_by_the_owner_of_a_plain_install(
    admin_dsn: str, bindir: Path, tmp_path: Path, make_role: object
) -> None:
    """Managed PostgreSQL: a non-superuser role owns a plain install and backs it up.
    FORCE ROW LEVEL SECURITY applies to the owner, so a plain pg_dump refuses
    (loudly); with --enable-row-security the owner's policy shows every row."""
    owner = make_role("agent_state_operator")  # type: ignore[operator]
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'ALTER ROLE "{owner.name}" CREATEROLE')
    lc.ensure_host_role(admin_dsn)
    with lc.scratch_db(admin_dsn, "dump_owner", owner=owner.name) as src_admin:
        src = lc.with_role(src_admin, owner.name)
        lc.install(src, "plain")
        lc.write_state(src)
        before = lc.table_rows(src_admin)
        refused = lc.run_tool(bindir, "pg_dump", ["-f", str(tmp_path / "x.sql")], src, check=False)
        assert refused.returncode != 0
        assert "row-level security" in refused.stderr
        path = tmp_path / "owner.custom"
        dump(bindir, src, "custom", path, "--enable-row-security")
        with lc.scratch_db(admin_dsn, "dump_owner_dst", owner=owner.name) as dst_admin:
            restore(bindir, lc.with_role(dst_admin, owner.name), "custom", path)
            assert lc.table_rows(dst_admin) == before
            assert lc.verify(dst_admin) == []
