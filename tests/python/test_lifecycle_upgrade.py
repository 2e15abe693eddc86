"""Upgrades from every earlier release equal a fresh install (SPEC section 2).

For each chain of releases kept in sql/releases/ (0.1.0 -> 0.3.0, 0.1.0 -> 0.2.0 ->
0.3.0, 0.2.0 -> 0.3.0, ...) and both install modes: install the first release and
write a realistic state with its API; at each later stop of the chain, update to
that release and write what its API adds; then update to this version
(ALTER EXTENSION ... UPDATE, or agent_state.install() for a plain install), compare
the catalog with a fresh install of this version object by object and every row
with what was there before.
"""

from __future__ import annotations

import itertools
from typing import Any

import psycopg
import psycopg.sql
import pytest

import agent_state
import lifecycle as lc
from agent_state import _install

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


def chains() -> list[tuple[str, ...]]:
    """Every chain of stops from an earlier release: its first release, then any
    subset of the later releases, in order."""
    out: list[tuple[str, ...]] = []
    for i, first in enumerate(RELEASES):
        later = RELEASES[i + 1 :]
        for n in range(len(later) + 1):
            out.extend((first, *stops) for stops in itertools.combinations(later, n))
    return out


def update_to(dsn: str, mode: str, version: str) -> None:
    """One stop of a chain: update to the released ``version`` by its frozen steps."""
    if mode == "extension":
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                psycopg.sql.SQL("ALTER EXTENSION agent_state UPDATE TO {}").format(
                    psycopg.sql.Literal(version)
                )
            )
        return
    installed = installed_version(dsn)[1]
    with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
        for name in _install.upgrade_path(installed, version):
            conn.execute(_install._plain((lc.UPDATES / name).read_text()))


def upgrade(dsn: str, mode: str) -> str:
    if mode == "extension":
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("ALTER EXTENSION agent_state UPDATE")
        return installed_version(dsn)[1]
    return agent_state.install(dsn)


# What the upgrades drop on purpose (to 0.2.0: the global sequences, which let one
# perspective count another's activity, and the message column one of them filled;
# to 0.3.0: the profile columns of agents, which became profile_revisions).
DROPPED_COLUMNS = {
    "agent_state.messages": {"seq"},
    "agent_state.agents": {"display_name", "settings"},
}
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


# The hash chains' stamps (0.3.0, sql/chains.sql): the upgrade adds them to every
# record; verify() then finds each one genuine (and would report one missing).
CHAIN_COLUMNS = {
    "chain_at",
    "chain_xact",
    "chain_digest",
    "chain_close_at",
    "chain_close_xact",
    "chain_close_digest",
    "chain_removed",
}


def without_chain_stamps(rows: dict[str, list[Any]]) -> dict[str, list[Any]]:
    return {
        table: [
            {k: v for k, v in row.items() if k not in CHAIN_COLUMNS}
            if isinstance(row, dict)
            else row
            for row in items
        ]
        for table, items in rows.items()
    }


def profile_as_revision_one(agents: list[Any]) -> list[Any]:
    """What 0.3.0's upgrade writes for the agents of an earlier release."""
    return [
        {
            "runtime_agent_id": a["runtime_agent_id"],
            "revision": 1,
            "display_name": a["display_name"],
            "settings": a["settings"],
            "created_at": a["created_at"],
            "created_by": a["created_by"],
        }
        for a in agents
    ]


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


def test_every_chain_is_tested() -> None:
    assert len(RELEASES) >= 2, "0.1.0 and 0.2.0 are kept in sql/releases/"
    assert ("0.1.0",) in chains() and ("0.1.0", "0.2.0") in chains() and ("0.2.0",) in chains()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chain", chains(), ids="->".join)
def test_upgrade_equals_a_fresh_install(admin_dsn: str, mode: str, chain: tuple[str, ...]) -> None:
    release = chain[0]
    skip_without_extension_files(admin_dsn, mode, release)
    lc.ensure_host_role(admin_dsn)
    with (
        lc.scratch_db(admin_dsn, f"up_{mode}") as old,
        lc.scratch_db(admin_dsn, f"fresh_{mode}") as fresh,
    ):
        lc.install(old, mode, release)
        assert installed_version(old)[1] == release
        lc.write_state(old, api=release)
        for previous, stop in itertools.pairwise(chain):
            update_to(old, mode, stop)
            assert installed_version(old) == ((stop if mode == "extension" else None), stop)
            lc.write_state(old, api=stop, since=previous)
        old_agents = rows_with_role_names(old)["agent_state.agents"]
        before = without_dropped(rows_with_role_names(old))
        assert upgrade(old, mode) == lc.control_version()
        lc.install(fresh, mode)
        diff = lc.catalog_diff(lc.catalog(old), lc.catalog(fresh))
        assert diff == [], "the upgrade script misses (functions: add '-- include:' lines):\n" + (
            "\n".join(sorted(lc.function_files(diff))) + "\n" + "\n".join(diff)
        )
        stamped = rows_with_role_names(old)
        assert all(
            row["chain_digest"] is not None
            for items in stamped.values()
            for row in items
            if isinstance(row, dict) and "chain_digest" in row
        ), "the upgrade stamps every existing record"
        after = without_chain_stamps(stamped)
        added = set(after) - set(before)
        # profile_revisions (0.3.0) starts with each agent's profile as revision 1.
        if "agent_state.profile_revisions" in added:
            assert after["agent_state.profile_revisions"] == profile_as_revision_one(old_agents)
            added.discard("agent_state.profile_revisions")
        assert all(after[t] == [] for t in added), "tables the upgrade adds start empty"
        assert {t: after[t] for t in before} == before
        assert lc.verify(old) == []
        lc.still_works(old)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("release", RELEASES)
def test_a_failed_upgrade_leaves_the_old_release_working(
    admin_dsn: str, mode: str, release: str
) -> None:
    """A refusal late in the script makes the upgrade fail part-way: nothing of it
    stays."""
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
            # Refuses the grants of the privileges pass, the last statements of
            # every upgrade script: all that came before them must go too.
            conn.execute(
                "CREATE FUNCTION public.refuse_grants() RETURNS event_trigger"
                " LANGUAGE plpgsql AS $$ BEGIN"
                " RAISE EXCEPTION 'grants refused while testing'; END $$"
            )
            conn.execute(
                "CREATE EVENT TRIGGER refuse_grants ON ddl_command_end"
                " WHEN TAG IN ('GRANT') EXECUTE FUNCTION public.refuse_grants()"
            )
        with pytest.raises((psycopg.Error, agent_state.Error), match="grants refused"):
            upgrade(old, mode)
        ext, version = installed_version(old)
        assert version == release
        assert ext == (release if mode == "extension" else None)
        with psycopg.connect(old, autocommit=True) as conn:
            conn.execute("DROP EVENT TRIGGER refuse_grants")
            conn.execute("DROP FUNCTION public.refuse_grants()")
        assert lc.catalog_diff(lc.catalog(old), lc.catalog(ref)) == []
        assert lc.table_rows(old) == before
