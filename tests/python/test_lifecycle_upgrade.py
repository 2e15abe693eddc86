"""Upgrades from every earlier release equal a fresh install (SPEC section 2).

For each install script kept in sql/releases/ and both install modes: install that
release, write a realistic state with its API, upgrade (ALTER EXTENSION ... UPDATE,
or agent_state.install() for a plain install), then compare the catalog with a fresh
install of this version object by object and every row with what was there before.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

import agent_state
import lifecycle as lc

RELEASES = lc.released_versions()
MODES = ("extension", "plain")


def test_an_earlier_release_is_kept() -> None:
    assert RELEASES, "sql/releases/ must keep the install script of every earlier release"
    assert "0.1.0" in RELEASES


def installed_version(dsn: str) -> tuple[str | None, str]:
    with psycopg.connect(dsn) as conn:
        ext = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'agent_state'"
        ).fetchone()
        row = conn.execute("SELECT agent_state.version()").fetchone()
    assert row is not None
    return (None if ext is None else str(ext[0])), str(row[0])


def upgrade(dsn: str, mode: str) -> str:
    if mode == "extension":
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("ALTER EXTENSION agent_state UPDATE")
        return installed_version(dsn)[1]
    return agent_state.install(dsn)


# What the upgrades drop on purpose (to 0.2.0: the global sequences, which let one
# perspective count another's activity, and the message column one of them filled).
DROPPED_COLUMNS = {"agent_state.messages": {"seq"}}
DROPPED_SEQUENCES = {
    "agent_state.messages_seq_seq",
    "agent_state.persona_activations_activation_id_seq",
    "agent_state.memory_imports_import_id_seq",
    "agent_state.memory_shares_share_id_seq",
}


def without_dropped(rows: dict[str, list[Any]]) -> dict[str, list[Any]]:
    out = {}
    for table, items in rows.items():
        if table in DROPPED_SEQUENCES:
            continue
        gone = DROPPED_COLUMNS.get(table, set())
        out[table] = [
            {k: v for k, v in row.items() if k not in gone} if isinstance(row, dict) else row
            for row in items
        ]
    return out


def rows_with_role_names(dsn: str) -> dict[str, list[Any]]:
    """table_rows, with agent_hosts.host as a role name (0.1.0 stored the OID)."""
    rows = lc.table_rows(dsn)
    with psycopg.connect(dsn) as conn:
        names = {str(oid): name for oid, name in conn.execute("SELECT oid, rolname FROM pg_roles")}
    for row in rows["agent_state.agent_hosts"]:
        row["host"] = names.get(str(row["host"]), row["host"])
    return rows


def skip_without_extension_files(dsn: str, mode: str, version: str) -> None:
    if mode == "extension" and not (
        lc.extension_available(dsn, version) and lc.extension_available(dsn, lc.control_version())
    ):
        pytest.skip(f"agent_state {version} extension files are not installed on this server")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("release", RELEASES)
def test_upgrade_equals_a_fresh_install(admin_dsn: str, mode: str, release: str) -> None:
    skip_without_extension_files(admin_dsn, mode, release)
    lc.ensure_host_role(admin_dsn)
    with (
        lc.scratch_db(admin_dsn, f"up_{mode}") as old,
        lc.scratch_db(admin_dsn, f"fresh_{mode}") as fresh,
    ):
        lc.install(old, mode, release)
        assert installed_version(old)[1] == release
        lc.write_state(old, api=release)
        before = without_dropped(rows_with_role_names(old))
        assert upgrade(old, mode) == lc.control_version()
        lc.install(fresh, mode)
        diff = lc.catalog_diff(lc.catalog(old), lc.catalog(fresh))
        assert diff == [], "the upgrade script misses (functions: add '-- include:' lines):\n" + (
            "\n".join(sorted(lc.function_files(diff))) + "\n" + "\n".join(diff)
        )
        after = rows_with_role_names(old)
        added = set(after) - set(before)
        assert all(after[t] == [] for t in added), "tables the upgrade adds start empty"
        assert {t: after[t] for t in before} == before
        assert lc.verify(old) == []
        lc.still_works(old)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("release", RELEASES)
def test_a_failed_upgrade_leaves_the_old_release_working(
    admin_dsn: str, mode: str, release: str
) -> None:
    """An object in the way makes the upgrade fail part-way: nothing of it stays."""
    skip_without_extension_files(admin_dsn, mode, release)
    lc.ensure_host_role(admin_dsn)
    with (
        lc.scratch_db(admin_dsn, f"upfail_{mode}") as old,
        lc.scratch_db(admin_dsn, f"upfail_ref_{mode}") as ref,
    ):
        lc.install(old, mode, release)
        lc.install(ref, mode, release)
        lc.write_state(old, api=release)
        before = lc.table_rows(old)
        with psycopg.connect(old, autocommit=True) as conn:
            # A trigger of the name the upgrade creates late in its script.
            conn.execute(
                "CREATE TRIGGER memory_entries_insert_check AFTER INSERT"
                " ON agent_state.memory_entries FOR EACH ROW"
                " EXECUTE FUNCTION agent_state._check_memory_entry()"
            )
        with pytest.raises((psycopg.Error, agent_state.Error), match="already exists"):
            upgrade(old, mode)
        ext, version = installed_version(old)
        assert version == release
        assert ext == (release if mode == "extension" else None)
        with psycopg.connect(old, autocommit=True) as conn:
            conn.execute("DROP TRIGGER memory_entries_insert_check ON agent_state.memory_entries")
        assert lc.catalog_diff(lc.catalog(old), lc.catalog(ref)) == []
        assert lc.table_rows(old) == before
