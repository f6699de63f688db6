"""The argument tree of one tool call as display rows, shared by the terminal and the browser views.

A row is one line of the tree: a container's opening (``"key": {``), a scalar (``"key": "text"``) or a
container's closing bracket, which only appears once the container is complete, so an unclosed
container reads as still arriving. Long strings are cut to their tail: the end is where a streaming
string grows, and rendering only the tail keeps each frame's cost independent of the string's length.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tooljson.text import json_pointer

__all__ = ["Row", "RowState", "TreeRows", "tree_rows"]

Path = tuple[str | int, ...]

RowState = Literal["done", "open", "partial"]
"""``done``: the value is complete; ``open``: the string still growing at the end of the stream;
``partial``: not complete and not growing (a container being filled, or text frozen by a break)."""


@dataclass(frozen=True)
class Row:
    """One line of the tree: ``depth`` levels of indentation, then ``key`` (``None`` at the root and for
    closing brackets), then ``text``, the value as JSON (a tail of it for long strings)."""

    depth: int
    key: str | int | None
    text: str
    state: RowState
    # A string's full length in characters (the text may show only its tail); ``None`` otherwise.
    length: int | None = None
    # The value validation repaired this one to, as JSON text (the row shows ``text → repaired``).
    repaired: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The row for a frame: ``k`` is an array position (a number) or an object key as JSON text,
        so that a view shows every key exactly as it shows values."""
        key = _scalar_text(self.key) if isinstance(self.key, str) else self.key
        row: dict[str, Any] = {"d": self.depth, "k": key, "t": self.text, "s": self.state}
        if self.length is not None:
            row["n"] = self.length
        if self.repaired is not None:
            row["r"] = self.repaired
        return row


@dataclass(frozen=True)
class TreeRows:
    """The last ``max_rows`` rows of a tree, and how many rows before them were left out."""

    rows: list[Row]
    hidden: int


def _string_text(value: str, tail: int, closed: bool) -> str:
    if len(value) > tail:
        # Only the tail is escaped: escaping the whole string would cost its length on every frame.
        body = "…" + json.dumps(value[-tail:], ensure_ascii=False)[1:-1]
        shown = f'({len(value):,} chars) "{body}'
    else:
        shown = '"' + json.dumps(value, ensure_ascii=False)[1:-1]
    return shown + '"' if closed else shown


def _scalar_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except ValueError:
        return repr(value)


def tree_rows(
    value: Any,
    *,
    open_path: Path | None,
    growing: bool = True,
    tail: int = 80,
    max_rows: int = 40,
    repairs: Mapping[str, Any] | None = None,
) -> TreeRows:
    """The rows showing ``value``, marked against what the parser reported.

    ``open_path`` is the path of the value still being filled (see :meth:`tooljson.Parser.open_path`):
    it and the containers around it are incomplete, every other value is complete. ``None`` when the
    whole value is complete. ``growing`` says whether a string at ``open_path`` still grows (the
    stream goes on) or was frozen by a break. ``repairs`` maps the JSON pointer of a value that
    validation repaired to the value it became, shown beside it.
    """
    on_path = set() if open_path is None else {open_path[:length] for length in range(len(open_path) + 1)}
    # Built from the end, row by row, up to ``max_rows``: a frame costs its rows, not the value's size
    # (the rows above are only counted).
    shown: list[Row] = []

    def is_complete(path: Path) -> bool:
        return path not in on_path

    def repaired(path: Path) -> str | None:
        if not repairs:
            return None
        pointer = json_pointer(path)
        return _scalar_text(repairs[pointer]) if pointer in repairs else None

    # An explicit stack rather than recursion: the parser accepts deeper nesting than Python's stack.
    # Items: a value to show (depth, key, value, path), a container's members still to show, last
    # first (depth, path, iterator), or a container's opening row, shown once its members are.
    stack: list[tuple[Any, ...]] = [("value", 0, None, value, ())]
    while stack and len(shown) < max_rows:
        entry = stack[-1]
        if entry[0] == "members":
            _, depth, path, members = entry
            member = next(members, None)
            if member is None:
                stack.pop()
            else:
                stack.append(("value", depth, member[0], member[1], (*path, member[0])))
            continue
        stack.pop()
        if entry[0] == "opening":
            shown.append(entry[1])
            continue
        _, depth, key, item, path = entry
        if isinstance(item, (dict, list)):
            opener, closer = ("{", "}") if isinstance(item, dict) else ("[", "]")
            done = is_complete(path)
            if not item and done:
                shown.append(Row(depth, key, opener + closer, "done"))
                continue
            if done:
                shown.append(Row(depth, None, closer, "done"))
            stack.append(("opening", Row(depth, key, opener, "done" if done else "partial")))
            members = (
                reversed(item.items())
                if isinstance(item, dict)
                else zip(range(len(item) - 1, -1, -1), reversed(item))
            )
            stack.append(("members", depth + 1, path, iter(members)))
        elif isinstance(item, str):
            done = is_complete(path)
            state: RowState = "done" if done else ("open" if growing and path == open_path else "partial")
            shown.append(Row(depth, key, _string_text(item, tail, done), state, len(item), repaired(path)))
        else:
            # Numbers and literals are only ever shown once complete.
            shown.append(Row(depth, key, _scalar_text(item), "done", repaired=repaired(path)))
    shown.reverse()
    return TreeRows(shown, _count_rows(value, open_path) - len(shown) if stack else 0)


def _count_rows(value: Any, open_path: Path | None) -> int:
    """How many rows :func:`tree_rows` has for ``value``: one a value, and one more (the closing
    bracket) for each non-empty container that is complete."""
    # Containers only are walked: each adds its members' rows, and its own closing bracket.
    count = 1
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        item = stack.pop()
        if item:
            members = item.values() if isinstance(item, dict) else item
            count += len(item) + 1
            stack.extend([member for member in members if isinstance(member, (dict, list))])
    # The containers on the open path are not complete: no closing bracket yet.
    node = value
    for step in () if open_path is None else (None, *open_path):
        if step is not None:
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                break
        if isinstance(node, (dict, list)) and node:
            count -= 1
    return count
