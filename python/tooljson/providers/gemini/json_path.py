"""RFC 9535 JSON paths as Gemini's streamed arguments name places: parsed to steps and written back.

:func:`parse_path` reads a singular path (``$.location``, ``$.items[0].x``, ``$['odd key']``) into
its steps, member names and array positions, and raises :class:`ArgumentsError` for anything else
(``$..a``, ``$.*``, ``$[0:2]``, a negative index), saying at which character; :func:`path_text`
writes steps back in the normalized form, for messages. The arguments text these paths place
pieces in is :mod:`tooljson.providers.gemini.arguments_text`.
"""

from __future__ import annotations

import re

__all__ = ["EXACT", "ArgumentsError", "Segment", "parse_path", "path_text"]

Segment = str | int
"""One step of a path: a member name or an array position."""

# RFC 9535 member-name-shorthand: name-first (ALPHA, "_", any non-ASCII scalar) then name-chars.
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][A-Za-z0-9_\u0080-\ud7ff\ue000-\U0010ffff]*")
_INDEX = re.compile(r"-?[0-9]+")
_BLANK = " \t\n\r"
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\"}
# I-JSON's exact integers: the largest index a path may hold, and the whole doubles written as integers.
EXACT = 2**53


class ArgumentsError(ValueError):
    """A streamed piece that cannot be part of the arguments: ``problem`` says why, ``path`` is the
    piece's JSON path and ``position`` the character of it the problem is at (``None`` when the
    path is fine but the arguments already hold something else there)."""

    def __init__(self, problem: str, path: str, position: int | None = None) -> None:
        where = f" at character {position}" if position is not None else ""
        super().__init__(f"jsonPath {path!r}{where}: {problem}")
        self.problem = problem
        self.path = path
        self.position = position


def _skip_blank(path: str, at: int) -> int:
    while at < len(path) and path[at] in _BLANK:
        at += 1
    return at


def _quoted(path: str, at: int) -> tuple[str, int]:
    """The name of the string literal at ``at`` (RFC 9535: single or double quotes, JSON's escapes,
    the enclosing quote escaped and the other one not), and the position after it."""
    quote = path[at]
    chars: list[str] = []
    at += 1
    end = len(path)
    while at < end:
        char = path[at]
        if char == quote:
            return "".join(chars), at + 1
        if char == "\\":
            escaped = path[at + 1] if at + 1 < end else ""
            if escaped == "u":
                code, at = _unicode_escape(path, at + 2)
                chars.append(code)
                continue
            if escaped in _ESCAPES:
                chars.append(_ESCAPES[escaped])
            elif escaped == quote:
                chars.append(quote)
            else:
                raise ArgumentsError(f"{escaped!r} cannot be escaped in a quoted name", path, at + 1)
            at += 2
            continue
        if char < " " or "\ud800" <= char <= "\udfff":
            raise ArgumentsError(f"{char!r} must be escaped in a quoted name", path, at)
        chars.append(char)
        at += 1
    raise ArgumentsError("the quoted name does not end", path, at)


def _hex4(path: str, at: int) -> int:
    digits = path[at : at + 4]
    if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
        raise ArgumentsError("\\u takes four hexadecimal digits", path, at)
    return int(digits, 16)


def _unicode_escape(path: str, at: int) -> tuple[str, int]:
    """The character of a ``\\uXXXX`` escape whose digits start at ``at`` (a surrogate pair as two
    escapes), and the position after it."""
    code = _hex4(path, at)
    at += 4
    if 0xDC00 <= code <= 0xDFFF:
        raise ArgumentsError("a low surrogate escape without a high one before it", path, at - 6)
    if 0xD800 <= code <= 0xDBFF:
        if path[at : at + 2] != "\\u":
            raise ArgumentsError("a high surrogate escape without a low one after it", path, at - 6)
        low = _hex4(path, at + 2)
        if not 0xDC00 <= low <= 0xDFFF:
            raise ArgumentsError("a high surrogate escape without a low one after it", path, at - 6)
        return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), at + 6
    return chr(code), at


def parse_path(path: str) -> tuple[Segment, ...]:
    """The steps of a singular RFC 9535 JSON path (``$``, then ``.name``, ``['name']``,
    ``["name"]`` or ``[index]`` segments, blank space allowed where the RFC allows it); raises
    :class:`ArgumentsError` for anything else."""
    if not path.startswith("$"):
        raise ArgumentsError("a JSON path starts with '$'", path, 0)
    steps: list[Segment] = []
    at = 1
    end = len(path)
    while at < end:
        start = _skip_blank(path, at)
        if start == end:
            raise ArgumentsError("blank space after the last segment", path, at)
        char = path[start]
        if char == ".":
            if path.startswith("..", start):
                raise ArgumentsError("'..' selects descendants, not one place", path, start)
            name = _SHORTHAND.match(path, start + 1)
            if name is None:
                raise ArgumentsError("a member name must follow '.'", path, start + 1)
            steps.append(name.group())
            at = name.end()
        elif char == "[":
            inner = _skip_blank(path, start + 1)
            selector = path[inner] if inner < end else ""
            if selector in ("'", '"'):
                name_text, after = _quoted(path, inner)
                steps.append(name_text)
            elif selector == "-" or selector.isdigit():
                digits = _INDEX.match(path, inner)
                text = digits.group() if digits is not None else ""
                if text.startswith("-"):
                    raise ArgumentsError("a negative index does not say which element", path, inner)
                if len(text) > 1 and text.startswith("0"):
                    raise ArgumentsError("an index has no leading zeros", path, inner)
                if not text or int(text) >= EXACT:
                    raise ArgumentsError("an index must be below 2**53", path, inner)
                steps.append(int(text))
                after = inner + len(text)
            else:
                raise ArgumentsError("only a quoted name or an index selects one place", path, inner)
            close = _skip_blank(path, after)
            if close < end and path[close] == ",":
                raise ArgumentsError("several selectors select more than one place", path, close)
            if close >= end or path[close] != "]":
                raise ArgumentsError("']' expected", path, close)
            at = close + 1
        else:
            raise ArgumentsError("'.' or '[' expected", path, start)
    return tuple(steps)


def path_text(steps: tuple[Segment, ...] | list[Segment]) -> str:
    """The normalized RFC 9535 path of ``steps`` (``$['a'][0]``), for messages."""
    parts = ["$"]
    for step in steps:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        else:
            parts.append("['" + step.replace("\\", "\\\\").replace("'", "\\'") + "']")
    return "".join(parts)
