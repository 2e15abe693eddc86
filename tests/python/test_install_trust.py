"""Installing into a schema or beside roles that someone else prepared (docs/security.md,
"The schema" and "Pre-created roles"), in both install modes.

Each test reproduces an escalation: another role's code run as the installing role
(a helper overload in a schema others may write to, a lookalike version(), a
lookalike schema after a rename) or an operator made by squatting the group roles.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

import agent_state
import lifecycle as lc
from conftest import with_dbname

MODES = ("extension", "plain")
EVIL = "t_trust_evil"


@pytest.fixture
def evil(admin_dsn: str) -> Iterator[str]:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{EVIL}') "
            f"THEN CREATE ROLE {EVIL} LOGIN; END IF; END $$"
        )
    yield EVIL


def skip_without_extension(dsn: str, mode: str) -> None:
    if mode == "extension" and not lc.extension_available(dsn, lc.control_version()):
        pytest.skip("agent_state extension files are not installed on this server")


def install_fails(dsn: str, mode: str, *, match: str) -> None:
    with pytest.raises((psycopg.Error, agent_state.Error)) as info:
        if mode == "extension":
            lc.install(dsn, mode)
        else:
            agent_state.install(dsn)
    err = info.value
    sqlstate = err.sqlstate if isinstance(err, (psycopg.Error, agent_state.Error)) else None
    assert sqlstate == "42501", err
    assert match in str(err)


def nothing_installed(dsn: str) -> None:
    with psycopg.connect(dsn) as conn:
        ext = conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'agent_state'")
        assert ext.fetchone() == (0,)
        ours = conn.execute(
            "SELECT count(*) FROM pg_proc WHERE pronamespace = to_regnamespace('agent_state')"
            " AND proowner <> (SELECT oid FROM pg_roles WHERE rolname = %s)",
            [EVIL],
        )
        assert ours.fetchone() == (0,), "no function of the install is left"


def as_role(dsn: str, role: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(dsn, autocommit=True)
    conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
    return conn


OVERLOAD = """
CREATE FUNCTION agent_state._need(v regrole, name text) RETURNS regrole
LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        EXECUTE 'ALTER ROLE t_trust_evil SUPERUSER';
    END IF;
    RETURN v;
END $$
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_schema_another_role_may_create_in_is_refused(
    admin_dsn: str, evil: str, mode: str
) -> None:
    skip_without_extension(admin_dsn, mode)
    with lc.scratch_db(admin_dsn, "trust_create") as db:
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA agent_state")
            conn.execute(f"GRANT USAGE, CREATE ON SCHEMA agent_state TO {evil}")
        with as_role(db, evil) as conn:
            conn.execute(OVERLOAD)
        install_fails(db, mode, match=f"{evil} holds CREATE")
        nothing_installed(db)
        # Taking CREATE back leaves the overload: still refused.
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(f"REVOKE CREATE ON SCHEMA agent_state FROM {evil}")
        install_fails(db, mode, match="holds an object the install did not create")
        nothing_installed(db)
        with psycopg.connect(db) as conn:
            row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [evil])
            assert row.fetchone() == (False,)


@pytest.mark.parametrize("mode", MODES)
def test_an_upgrade_into_a_schema_another_role_may_create_in_is_refused(
    admin_dsn: str, evil: str, mode: str
) -> None:
    """0.2.0 had no event trigger: CREATE granted on its schema afterwards, and an
    overload planted there, must stop the upgrade before it runs anything."""
    skip_without_extension(admin_dsn, mode)
    if mode == "extension" and not lc.extension_available(admin_dsn, "0.2.0"):
        pytest.skip("agent_state 0.2.0 extension files are not installed on this server")
    with lc.scratch_db(admin_dsn, "trust_upgrade") as db:
        lc.install(db, mode, "0.2.0")
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(f"GRANT USAGE, CREATE ON SCHEMA agent_state TO {evil}")
        with as_role(db, evil) as conn:
            conn.execute(OVERLOAD)
        with pytest.raises((psycopg.Error, agent_state.Error)) as info:
            if mode == "extension":
                with psycopg.connect(db, autocommit=True) as conn:
                    conn.execute("ALTER EXTENSION agent_state UPDATE")
            else:
                agent_state.install(db)
        assert getattr(info.value, "sqlstate", None) == "42501", info.value
        with psycopg.connect(db) as conn:
            assert conn.execute("SELECT agent_state.version()").fetchone() == ("0.2.0",)
            row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [evil])
            assert row.fetchone() == (False,)


@pytest.mark.parametrize("mode", MODES)
def test_default_privileges_in_the_schema_are_refused(admin_dsn: str, evil: str, mode: str) -> None:
    skip_without_extension(admin_dsn, mode)
    with lc.scratch_db(admin_dsn, "trust_defacl") as db:
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA agent_state")
            conn.execute(
                "ALTER DEFAULT PRIVILEGES IN SCHEMA agent_state"
                f" GRANT EXECUTE ON FUNCTIONS TO {evil}"
            )
        install_fails(db, mode, match="default privileges")
        nothing_installed(db)


@pytest.mark.parametrize("mode", MODES)
def test_default_privileges_of_the_installer_grant_no_function(
    admin_dsn: str, evil: str, mode: str
) -> None:
    """ALTER DEFAULT PRIVILEGES FOR ROLE <installer> (no schema): the install takes
    every such grant back."""
    skip_without_extension(admin_dsn, mode)
    with lc.scratch_db(admin_dsn, "trust_global") as db:
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(f"ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO {evil}")
        lc.install(db, mode)
        with psycopg.connect(db) as conn:
            granted = conn.execute(
                "SELECT count(*) FROM pg_proc WHERE pronamespace = 'agent_state'::regnamespace"
                " AND has_function_privilege(%s, oid, 'EXECUTE')",
                [evil],
            ).fetchone()
            assert granted == (0,)


@pytest.mark.parametrize("mode", MODES)
def test_after_the_install_the_schema_stays_closed(admin_dsn: str, evil: str, mode: str) -> None:
    """The event trigger: no rename (and so no lookalike schema of that name), no new
    owner, no CREATE for another role, no default privileges."""
    skip_without_extension(admin_dsn, mode)
    with lc.scratch_db(admin_dsn, "trust_after") as db:
        lc.install(db, mode)
        refused = {
            "rename": "ALTER SCHEMA agent_state RENAME TO agent_state_old",
            "owner": f"ALTER SCHEMA agent_state OWNER TO {evil}",
            "create": f"GRANT CREATE ON SCHEMA agent_state TO {evil}",
            "grant option": f"GRANT USAGE ON SCHEMA agent_state TO {evil} WITH GRANT OPTION",
            "default privileges": "ALTER DEFAULT PRIVILEGES IN SCHEMA agent_state"
            f" GRANT EXECUTE ON FUNCTIONS TO {evil}",
        }
        with psycopg.connect(db, autocommit=True) as conn:
            for what, statement in refused.items():
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
                row = conn.execute(
                    "SELECT nspname, nspowner::regrole::text, nspacl::text FROM pg_namespace"
                    " WHERE oid = (SELECT pronamespace FROM pg_proc"
                    " WHERE oid = 'agent_state._bind(uuid, boolean)'::regprocedure)"
                ).fetchone()
                assert row is not None and row[0] == "agent_state", what
                assert evil not in (row[2] or ""), what
            # USAGE alone changes nothing that matters.
            conn.execute(f"GRANT USAGE ON SCHEMA agent_state TO {evil}")
            conn.execute(f"REVOKE USAGE ON SCHEMA agent_state FROM {evil}")
            assert conn.execute("SELECT agent_state.version()").fetchone() == (
                lc.control_version(),
            )


def test_install_runs_nothing_in_a_squatted_schema(admin_dsn: str, evil: str) -> None:
    """agent_state.install() reads the catalog before it executes anything there."""
    with lc.scratch_db(admin_dsn, "trust_squat") as db:
        with psycopg.connect(db, autocommit=True) as conn:
            dbname = conn.execute("SELECT current_database()").fetchone()
            assert dbname is not None
            conn.execute(
                sql.SQL("GRANT CREATE ON DATABASE {} TO {}").format(
                    sql.Identifier(str(dbname[0])), sql.Identifier(evil)
                )
            )
        with as_role(db, evil) as conn:
            conn.execute("CREATE SCHEMA agent_state")
            conn.execute(
                "CREATE FUNCTION agent_state.version() RETURNS text LANGUAGE plpgsql AS $$"
                " BEGIN CREATE TABLE public.lookalike_ran (who name DEFAULT current_user);"
                " RETURN 'squatted'; END $$"
            )
            conn.execute("GRANT USAGE ON SCHEMA agent_state TO PUBLIC")
            conn.execute("GRANT CREATE ON SCHEMA public TO PUBLIC")
        with pytest.raises(agent_state.PermissionDenied) as info:
            agent_state.install(db)
        assert info.value.sqlstate == "42501"
        assert f"owned by {evil}" in str(info.value)
        with psycopg.connect(db) as conn:
            ran = conn.execute("SELECT to_regclass('public.lookalike_ran')").fetchone()
            assert ran == (None,), "the lookalike version() was executed"


# ------------------------------------------------------------ pre-created roles


@pytest.fixture
def cluster(admin_dsn: str) -> Iterator[str]:
    """A cluster of its own: the group roles are cluster-wide."""
    bindir = lc.server_bindir(admin_dsn)
    with lc.temporary_cluster(bindir, fsync=False) as own:
        dsn = own.dsn()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE trust")
        yield with_dbname(dsn, "trust")


def server_major(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SHOW server_version_num").fetchone()
    assert row is not None
    return int(row[0]) // 10000


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_group_roles_made_by_a_createrole_squatter_are_refused(cluster: str, mode: str) -> None:
    skip_without_extension(cluster, mode)
    with psycopg.connect(cluster, autocommit=True) as conn:
        conn.execute("CREATE ROLE squatter LOGIN CREATEROLE")
    with as_role(cluster, "squatter") as conn:
        conn.execute("CREATE ROLE agent_state_operator NOLOGIN")
        conn.execute("CREATE ROLE agent_state_runtime NOLOGIN")
        if server_major(cluster) < 16:
            # Before 16 CREATEROLE administers every role anyway; what is left to
            # check is a membership it granted.
            conn.execute("GRANT agent_state_operator TO squatter")
    install_fails(cluster, mode, match="administered by squatter")
    nothing_installed(cluster)
    # A superuser takes the squatter's rights away: then the install goes ahead.
    with psycopg.connect(cluster, autocommit=True) as conn:
        for role in ("agent_state_operator", "agent_state_runtime"):
            conn.execute(f"REVOKE {role} FROM squatter CASCADE")
            if server_major(cluster) >= 16:
                conn.execute(f"ALTER ROLE {role} NOLOGIN")  # a no-op, for symmetry
    if server_major(cluster) >= 16:
        # The ADMIN-only membership of the creator goes with the REVOKE above.
        with psycopg.connect(cluster) as conn:
            left = conn.execute(
                "SELECT count(*) FROM pg_auth_members WHERE member = 'squatter'::regrole"
            ).fetchone()
            assert left == (0,)
    if mode == "extension":
        lc.install(cluster, mode)
        with psycopg.connect(cluster) as conn:
            assert conn.execute("SELECT agent_state.version()").fetchone() == (
                lc.control_version(),
            )
    else:
        assert agent_state.install(cluster) == lc.control_version()


@pytest.mark.slow
def test_group_roles_that_can_log_in_are_refused(cluster: str) -> None:
    with psycopg.connect(cluster, autocommit=True) as conn:
        conn.execute("CREATE ROLE agent_state_operator LOGIN PASSWORD 'known'")
    install_fails(cluster, "plain", match="exists with LOGIN")
    nothing_installed(cluster)
