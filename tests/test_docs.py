"""The README and the documentation pages: their examples run, their references resolve, the README
stays a front page.

Every ```python block of ``README.md`` and ``docs/*.md`` is compiled; the blocks of one page run in
order in one namespace (a later block uses what an earlier one made), except a block right after a
``<!-- not run: REASON -->`` comment (one that needs an API key, a network or a client). Whatever
runs or not, every dotted name ``tooljson.x.y`` written in a page must import or be an attribute, and
every source file a page names in backticks must exist, so that a rename shows up here.
``make docs`` (``mkdocs build --strict``) checks the links between pages and the API reference.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)```", re.S)
NOT_RUN = re.compile(r"<!-- not run: [^>]+ -->")
DOTTED = re.compile(r"\btooljson(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
SOURCE_FILE = re.compile(r"`([\w./-]+\.(?:py|pyi|rs|md|png|toml))`")
# The pages the documentation is organised by (other work adds its sections to these files).
REQUIRED_PAGES = (
    "index",
    "getting-started",
    "parsing",
    "previews",
    "typed",
    "sdk-helpers",
    "providers",
    "frameworks",
    "drop-ins",
    "loop",
    "views",
    "performance",
    "architecture",
    "api",
    "changelog",
)


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(page: Path) -> list[tuple[int, str, bool]]:
    """(line, code, run) for each Python block of ``page``."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("code")) + 1
        found.append((line, match.group("code"), not NOT_RUN.fullmatch(match.group("before").strip())))
    return found


def test_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move reference content into docs/"
    headings = [line for line in lines if line.startswith("## ")]
    for needed in (
        "## Install",
        "## The two commands",
        "## Three short examples",
        "## Headline figures",
        "## Documentation",
    ):
        assert needed in headings, needed
    assert len(blocks(ROOT / "README.md")) == 3


def test_every_page_of_the_site_exists() -> None:
    for name in REQUIRED_PAGES:
        assert (ROOT / "docs" / f"{name}.md").is_file(), name
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in (ROOT / "docs").glob("*.md"):
        assert f" {page.name}" in nav, f"{page.name} is not in mkdocs.yml's nav"


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_python_examples_compile_and_run(page: Path) -> None:
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for line, code, run in blocks(page):
        compiled = compile(code, f"{page_id(page)}:{line}", "exec", dont_inherit=True)
        if not run:
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compiled, namespace)  # noqa: S102 - the page's own example, run as a reader would


def resolve(dotted: str) -> object:
    """The object ``dotted`` names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(dotted)


def span_attributes() -> frozenset[str]:
    """The span attributes in tooljson's namespace (``tooljson.verdict``...): names, not objects."""
    try:
        from tooljson.otel import SPAN_ATTRIBUTES
    except ImportError:  # without the otel extra they cannot be told from references: they fail below
        return frozenset()
    return SPAN_ATTRIBUTES


def event_names() -> frozenset[str]:
    """The names of events tooljson writes in other protocols (AG-UI's ``tooljson.tool_call_verdict``)."""
    from tooljson.protocols.ag_ui import VERDICT_EVENT

    return frozenset({VERDICT_EVENT})


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_references_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    names = sorted(set(DOTTED.findall(text)) - span_attributes() - event_names())
    unresolved = []
    for name in names:
        try:
            resolve(name)
        except (ImportError, AttributeError) as error:
            unresolved.append(f"{name}: {error}")
    assert not unresolved, unresolved


@pytest.fixture(scope="module")
def tracked() -> list[str]:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return done.stdout.splitlines()


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_named_source_files_exist(page: Path, tracked: list[str]) -> None:
    named = set(SOURCE_FILE.findall(page.read_text(encoding="utf-8")))
    missing = [
        name
        for name in sorted(named)
        if name not in tracked and not any(path.endswith(f"/{name}") for path in tracked)
    ]
    assert not missing, missing


def test_readme_links_point_at_files() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [target for target in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in target]
    assert links
    assert [target for target in links if not (ROOT / target).exists()] == []
