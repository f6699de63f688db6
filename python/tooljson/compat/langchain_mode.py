"""``parse_partial_json``: LangChain's repair-and-retry result for every input, resumed on a growing
buffer.

LangChain's rule, which :func:`_repaired` follows for any text the resumed parse does not answer
(and :func:`_resumed` follows for a text cut inside an escape):
``json.loads`` the text; failing that, walk it keeping track of strings and of the brackets left
open (a raw newline inside a string becomes ``\\n``; a closing bracket that does not match makes the
result ``None``), close an open string (dropping a dangling backslash), then ``json.loads`` the text
with the missing closers appended, cutting the text back to where each attempt failed until one
succeeds; with nothing left, ``json.loads`` of the original raises its error.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from .._native import GrowingText
from .jiter_mode import CACHE
from .resume import REFERENCE, TAIL_CHARS, snapshot

__all__ = ["parse_partial_json"]

# What json.loads takes of a number: the longest match of its own number pattern.
_JSON_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_CLOSERS = {"{": "}", "[": "]"}


def _langchain_number(digits: str) -> Any:
    """The number json.loads reads from the start of a number cut off at the end, if any."""
    match = _JSON_NUMBER.match(digits)
    if match is None:
        return None
    integer, fraction, exponent = match.groups()
    if fraction or exponent:
        return float(integer + (fraction or "") + (exponent or ""))
    return int(integer)


def parse_partial_json(s: str, *, strict: bool = False) -> Any:
    """The value LangChain's ``parse_partial_json(s, strict=strict)`` returns, or the error it raises.

    A call whose ``s`` extends the ``s`` of a recent call reads only the new part; complete values in
    the result are shared with earlier results on the same buffer (copy one before changing it in
    place).
    """
    if not isinstance(s, str):
        raise TypeError(f"parse_partial_json takes a str, not {type(s).__name__}")
    entry = CACHE.read(s, strings=True)
    try:
        value = _resumed(entry, s)
    finally:
        CACHE.give(entry)
    if value is REFERENCE:
        return _repaired(s, strict)
    return value


# The end of a text cut inside an escape: ``\\u`` with fewer than four hex digits, or a whole high
# surrogate escape (alone, or with the backslash of the next escape) still waiting for its pair;
# group 1 is the run of backslashes before the ``u`` (odd: an escape; even: a literal backslash).
_ESCAPE_AT_END = re.compile(r"(\\+)u([0-9a-fA-F]{0,3}|[dD][89abAB][0-9a-fA-F]{2}\\?)\Z")


def _resumed(entry: GrowingText, text: str) -> Any:
    """The value from what ``entry`` has read of ``text`` (all of it, or at least its last
    ``TAIL_CHARS`` characters), or :data:`REFERENCE`.

    A text cut inside an escape of an open string is answered by LangChain's rule for it. Closing
    the string makes ``json.loads`` fail on a cut ``\\u`` escape, and every shorter attempt holds
    the string unterminated, so the repair ends where the string opened: the value without the open
    string. A high surrogate escape still waiting for its pair is closed as it is, and json.loads
    keeps it alone.
    """
    window = text[-TAIL_CHARS:]
    escape = _ESCAPE_AT_END.search(window) if "\\" in window[-7:] else None
    if escape is None or len(escape.group(1)) % 2 == 0:
        return snapshot(entry, keep_open_string=True, number=_langchain_number)
    if escape.start() == 0 and len(window) == TAIL_CHARS:
        return REFERENCE  # the run of backslashes may start before the window: its parity is unknown
    digits = escape.group(2)
    if len(digits) < 4:
        return snapshot(entry, keep_open_string=False, number=_langchain_number)
    return snapshot(
        entry, keep_open_string=True, number=_langchain_number, string_end=chr(int(digits[:4], 16))
    )


def _close(text: str) -> tuple[list[str], str] | None:
    """The text's pieces with an open string closed, and the closers it lacks; ``None`` when a
    closing bracket does not match."""
    pieces: list[str] = []
    expected: list[str] = []
    in_string = escaped = False
    for char in text:
        piece = char
        if not in_string:
            if char == '"':
                in_string, escaped = True, False
            elif char in _CLOSERS:
                expected.append(_CLOSERS[char])
            elif char in "}]":
                if not expected or expected[-1] != char:
                    return None
                expected.pop()
        elif char == '"' and not escaped:
            in_string = False
        elif char == "\n" and not escaped:
            piece = "\\n"
        elif char == "\\":
            escaped = not escaped
        else:
            escaped = False
        pieces.append(piece)
    if in_string:
        if escaped:
            pieces.pop()
        pieces.append('"')
    return pieces, "".join(reversed(expected))


def _repaired(text: str, strict: bool) -> Any:
    try:
        return json.loads(text, strict=strict)
    except json.JSONDecodeError:
        pass
    closed = _close(text)
    if closed is None:
        return None
    pieces, closers = closed
    ends = list(accumulate(map(len, pieces)))
    while pieces:
        try:
            return json.loads("".join(pieces) + closers, strict=strict)
        except json.JSONDecodeError as failure:
            # Every longer attempt still holds the piece that failed, and fails there again.
            keep = bisect_right(ends, failure.pos)
            if keep >= len(pieces):
                keep = len(pieces) - 1
            del pieces[keep:]
            del ends[keep:]
    return json.loads(text, strict=strict)
