"""Resuming a parse where the last call on a shorter buffer left it.

Code that re-parses a growing buffer calls the parser with ``text[:n1]``, ``text[:n2]``, ... A
native ``GrowingText`` that has read the first part reads only what the next call adds (``bytes``
read as UTF-8 in place), and :func:`snapshot` turns its state into the value a partial parser gives
for the whole text. The native ``ResumeCache`` (``src/python/resume_cache.rs``) keeps a few of them,
found by the text they have read being a prefix of the new one, with the check and the reading in
one call.

A snapshot answers only when the text so far is a prefix of valid JSON that both the native parser
and the compatibility mode treat the same way; for anything else it says :data:`REFERENCE`, and the
caller parses the whole text with the mode's own rules. So the kept state can make a call faster,
never different.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from .._native import GrowingText, ResumeCache
from .jiter_reference import RECURSION_LIMIT

__all__ = ["REFERENCE", "ResumeCache", "growing_text", "has_lone_surrogate", "snapshot"]

#: Returned by :func:`snapshot` when the whole text must be parsed by the mode's own rules.
REFERENCE: Final = object()

#: How much of the end of the text ``parse_partial_json`` looks at for an escape cut off (the
#: longest escape end, seven characters, after a run of backslashes), and ``PartialParser`` keeps.
TAIL_CHARS = 32
# A surrogate escape not preceded by an escaping backslash, taken with its pair when it has one.
_SURROGATES = re.compile(
    r"(?<!\\)(?:\\\\)*\\u(?:[dD][89abAB][0-9a-fA-F]{2}(?P<low>\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    r"|(?P<lone>[dD][c-fC-F][0-9a-fA-F]{2}))"
)


def growing_text(*, strings: bool, binary: bool) -> GrowingText:
    """A new reader of a growing buffer, by jiter's nesting limit. ``strings``: the snapshot may show
    a string still being read (``partial_mode="trailing-strings"``, LangChain); without it the value
    leaves such a string out (``partial_mode=True``)."""
    return GrowingText(partial_strings=strings, max_depth=RECURSION_LIMIT, binary=binary)


def has_lone_surrogate(text: str | bytes | bytearray) -> bool:
    """``text`` holds a surrogate escape that is not half of a pair (one at the end still waiting for
    its pair counts too: the answer is then left to the reference parse)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    return any(
        match.group("lone") is not None or match.group("low") is None for match in _SURROGATES.finditer(text)
    )


NumberRule = Callable[[str], Any]


def snapshot(entry: GrowingText, *, keep_open_string: bool, number: NumberRule, string_end: str = "") -> Any:
    """The partial value for the text ``entry`` has read, or :data:`REFERENCE`.

    ``keep_open_string``: a string still being read is shown (the entry must have been made with
    ``strings=True``), with ``string_end`` added to its text. ``number(text)``: the value a number
    cut off at the end contributes, given its text so far, or ``None`` when it adds nothing.
    """
    if entry.failed:
        return REFERENCE
    # The open string's whole text is asked for: the preview holds back the newest part of a long
    # one. Nothing comes back for a text refused or ending inside a UTF-8 character.
    snapshot = entry.snapshot(string_text=keep_open_string)
    if snapshot is None:
        return REFERENCE
    kind, member, text, value, innermost = snapshot
    if innermost is None:
        # No container open: a whole value, or a top-level scalar still being read.
        if entry.status.state == "complete":
            # Nothing read later changes it (only whitespace may follow). A bare top-level number
            # or null is not in the preview: the reference reads it.
            return REFERENCE if value is None else value
        if kind == "string" and text is not None:
            return text + string_end
        return REFERENCE
    if text is not None and member is not None:
        _place(innermost, member, number(text) if kind == "number" else text + string_end)
    return value


def _place(node: Any, member: str | int, value: Any) -> None:
    """Puts ``value`` (unless ``None``) where the member being read goes: its key (over an earlier
    value of a repeated key), or the end of the array."""
    if value is None:
        return
    if isinstance(node, dict):
        node[member] = value
    elif isinstance(member, int) and member < len(node):
        node[member] = value
    else:
        node.append(value)
