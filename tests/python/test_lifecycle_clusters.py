"""Lifecycle tests that need clusters of their own: a hot standby built with
pg_basebackup -R, and a restore into a new cluster where the roles are missing.

SPEC section 2: the read verbs work inside READ ONLY transactions and on a hot
standby, and a write verb there fails with PostgreSQL's own 25006.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

import lifecycle as lc
from conftest import with_dbname

pytestmark = pytest.mark.slow

READ_VERBS = {
    "recall": "SELECT * FROM agent_state.recall(agent => %(agent)s, query => 'peanuts',"
    " conversation => %(conv)s)",
    "context_for": "SELECT * FROM agent_state.context_for(agent => %(agent)s,"
    " conversation => %(conv)s)",
    "memory_history": "SELECT * FROM agent_state.memory_history(agent => %(agent)s,"
    " entry => %(entry)s)",
    "active_persona": "SELECT * FROM agent_state.active_persona(agent => %(agent)s)",
    "persona_history": "SELECT * FROM agent_state.persona_history(agent => %(agent)s)",
    "recover_run": "SELECT agent_state.recover_run(agent => %(agent)s, run => %(run)s)",
    "snapshot_sources": "SELECT * FROM agent_state.snapshot_sources(agent => %(agent)s,"
    " snapshot => %(snapshot)s)",
    "authorize_tool": "SELECT * FROM agent_state.authorize_tool(agent => %(agent)s,"
    " tool => 'search')",
    "tool_grant_history": "SELECT * FROM agent_state.tool_grant_history(agent => %(agent)s,"
    " tool => 'search')",
    "export_markdown": "SELECT agent_state.export_markdown(agent => %(agent)s)",
    "export_markdown as of": "SELECT agent_state.export_markdown(agent => %(agent)s,"
    " as_of => now() - interval '1 second')",
    "tool_grants": "SELECT * FROM agent_state.tool_grants(agent => %(agent)s)",
    "profile_history": "SELECT * FROM agent_state.profile_history(agent => %(agent)s)",
    "timeline": "SELECT * FROM agent_state.timeline(agent => %(agent)s)",
    "list_agents": "SELECT * FROM agent_state.list_agents()",
    "find_agent": "SELECT agent_state.find_agent(handle => 'lifecycle')",
    "list_conversations": "SELECT * FROM agent_state.list_conversations(agent => %(agent)s)",
    "list_runs": "SELECT * FROM agent_state.list_runs(agent => %(agent)s)",
    "list_memories": "SELECT * FROM agent_state.list_memories(agent => %(agent)s,"
    " include_forgotten => true)",
    "session_get_items": "SELECT * FROM agent_state.session_get_items(%(agent)s, %(conv)s)",
    "session_item_history": "SELECT * FROM agent_state.session_item_history(%(agent)s, %(conv)s)",
    "version": "SELECT agent_state.version()",
    "chain_head": "SELECT * FROM agent_state.chain_head(agent => %(agent)s)",
    # Not a read verb of SPEC, but a lookup of what exists should not need to write.
    "open_conversation of an existing one": "SELECT agent_state.open_conversation("
    "agent => %(agent)s, connector => 'slack', external_ref => 'C1')",
}

# Reads for operators only: checked as the superuser.
OPERATOR_READS = {
    "export_agent": "SELECT agent_state.export_agent(agent => %(agent)s)",
    "verify with a head": "SELECT * FROM agent_state.verify(agent => %(agent)s, expected_head =>"
    " (SELECT h.digest FROM agent_state.chain_head(%(agent)s) AS h))",
    # A router's shard_check reads these from every shard, standbys included.
    "shard_inventory": "SELECT agent_state.shard_inventory()",
    "move_step state": "SELECT agent_state.move_step(agent => %(agent)s, step => 'state')",
}

WRITE_VERBS = {
    "remember": "SELECT * FROM agent_state.remember(agent => %(agent)s, body => 'x',"
    " source_message => %(message)s)",
    "amend": "SELECT agent_state.amend(agent => %(agent)s, entry => %(entry)s, body => 'x',"
    " expected_revision => 2)",
    "record_message": "SELECT agent_state.record_message(agent => %(agent)s,"
    " conversation => %(conv)s, author => %(author)s, body => 'x',"
    " audience => ARRAY[%(author)s]::uuid[])",
    "start_run": "SELECT agent_state.start_run(agent => %(agent)s)",
    "checkpoint": "SELECT agent_state.checkpoint(agent => %(agent)s, run => %(open_run)s,"
    " frontier => '{}')",
    "resolve_actor": "SELECT agent_state.resolve_actor(agent => %(agent)s, connector => 'slack',"
    " external_id => 'U-new')",
    "open_conversation": "SELECT agent_state.open_conversation(agent => %(agent)s,"
    " connector => 'slack', external_ref => 'C-new')",
}


def ids(dsn: str) -> dict[str, Any]:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            """
            SELECT a.runtime_agent_id,
                   (SELECT c.conversation_id FROM agent_state.conversations AS c
                    WHERE c.runtime_agent_id = a.runtime_agent_id AND c.external_ref = 'C1'),
                   (SELECT e.entry_id FROM agent_state.memory_entries AS e
                    WHERE e.runtime_agent_id = a.runtime_agent_id
                      AND e.body = 'Alice is severely allergic to peanuts'),
                   (SELECT r.run_id FROM agent_state.runs AS r
                    WHERE r.runtime_agent_id = a.runtime_agent_id
                      AND r.trigger_message_id IS NOT NULL AND r.continued_from IS NULL),
                   (SELECT r.run_id FROM agent_state.runs AS r
                    WHERE r.runtime_agent_id = a.runtime_agent_id
                      AND r.trigger_message_id IS NOT NULL AND r.continued_from IS NOT NULL),
                   (SELECT s.snapshot_id FROM agent_state.prompt_snapshots AS s
                    WHERE s.runtime_agent_id = a.runtime_agent_id),
                   (SELECT m.message_id FROM agent_state.messages AS m
                    WHERE m.runtime_agent_id = a.runtime_agent_id AND m.external_ref = 'msg-1'),
                   (SELECT m.author_id FROM agent_state.messages AS m
                    WHERE m.runtime_agent_id = a.runtime_agent_id AND m.external_ref = 'msg-1')
            FROM agent_state.agents AS a WHERE a.handle = 'lifecycle'
            """
        ).fetchone()
    assert row is not None and None not in row
    keys = ("agent", "conv", "entry", "run", "open_run", "snapshot", "message", "author")
    return dict(zip(keys, row, strict=True))


@pytest.fixture(scope="module")
def primary(admin_dsn: str) -> Iterator[tuple[Any, str, str]]:
    """(cluster, superuser DSN, install mode) of a primary holding the realistic state."""
    bindir = lc.server_bindir(admin_dsn)
    with lc.temporary_cluster(bindir, fsync=False) as cluster:
        dsn = cluster.dsn()
        mode = "extension" if lc.extension_available(dsn, lc.control_version()) else "plain"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE lifecycle")
        db = with_dbname(dsn, "lifecycle")
        lc.install(db, mode)
        lc.ensure_host_role(db)
        lc.write_state(db)
        yield cluster, db, mode


def check_read_only(dsn: str, known: dict[str, Any], *, begin: str | None = None) -> None:
    """Every read verb works as the hosting runtime (and the operators' reads as the
    superuser); every write verb raises 25006."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for query in OPERATOR_READS.values():
            with conn.transaction():
                if begin:
                    conn.execute(begin)
                conn.execute(query, known).fetchall()
    with psycopg.connect(lc.with_role(dsn, lc.HOST_ROLE), autocommit=True) as conn:
        for query in READ_VERBS.values():
            with conn.transaction():
                if begin:
                    conn.execute(begin)
                conn.execute(query, known).fetchall()
        for name, query in WRITE_VERBS.items():
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), conn.transaction():
                if begin:
                    conn.execute(begin)
                conn.execute(query, known)
                pytest.fail(f"{name} wrote in a read-only transaction")


def test_read_verbs_in_a_read_only_transaction(primary: tuple[Any, str, str]) -> None:
    _cluster, db, _mode = primary
    check_read_only(db, ids(db), begin="SET TRANSACTION READ ONLY")


def test_read_verbs_on_a_hot_standby(primary: tuple[Any, str, str]) -> None:
    cluster, db, _mode = primary
    standby = lc.start_standby(cluster)
    try:
        replica = with_dbname(standby.dsn(), "lifecycle")
        lc.wait_for_replay(db, replica)
        with psycopg.connect(replica) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            assert row is not None and row[0] is True
        check_read_only(replica, ids(db))
    finally:
        standby.stop()


def test_restore_into_a_cluster_without_the_roles(
    primary: tuple[Any, str, str], tmp_path: Path
) -> None:
    """A new cluster after a database-only dump: in the plain install mode the restore
    fails as a whole naming the missing group role; under CREATE EXTENSION the group
    roles are created but a hosting grant names a role that does not exist, and the
    restore fails as a whole naming it. Once the role exists, the restore works and
    the role (a new OID) hosts its agent again."""
    cluster, db, mode = primary
    bindir = cluster.bindir
    dump = tmp_path / "lifecycle.sql"
    lc.run_tool(bindir, "pg_dump", ["-f", str(dump)], db)
    with lc.temporary_cluster(bindir, fsync=False) as other:
        with psycopg.connect(other.dsn(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE lifecycle")
        target = with_dbname(other.dsn(), "lifecycle")
        args = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "--single-transaction", "-f", str(dump)]
        failed = lc.run_tool(bindir, "psql", args, target, check=False)
        assert failed.returncode != 0
        missing = "agent_state_lifecycle_host" if mode == "extension" else "agent_state_"
        assert f'role "{missing}' in failed.stderr, failed.stderr
        with psycopg.connect(target) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_namespace WHERE nspname = 'agent_state'"
            ).fetchone()
            assert row == (0,), "a failed restore leaves nothing behind"
        with psycopg.connect(other.dsn(), autocommit=True) as conn:
            conn.execute(
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname ="
                " 'agent_state_operator') THEN CREATE ROLE agent_state_operator NOLOGIN; END IF;"
                " IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'agent_state_runtime') THEN"
                " CREATE ROLE agent_state_runtime NOLOGIN; END IF; END $$"
            )
            # Roles created in another order than in the old cluster: new OIDs.
            for i in range(3):
                conn.execute(sql.SQL("CREATE ROLE {}").format(sql.Identifier(f"filler_{i}")))
        lc.ensure_host_role(other.dsn())
        lc.run_tool(bindir, "psql", args, target)
        assert (
            lc.table_rows(target)["agent_state.agents"] == lc.table_rows(db)["agent_state.agents"]
        )
        assert lc.verify(target) == []
        lc.still_works(target)
