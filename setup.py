"""Build hooks: the package version and the SQL the package ships.

The version is agent_state.control's default_version (written once). The build
writes agent_state/sql/ (the install script agent_state.sql and every upgrade step
agent_state--A--B.sql, read by agent_state._install) with scripts/build_sql.py, the
module the Makefile calls too, so every pip route (a checkout, the sdist, the
wheel) ships a complete package without running make.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def _load_build_sql() -> ModuleType:
    path = ROOT / "scripts" / "build_sql.py"
    spec = importlib.util.spec_from_file_location("_agent_state_build_sql", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build_sql = _load_build_sql()


class BuildPyWithSQL(build_py):
    """build_py that also writes agent_state/sql/ from sql/ and functions/."""

    def _sql_dir(self) -> Path:
        # An editable install imports the package from the source tree, so the
        # scripts go there (setuptools' rule for files a build step generates).
        if getattr(self, "editable_mode", False):
            return ROOT / "python" / "agent_state" / "sql"
        return Path(self.build_lib) / "agent_state" / "sql"

    def run(self) -> None:
        super().run()
        for path in build_sql.package(self._sql_dir(), ROOT):
            self.announce(f"built {path}", level=2)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        directory = self._sql_dir()
        return outputs + [str(directory / name) for name in build_sql.package_names(ROOT)]


setup(version=build_sql.default_version(ROOT), cmdclass={"build_py": BuildPyWithSQL})
