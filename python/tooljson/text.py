"""Small text helpers shared by every layer: JSON Pointers, one-line excerpts, encodable text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tooljson._native import Event

__all__ = ["encodable", "escaped_note", "json_excerpt", "json_pointer", "json_text", "shorten", "utf8_json"]

# Code points U+D800..U+DFFF: a Python string holds them only as lone surrogates (json.loads keeps
# the escape "\ud800" as such, and a surrogate pair written as two escapes is joined), and no UTF-8
# encoder takes them.
_SURROGATE = re.compile("[\ud800-\udfff]")


def escaped_note(count: int) -> str | None:
    """What a view says next to text in which :func:`encodable` escaped ``count`` lone surrogates."""
    if not count:
        return None
    return (
        "1 lone surrogate shown as its \\uXXXX escape"
        if count == 1
        else f"{count} lone surrogates shown as \\uXXXX escapes"
    )


def json_pointer(path: Iterable[str | int]) -> str:
    """The RFC 6901 JSON Pointer of a path of keys and array positions (``""`` for the root).

    Built by the same code as :attr:`tooljson.Event.pointer`, so a validation problem and a
    structural event name the same field the same way.
    """
    return str(Event("complete", path, None).pointer)


def json_text(value: Any) -> str:
    """``value`` as compact, readable JSON text (non-ASCII kept; unknown objects by ``str``)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def json_excerpt(value: Any, limit: int = 160) -> str:
    """``shorten(json_text(value), limit)``, written only as far as the excerpt shows: a call's whole
    input (tens of KB) is not written out for a log line's 160 characters."""
    pieces: list[str] = []
    size = 0
    # What is left to write, last first: a value, or text as it stands (a separator, a closing bracket).
    left: list[tuple[bool, Any]] = [(False, value)]
    while left and size <= limit:
        literal, item = left.pop()
        if literal:
            text = item
        elif item and isinstance(item, dict) and all(type(key) is str for key in item):
            text = "{"
            left.append((True, "}"))
            entries = list(item.items())
            for position in range(len(entries) - 1, -1, -1):
                key, member = entries[position]
                left.append((False, member))
                left.append((True, json.dumps(key, ensure_ascii=False) + ": "))
                if position:
                    left.append((True, ", "))
        elif item and isinstance(item, (list, tuple)):
            text = "["
            left.append((True, "]"))
            for position in range(len(item) - 1, -1, -1):
                left.append((False, item[position]))
                if position:
                    left.append((True, ", "))
        else:
            text = json_text(item)
        pieces.append(text)
        size += len(text)
    # Past the limit, the text written so far is a long enough beginning of the whole.
    return shorten("".join(pieces), limit)


def utf8_json(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text a UTF-8 file or response can hold: non-ASCII kept as is, or every
    non-ASCII character escaped when ``value`` holds lone surrogates (their escapes read back as the
    same value)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, indent=indent)
    return text


def shorten(text: str, limit: int = 160) -> str:
    """``text`` on one line (newlines shown as ``\\n``), cut to at most ``limit`` characters with ``…``."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def _holds_surrogate(value: Any) -> bool:
    stack = [value]
    search = _SURROGATE.search
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if search(item):
                return True
        elif isinstance(item, dict):
            for key in item:
                if isinstance(key, str) and search(key):
                    return True
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def encodable(value: Any, *, escape: bool = False) -> tuple[Any, int]:
    """``value`` with every lone surrogate made encodable as UTF-8, and how many were replaced.

    Lone surrogates are valid in JSON text (``"\\ud800"``) and :func:`json.loads` keeps them, but
    no UTF-8 encoder takes them: not the SDK's request body, not a terminal, not an HTTP response.
    The one remedy, for every layer: each becomes U+FFFD (what goes back to an API), or with
    ``escape`` its JSON escape ``\\udXXX`` (what a view shows: inside JSON text that is the exact
    value). Strings are rewritten wherever they sit in dicts (keys too), lists and tuples (which come
    back as lists); other values are kept. Without any lone surrogate ``value`` itself comes back,
    after one scan; the walk uses an explicit stack, so any nesting depth is fine.
    """
    if not _holds_surrogate(value):
        return value, 0
    count = 0

    def fix(text: str) -> str:
        nonlocal count
        if not _SURROGATE.search(text):
            return text
        count += len(_SURROGATE.findall(text))
        if escape:
            return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
        return _SURROGATE.sub("\ufffd", text)

    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, slot, item = stack.pop()
        if isinstance(item, str):
            parent[slot] = fix(item)
        elif isinstance(item, dict):
            rebuilt: dict[Any, Any] = {}
            parent[slot] = rebuilt
            for key, child in item.items():
                key = fix(key) if isinstance(key, str) else key
                # The placeholder keeps the key order; the child fills it when its turn comes.
                rebuilt[key] = None
                stack.append((rebuilt, key, child))
        elif isinstance(item, (list, tuple)):
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((items, position, child) for position, child in enumerate(item))
        else:
            parent[slot] = item
    return root[0], count
