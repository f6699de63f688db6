"""The views stand below the stand-in and the demo: ``ui/`` never imports ``standin/`` or ``demo/``,
and the command line loads neither until a command needs it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import tooljson

PACKAGE = Path(tooljson.__file__).resolve().parent
BELOW = ("tooljson.standin", "tooljson.demo")
"""What the views must never import: the stand-in, and the demo layer above both."""


def _package_of(path: Path) -> str:
    """The package a module's relative imports start from."""
    return ".".join(path.relative_to(PACKAGE.parent).parent.parts)


def imported(source: str, package: str) -> set[str]:
    """Every module ``source`` (a module of ``package``) imports, wherever the import is: at the
    top, in a function (a lazy import), under ``TYPE_CHECKING`` too. A relative import is resolved,
    and ``from package import name`` counts as importing ``package.name`` as well."""
    parts = package.split(".")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*stem, base] if base else stem)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _below(name: str) -> bool:
    return any(name == layer or name.startswith(layer + ".") for layer in BELOW)


def views_importing_below() -> dict[str, set[str]]:
    found = {}
    for path in sorted((PACKAGE / "ui").rglob("*.py")):
        names = {n for n in imported(path.read_text(encoding="utf-8"), _package_of(path)) if _below(n)}
        if names:
            found[str(path.relative_to(PACKAGE))] = names
    return found


def test_no_view_imports_the_stand_in_or_the_demo() -> None:
    assert list((PACKAGE / "ui").rglob("*.py")), "no view module found"
    assert views_importing_below() == {}


@pytest.mark.parametrize(
    "planted",
    [
        "import tooljson.standin",
        "from tooljson.standin import StandInServer",
        "from tooljson import standin",
        "from tooljson.standin.scenarios import SCENARIOS",
        "from tooljson.demo.runs import run_scenario",
        "def later():\n    from tooljson.standin import get_scenario\n    return get_scenario",
        "if TYPE_CHECKING:\n    from tooljson.standin.scenario import Scenario",
        "class Lazy:\n    def run(self):\n        import tooljson.demo\n",
        "from .. import standin",
        "from ..standin.clients import open_client",
    ],
)
def test_the_check_finds_a_planted_import(planted: str) -> None:
    source = "from tooljson.ui.model import RunView\n" + planted + "\n"
    names = {n for n in imported(source, "tooljson.ui") if _below(n)}
    assert names, planted


def test_the_check_lets_the_views_own_imports_through() -> None:
    source = (
        "from tooljson.ui.model import RunView\nfrom . import recording\nimport tooljson.turn\n"
        "from tooljson import standing_order\n"
    )
    assert {n for n in imported(source, "tooljson.ui") if _below(n)} == set()


_LOADED = """
import json, sys
{code}
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("tooljson.standin", "tooljson.demo")))))
"""


def _loaded_after(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize(
    "code",
    [
        "import tooljson.cli",
        # Building the command line and reading a command that needs no scenario loads nothing either.
        "from tooljson.cli import parser\nparser().parse_args(['replay', 'run.jsonl', '--plain'])",
        "from tooljson.cli import parser\nparser().parse_args(['proxy', '--plain'])",
        "import tooljson.ui.web, tooljson.ui.terminal, tooljson.ui.plain, tooljson.ui.playback",
    ],
)
def test_the_command_line_and_the_views_load_no_stand_in_module(code: str) -> None:
    assert _loaded_after(code) == []


def test_a_command_that_runs_a_scenario_loads_the_stand_in() -> None:
    # The check above would pass on an interpreter that never records a module: this one must see some.
    code = "from tooljson.cli import parser\nparser().parse_args(['record', '--scenario', 'parallel_calls'])"
    assert "tooljson.standin.scenarios" in _loaded_after(code)
