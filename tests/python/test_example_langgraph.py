"""examples/langgraph_agent.py runs: three turns, a crash in the third, a resume from
the last checkpoint by a new saver, memory with provenance, recover_run's frontier."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "langgraph_agent.py"


def load() -> Any:
    spec = importlib.util.spec_from_file_location("langgraph_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_example_resumes_after_a_crash(dsn: str) -> None:
    lines: list[str] = []
    result = load().run(dsn, say=lines.append)
    assert lines[2] == "turn 3: crashed (the process died here)"
    assert lines[3].startswith("resuming from checkpoint")
    assert lines[4].startswith("turn 3 (resumed): Here is a peanut-free snack list.")
    assert result["memories"] == ["I am allergic to peanuts."]
    assert result["checkpoints"] > 3
    assert any(line.startswith("recover_run: status open, resume at") for line in lines)
