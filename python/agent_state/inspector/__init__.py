"""``agent-state inspect``: a local, read-only web page over the read verbs (SPEC 16).

This package's top level imports nothing beyond the standard library, so the command
line works without the ``inspect`` extra; :mod:`agent_state.inspector.app` (Starlette,
Jinja2) is imported when the command runs or a caller builds the app.
"""

from __future__ import annotations

from .command import DEFAULT_HOST, DEFAULT_PORT, add_inspect_command, is_loopback

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "add_inspect_command", "is_loopback"]
