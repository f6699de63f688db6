"""No import cycle between tooljson's modules, and a reading core that names no source.

The import graph is read from the source with :mod:`ast`: every ``import`` and ``from ... import``,
at module level or inside a function (a lazy import is still a dependency), but those under
``if TYPE_CHECKING:`` (read by type checkers only). ``from package import name`` is an edge to the
submodule ``package.name`` when there is one, else to the package; a package's parents are not
counted (importing ``a.b`` runs ``a/__init__.py``, which every module of ``a`` shares).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "tooljson"

sys.path.insert(0, str(PACKAGE.parent.parent / "scripts"))
from source_reach import SOURCES as SOURCE_WORDS  # noqa: E402
from source_reach import code_words  # noqa: E402

# The reading core: from events to calls, for every source alike.
CORE = ("accumulator.py", "turn.py", "calls.py", "results.py", "sse.py")


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def modules_of(root: Path) -> dict[str, Path]:
    """Each module of the package at ``root`` by its dotted name (a native extension by its stub)."""
    found: dict[str, Path] = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        if "__pycache__" in path.parts:
            continue
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found.setdefault(".".join(parts), path)
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that the module ``name`` (at ``path``) imports."""
    out: set[str] = set()
    if path.suffix == ".pyi":
        return out
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    out.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    out.add(f"{base}.{alias.name}")
                elif base in modules:
                    out.add(base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    out.discard(name)
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = modules_of(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in graph:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_module_of_the_package_is_in_an_import_cycle() -> None:
    assert cycles(import_graph(PACKAGE)) == []


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_planted_cycle_is_found_lazy_imports_and_submodules_included(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    _write(
        root,
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": "def later():\n    from pkg.sub import c\n",
            "sub/__init__.py": "",
            "sub/c.py": "from .. import a\n",
            "d.py": "import pkg.a\n",
        },
    )
    assert cycles(import_graph(root)) == [["pkg.a", "pkg.b", "pkg.sub.c"]]


def test_type_checking_imports_are_not_dependencies(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    _write(
        root,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import B\n",
            "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\nclass B: ...\n",
        },
    )
    assert import_graph(root)["pkg.b"] == set()
    assert cycles(import_graph(root)) == []


def test_the_reading_core_names_no_source() -> None:
    import re

    for module in CORE:
        words = code_words(PACKAGE / module)
        for name, (pattern, _) in SOURCE_WORDS.items():
            matcher = re.compile(pattern, re.IGNORECASE)
            named = [word for word in words if matcher.search(word)]
            assert named == [], f"{module} names {name}: {named}"


def test_reading_a_source_loads_no_stand_in_code() -> None:
    # The registry names each wire by its module path; only the stand-in imports them.
    import subprocess

    code = (
        "import sys, tooljson, tooljson.providers.registry as r\n"
        "for s in r.SOURCES: s.recognise({})\n"
        "print([m for m in sys.modules if m.startswith('tooljson.standin') or '.wire' in m])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_each_wire_module_imports_first_in_a_fresh_interpreter() -> None:
    # The stand-in imports every wire when it first needs them; a wire imported on its own, before
    # anything else, must not find itself half-loaded through that (a cycle the ast graph cannot see:
    # the wires are named by strings).
    import subprocess

    from tooljson.providers.registry import SOURCES

    for module in sorted({source.wire for source in SOURCES if source.wire is not None}):
        done = subprocess.run(
            [sys.executable, "-c", f"import {module}; print({module}.WIRE.name)"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (module, done.stderr.strip().splitlines()[-1:])
