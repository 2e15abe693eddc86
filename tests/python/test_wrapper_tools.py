"""Tool grants and the markdown views through the wrapper.

Each test names the SQL functions it needs and is skipped (with their names) while
they are not in the database.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

import agent_state
from agent_state import Store
from conftest import Require

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "enum": ["eu", "us"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    },
    "required": ["region"],
}


def new_tool() -> str:
    return f"wrap.tool.{uuid4().hex[:10]}"


def test_register_grant_authorize_history(store: Store, agent: UUID, require: Require) -> None:
    require("register_tool", "grant_tool", "authorize_tool", "tool_grant_history")
    tool = new_tool()
    store.register_tool(name=tool, version="1.0", config_schema=SCHEMA)
    store.register_tool(name=tool, version="1.0", config_schema=SCHEMA)  # same again: no-op

    with pytest.raises(agent_state.PermissionDenied):
        store.authorize_tool(agent=agent, tool=tool)  # registered, not granted
    assert store.tool_grant_history(agent=agent, tool=tool) == []

    assert store.grant_tool(agent=agent, tool=tool, enabled=True, config={"region": "eu"}) == 1
    auth = store.authorize_tool(agent=agent, tool=tool)
    assert isinstance(auth, agent_state.ToolAuthorization)
    assert auth.revision == 1 and auth.config == {"region": "eu"}

    assert (
        store.grant_tool(agent=agent, tool=tool, enabled=True, config={"region": "us", "limit": 5})
        == 2
    )
    assert store.authorize_tool(agent=agent, tool=tool).config == {"region": "us", "limit": 5}

    assert store.grant_tool(agent=agent, tool=tool, enabled=False) == 3
    with pytest.raises(agent_state.PermissionDenied) as info:
        store.authorize_tool(agent=agent, tool=tool)
    assert info.value.sqlstate == "42501"

    history = store.tool_grant_history(agent=agent, tool=tool)
    assert [(h.revision, h.enabled) for h in history] == [(1, True), (2, True), (3, False)]
    assert all(isinstance(h, agent_state.ToolGrantRevision) for h in history)
    assert history[1].config == {"region": "us", "limit": 5}
    assert history[0].created_by


def test_bad_config_names_the_field(store: Store, agent: UUID, require: Require) -> None:
    require("register_tool", "grant_tool")
    tool = new_tool()
    store.register_tool(name=tool, version="1", config_schema=SCHEMA)
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.grant_tool(agent=agent, tool=tool, enabled=True, config={"region": "mars"})
    assert "region" in info.value.message
    with pytest.raises(agent_state.InvalidArgument) as info:
        store.grant_tool(
            agent=agent, tool=tool, enabled=True, config={"region": "eu", "limit": 1000}
        )
    assert "limit" in info.value.message
    with pytest.raises(agent_state.InvalidArgument):
        store.grant_tool(agent=agent, tool=tool, enabled=True, config={})  # region required
    with pytest.raises(agent_state.MissingArgument):
        store.grant_tool(agent=agent, tool=tool, enabled=None)  # type: ignore[arg-type]


def test_bad_schema_and_unknown_tool(store: Store, agent: UUID, require: Require) -> None:
    require("register_tool", "grant_tool", "authorize_tool")
    with pytest.raises(agent_state.InvalidArgument):
        store.register_tool(
            name=new_tool(), version="1", config_schema={"type": "object", "$ref": "#/x"}
        )
    with pytest.raises(agent_state.InvalidArgument):
        store.register_tool(name=new_tool(), version="1", config_schema={"type": 42})
    with pytest.raises(agent_state.NotFound):
        store.grant_tool(agent=agent, tool=new_tool(), enabled=True)
    with pytest.raises(agent_state.PermissionDenied):
        store.authorize_tool(agent=agent, tool=new_tool())


def test_export_markdown_is_deterministic(store: Store, agent: UUID, require: Require) -> None:
    require("export_markdown", "note")
    store.revise_persona(agent=agent, body="You are the export test persona.")
    store.note(agent=agent, body="The export test remembers this note.")
    text = store.export_markdown(agent=agent)
    assert isinstance(text, str)
    assert "You are the export test persona." in text
    assert "The export test remembers this note." in text
    assert store.export_markdown(agent=agent) == text


def test_import_markdown(store: Store, agent: UUID, require: Require) -> None:
    require("import_markdown", "recall", "memory_history")
    document = "# Memory\n\n- Alice prefers mornings.\n- Bob is on the infra team.\n"
    count = store.import_markdown(agent=agent, document=document)
    assert count == 2
    hits = store.recall(agent=agent, query="mornings")
    assert len(hits) == 1
    (rev,) = store.memory_history(agent=agent, entry=hits[0].entry)
    assert rev.source_type == "import"
