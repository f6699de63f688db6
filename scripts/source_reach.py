"""Which modules of the package name each source of tool calls, outside the source's own modules.

A source (a provider's API, a framework's stream) should be one place: its package (reader, stand-in
wire, recording check), plus the registry line that lists it. This counts, for each source, the other
modules whose code names it: an identifier, an attribute, an import or a string literal that holds
one of the source's words, case aside. Docstrings and comments do not count (they explain; code is
what must change when a source does). The OpenAI SDK's stream helpers (``acceleration/openai*.py``)
count as its own modules: they are that SDK's helper classes served by :func:`tooljson.accelerate`,
as instructor's (``acceleration/instructor/``) are instructor's, and the anthropic SDK's helpers are
the Messages API's, with its tool loop and the stand-in's rendering of scenario replies; LiteLLM and instructor are
integrations, not sources of the registry.

    python scripts/source_reach.py            # a table: source, modules outside its own, their names
    python scripts/source_reach.py --json     # the same as JSON (tests/test_source_reach.py reads it)
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "tooljson"

# Each source's words (matched inside identifiers and strings, case-insensitively) and its own
# modules (paths relative to the package, as globs): its package, and its SDK helper where it has one.
SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "anthropic": (
        # The Messages API: its SDK's name and its event and delta types.
        r"anthropic|content_block_(?:start|delta|stop)|message_(?:start|delta|stop)"
        r"|(?:input_json|thinking|signature|citations)_delta",
        (
            "providers/anthropic/**/*.py",
            # The Messages API's tool loop, which drives the anthropic client.
            "loop.py",
            # The anthropic SDK's stream helpers served by tooljson.accelerate (as openai*.py are openai's).
            "acceleration/streams.py",
            "acceleration/snapshot.py",
            "acceleration/models.py",
            "acceleration/threads.py",
            "acceleration/runner.py",
            # The stand-in's scenario replies, rendered as Messages events.
            "standin/render.py",
        ),
    ),
    "bedrock": (
        r"(?<!anthropic)bedrock|converse",
        ("providers/bedrock/**/*.py",),
    ),
    "openai": (
        r"openai(?!_agents|-agents)",
        (
            "providers/chat/**/*.py",
            "providers/responses/**/*.py",
            "demo/openai_*.py",
            "acceleration/openai*.py",
            "acceleration/openai/*.py",
        ),
    ),
    "gemini": (
        r"gemini|google[._-]genai|(?<![a-z_])genai(?![a-z_])",
        ("providers/gemini/**/*.py",),
    ),
    "cohere": (r"cohere", ("providers/cohere/**/*.py",)),
    "langchain": (r"langchain|langgraph", ("frameworks/langchain/**/*.py", "compat/langchain_mode.py")),
    "pydantic-ai": (r"pydantic[_-]?ai", ("frameworks/pydantic_ai/**/*.py",)),
    "openai-agents": (r"openai[_-]agents|agents\.|raw_response_event", ("frameworks/openai_agents/**/*.py",)),
    "litellm": (r"litellm", ("frameworks/litellm.py",)),
    "instructor": (r"instructor", ("acceleration/instructor.py", "acceleration/instructor/*.py")),
}


def _docstring_lines(tree: ast.AST) -> set[int]:
    """The lines of every docstring: a string that stands alone as a statement (a module's, a class's,
    a function's, or an attribute's, written under its assignment)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def code_words(path: Path) -> list[str]:
    """The identifiers and string literals of a module's code, docstrings and comments left out."""
    source = path.read_text(encoding="utf-8")
    skipped = _docstring_lines(ast.parse(source))
    words = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NAME, tokenize.STRING) and token.start[0] not in skipped:
            words.append(token.string)
    return words


def reach(package: Path = PACKAGE) -> dict[str, list[str]]:
    """For each source, the modules outside its own whose code names it."""
    modules = sorted(path for path in package.rglob("*.py") if "__pycache__" not in path.parts)
    words = {path: code_words(path) for path in modules}
    found: dict[str, list[str]] = {}
    for name, (pattern, own) in SOURCES.items():
        matcher = re.compile(pattern, re.IGNORECASE)
        mine = {path for glob in own for path in package.glob(glob)}
        found[name] = [
            str(path.relative_to(package))
            for path in modules
            if path not in mine and any(matcher.search(word) for word in words[path])
        ]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    arguments = parser.parse_args(argv)
    found = reach()
    if arguments.json:
        print(json.dumps(found, indent=2))
        return 0
    for name, where in found.items():
        print(f"{name:14} {len(where):3}  {', '.join(where)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
