"""The package version is agent_state.control's default_version (written once)."""

import re
from pathlib import Path

from setuptools import setup

control = (Path(__file__).parent / "agent_state.control").read_text()
match = re.search(r"^\s*default_version\s*=\s*'([^']+)'", control, re.MULTILINE)
if match is None:
    raise SystemExit("agent_state.control has no default_version")
setup(version=match.group(1))
