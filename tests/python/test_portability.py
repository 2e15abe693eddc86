"""Moving an agent between databases (SPEC section 15): export_agent writes the whole
state, import_agent loads it elsewhere with ids, numbers and stamps kept, and refuses
(writing nothing) anything that is not a faithful export of this version."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from psycopg.types.json import Jsonb

import lifecycle as lc

MODES = ("extension", "plain")


def skip_without_extension(dsn: str, mode: str) -> None:
    if mode == "extension" and not lc.extension_available(dsn, lc.control_version()):
        pytest.skip("agent_state extension files are not installed on this server")


def one(dsn: str, query: str, *args: Any) -> Any:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(query, list(args)).fetchone()
        assert row is not None
        return row[0]


def export(dsn: str, agent: Any) -> dict[str, Any]:
    doc: dict[str, Any] = one(dsn, "SELECT agent_state.export_agent(%s)", agent)
    return doc


def import_(dsn: str, doc: Any) -> Any:
    return one(dsn, "SELECT agent_state.import_agent(%s)", Jsonb(doc))


def agents(dsn: str) -> int:
    count: int = one(dsn, "SELECT count(*) FROM agent_state.agents")
    return count


def copy_tools(src: str, dst: str) -> None:
    """Register in dst every registration src has, in order (tools are deployment-wide)."""
    with psycopg.connect(src) as conn:
        versions = conn.execute(
            "SELECT tool_name, version, config_schema FROM agent_state.tool_versions"
            " ORDER BY tool_name, revision"
        ).fetchall()
    with psycopg.connect(dst, autocommit=True) as conn:
        for name, version, schema in versions:
            conn.execute(
                "SELECT agent_state.register_tool(%s, %s, %s)", [name, version, Jsonb(schema)]
            )


@pytest.fixture(params=MODES)
def pair(request: pytest.FixtureRequest, admin_dsn: str) -> Iterator[tuple[str, str, Any]]:
    """A source database with the realistic state and an empty target, both installed
    in the same mode; the lifecycle agent's id."""
    mode: str = request.param
    skip_without_extension(admin_dsn, mode)
    lc.ensure_host_role(admin_dsn)
    with lc.scratch_db(admin_dsn, "move_src") as src, lc.scratch_db(admin_dsn, "move_dst") as dst:
        lc.install(src, mode)
        lc.install(dst, mode)
        lc.write_state(src)
        agent = one(
            src, "SELECT runtime_agent_id FROM agent_state.agents WHERE handle = 'lifecycle'"
        )
        yield src, dst, agent


READS = (
    "SELECT * FROM agent_state.persona_history(%(a)s)",
    "SELECT * FROM agent_state.active_persona(%(a)s)",
    "SELECT * FROM agent_state.profile_history(%(a)s)",
    "SELECT * FROM agent_state.tool_grants(%(a)s)",
    "SELECT agent_state.export_markdown(%(a)s)",
    "SELECT * FROM agent_state.timeline(%(a)s)",
    "SELECT * FROM agent_state.list_memories(%(a)s, include_forgotten => true)",
    "SELECT * FROM agent_state.list_runs(%(a)s)",
    "SELECT * FROM agent_state.list_conversations(%(a)s)",
    "SELECT entry, revision, body, subject, subject_match FROM agent_state.recall(%(a)s, 'Alice',"
    " match => 'any')",
)


def test_an_agent_moves_with_every_row(pair: tuple[str, str, Any]) -> None:
    src, dst, agent = pair
    doc = export(src, agent)
    assert doc["format"] == "agent_state.agent" and doc["version"] == lc.control_version()
    # The document goes through text, as a file would.
    doc = json.loads(json.dumps(doc))
    copy_tools(src, dst)
    assert str(import_(dst, doc)) == str(agent)
    assert lc.verify(dst) == []
    # Every row of every table the agent owns, stamps and numbers included: the
    # target's export is the source's, digest and all.
    assert export(dst, agent) == export(src, agent)
    src_rows, dst_rows = lc.table_rows(src), lc.table_rows(dst)
    for table, rows in src_rows.items():
        if table in ("agent_state.tools", "agent_state.tool_versions"):
            continue
        mine = [r for r in rows if r.get("runtime_agent_id") == str(agent)]
        assert [r for r in dst_rows[table] if r.get("runtime_agent_id") == str(agent)] == mine, (
            table
        )
    for query in READS:
        with psycopg.connect(src) as a, psycopg.connect(dst) as b:
            assert (
                a.execute(query, {"a": agent}).fetchall()
                == b.execute(query, {"a": agent}).fetchall()
            ), query
    # The hosting grant came by role name: the runtime acts for the agent there.
    runtime = lc.with_role(dst, lc.HOST_ROLE)
    assert one(runtime, "SELECT count(*) FROM agent_state.list_agents()") == 1


def test_a_refused_import_writes_nothing(pair: tuple[str, str, Any]) -> None:
    src, dst, agent = pair
    doc = export(src, agent)
    before = agents(dst)

    def refused(document: Any, sqlstate: str, words: str) -> None:
        with pytest.raises(psycopg.Error) as info:
            import_(dst, document)
        assert info.value.sqlstate == sqlstate, info.value
        assert words in str(info.value), info.value
        assert agents(dst) == before

    refused(doc, "P0002", "tool 'search' (revision 2) is not registered")
    copy_tools(src, dst)
    changed = json.loads(json.dumps(doc))
    changed["tables"]["memory_revisions"][0]["body"] = "a body the source never had"
    refused(changed, "22023", "digest does not match")
    dropped = json.loads(json.dumps(doc))
    dropped["tables"]["messages"].pop()
    refused(dropped, "22023", "digest does not match")
    other = json.loads(json.dumps(doc))
    other["version"] = "0.2.0"
    refused(other, "22023", "written by agent_state '0.2.0'")
    refused({"format": "something else"}, "22023", "not an agent_state agent document")
    unknown_role = json.loads(json.dumps(doc))
    unknown_role["hosting"][0]["host"] = "no_such_role_here"
    unknown_role["digest"] = one(
        dst, "SELECT agent_state._agent_document_digest(%s)", Jsonb(unknown_role)
    )
    refused(unknown_role, "42704", "hosting role 'no_such_role_here' does not exist")

    # A document whose digest was recomputed after an edit the tables refuse: a row
    # missing a required value, a value of the wrong type, an agent without an id.
    def redigested(edit: Any) -> Any:
        document = json.loads(json.dumps(doc))
        edit(document)
        document["digest"] = one(
            dst, "SELECT agent_state._agent_document_digest(%s)", Jsonb(document)
        )
        return document

    refused(
        redigested(lambda d: d["tables"]["memory_revisions"][0].pop("body")),
        "22023",
        "memory_revisions: not a faithful export",
    )
    refused(
        redigested(lambda d: d["tables"]["messages"][0].update(observed_at="not a time")),
        "22023",
        "messages: not a faithful export",
    )
    refused(
        redigested(lambda d: d["agent"].update(id="not-a-uuid")),
        "22023",
        "its agent has no valid id or handle",
    )
    refused(
        redigested(lambda d: d["tables"]["actors"][0].update(colour="blue")),
        "22023",
        "actors has no column 'colour'",
    )
    with pytest.raises(psycopg.Error) as info:
        one(dst, "SELECT agent_state.import_agent(NULL)")
    assert info.value.sqlstate == "22004"
    # A faithful document loads once; a second time the agent exists.
    import_(dst, doc)
    before = agents(dst)
    refused(doc, "23505", f"agent {agent} exists")
    renamed = json.loads(json.dumps(doc))
    renamed["agent"]["id"] = "00000000-0000-4000-8000-000000000001"
    renamed["digest"] = one(dst, "SELECT agent_state._agent_document_digest(%s)", Jsonb(renamed))
    refused(renamed, "23505", "handle 'lifecycle' exists")


def test_export_is_a_read_verb_for_operators(pair: tuple[str, str, Any]) -> None:
    src, _dst, agent = pair
    with psycopg.connect(src) as conn:
        conn.execute("SET TRANSACTION READ ONLY")
        doc = conn.execute("SELECT agent_state.export_agent(%s)", [agent]).fetchone()
        assert doc is not None and doc[0]["agent"]["id"] == str(agent)
    runtime = lc.with_role(src, lc.HOST_ROLE)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        one(runtime, "SELECT agent_state.export_agent(%s)", agent)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        one(runtime, "SELECT agent_state.import_agent('{}')")


def test_the_command_line_moves_an_agent_through_a_file(
    pair: tuple[str, str, Any], tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_state.cli import main

    src, dst, agent = pair
    copy_tools(src, dst)
    path = tmp_path / "lifecycle.agent.json"
    assert main(["export-agent", "--dsn", src, "--agent", "lifecycle", "--file", str(path)]) == 0
    assert "rows)" in capsys.readouterr().err
    assert main(["import-agent", "--dsn", dst, "--file", str(path)]) == 0
    assert capsys.readouterr().out.strip() == str(agent)
    assert export(dst, agent) == export(src, agent)
    # A second import is refused, with the SQLSTATE, and the exit status says so.
    assert main(["import-agent", "--dsn", dst, "--file", str(path)]) == 1
    assert "[23505]" in capsys.readouterr().err


def test_move_export_refuses_a_snapshot_taken_before_its_wait(dsn: str) -> None:
    """move_step('export') waits for older transactions, then reads the document. At
    REPEATABLE READ the transaction's snapshot would predate the wait and miss writes
    committed during it (which retire would then drop), so the step refuses (55000);
    at READ COMMITTED it returns the document."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        agent = conn.execute(
            "SELECT agent_state.create_agent(%s)", (f"export-rr-{uuid4().hex[:8]}",)
        ).fetchone()[0]  # type: ignore[index]
        conn.execute("SELECT agent_state.move_step(%s, 'begin', 'elsewhere')", (agent,))
        try:
            refused = pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match="READ")
            with refused, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                conn.execute("SELECT agent_state.move_step(%s, 'export')", (agent,))
            doc = conn.execute("SELECT agent_state.move_step(%s, 'export')", (agent,)).fetchone()
            assert doc is not None and doc[0]["agent"]["handle"].startswith("export-rr-")
        finally:
            conn.execute("SELECT agent_state.move_step(%s, 'abort')", (agent,))
