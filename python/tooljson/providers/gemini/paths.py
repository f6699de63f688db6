"""Gemini's streamed arguments as JSON text: RFC 9535 paths, and the text that a call's pieces make.

With ``stream_function_call_arguments`` (Vertex AI, Gemini 3 models) a call's arguments arrive as
``partialArgs``: each one a JSON path (``$.location``, ``$.items[0].x``, ``$['odd key']``) with a
value, ``stringValue`` pieces of one string concatenating while ``willContinue`` holds.
:class:`ArgumentsText` turns that sequence into the JSON text of the arguments, fragment by
fragment, so that a call's pieces reach the one parser as every provider's text does (previews,
structural events, typed values and the strict parse then come from there). It keeps the open
containers along the current path: a piece at another path closes what the new path leaves and
opens what it enters (``{"a":{"b":`` ...); a string piece adds its escaped text (the opening quote
at its first piece, the closing one when it ends or the path moves on); a number, boolean or null
adds its literal. Work is linear in the pieces' sizes plus their paths' lengths.

The arguments are an object, built in the order the pieces come, and each value is given once:
a path that goes back to a member or element that already has its value (an earlier sibling, or
the same path again after its string ended), one that skips an array position, one whose kind
clashes with what is there (``$.a`` a string, then ``$.a.b``), or one that is not a singular path
(``$..a``, ``$.*``, ``$[0:2]``) raises :class:`ArgumentsError`, saying where; the text written so
far stays a valid prefix.

A number is a double on the wire: a whole one of magnitude below 2**53 is written as an integer
(``3``, what :func:`json.loads` gives for the wire's ``3`` in a whole call's ``args``), any other
in Python's shortest round-trip form; NaN and the infinities, which JSON cannot hold, are errors.
Neither an empty object nor an empty array can be streamed: no piece carries one.
"""

from __future__ import annotations

import math
import re
from json import dumps
from json.encoder import encode_basestring
from typing import Any

__all__ = ["ArgumentsError", "ArgumentsText", "Segment", "number_text", "parse_path", "path_text"]

Segment = str | int
"""One step of a path: a member name or an array position."""

# RFC 9535 member-name-shorthand: name-first (ALPHA, "_", any non-ASCII scalar) then name-chars.
_SHORTHAND = re.compile(r"[A-Za-z_\u0080-\ud7ff\ue000-\U0010ffff][A-Za-z0-9_\u0080-\ud7ff\ue000-\U0010ffff]*")
_INDEX = re.compile(r"-?[0-9]+")
_BLANK = " \t\n\r"
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\"}
# I-JSON's exact integers: the largest index a path may hold, and the whole doubles written as integers.
_EXACT = 2**53


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
                if not text or int(text) >= _EXACT:
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


def number_text(value: Any) -> str:
    """The JSON literal of a ``numberValue`` (see the module's docs); :class:`ValueError` for NaN,
    an infinity, or something that is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"numberValue must be a number, not {type(value).__name__}")
    if isinstance(value, int):
        if -_EXACT < value < _EXACT:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            raise ValueError("numberValue is beyond a double's range") from None
    if not math.isfinite(value):
        raise ValueError(f"numberValue {value!r} is not a JSON number")
    if value.is_integer() and -_EXACT < value < _EXACT:
        return str(int(value))
    return repr(value)


class _Container:
    """An open object or array of the arguments: what it holds so far."""

    __slots__ = ("array", "count", "keys", "last")

    def __init__(self, array: bool) -> None:
        self.array = array
        self.count = 0
        # An object's names so far (a name given twice would be a second value for it).
        self.keys: set[str] = set()
        self.last: Segment | None = None


# The value kinds a piece carries, as ArgumentsText.piece takes them.
STRING, NUMBER, BOOLEAN, NULL = "string", "number", "boolean", "null"


class ArgumentsText:
    """One call's streamed arguments, written as JSON text fragment by fragment.

    :meth:`begin` gives the first fragment (``{``), :meth:`piece` the fragment of each
    ``partialArgs`` entry, :meth:`whole` that of ``args`` given whole, :meth:`end` the last one,
    which closes everything open. Their fragments joined are the arguments' JSON text; an
    :class:`ArgumentsError` leaves the state as it was before the piece.
    """

    __slots__ = ("_path", "_stack", "_string_path", "_string_steps")

    def __init__(self) -> None:
        self._stack: list[_Container] = [_Container(array=False)]
        # The steps that entered each open container below the root.
        self._path: list[Segment] = []
        # The path of the string left open (its text as given, and its steps), if one is.
        self._string_path: str | None = None
        self._string_steps: tuple[Segment, ...] | None = None

    @staticmethod
    def begin() -> str:
        """The text of a call that begins: the arguments are an object."""
        return "{"

    def piece(self, path: str, kind: str | None, value: Any, will_continue: bool) -> str:
        """The fragment one ``partialArgs`` entry adds: ``kind`` is :data:`STRING`, :data:`NUMBER`,
        :data:`BOOLEAN`, :data:`NULL`, or ``None`` for an entry without a value (which can only
        end the string open at ``path``)."""
        if path == self._string_path:
            # The bulk of a long argument: the next piece of the string being written.
            return self._continue_string(path, kind, value, will_continue)
        steps = parse_path(path)
        if steps == self._string_steps:
            return self._continue_string(path, kind, value, will_continue)
        if not steps:
            raise ArgumentsError("the arguments are an object: a piece's path names a member of it", path)
        if kind is None:
            raise ArgumentsError("no value (stringValue, numberValue, boolValue or nullValue)", path)
        literal = _literal(path, kind, value)
        text = self._move_to(path, steps)
        if kind != STRING:
            return text + literal
        if will_continue:
            self._string_path, self._string_steps = path, steps
            return text + encode_basestring(value)[:-1]
        return text + encode_basestring(value)

    def _continue_string(self, path: str, kind: str | None, value: Any, will_continue: bool) -> str:
        if kind is not None:
            if kind != STRING:
                raise ArgumentsError(f"a {kind} value at a path whose string is still being written", path)
            if not isinstance(value, str):
                raise ArgumentsError(f"stringValue must be a string, not {type(value).__name__}", path)
        text = encode_basestring(value)[1:-1] if kind == STRING else ""
        if will_continue:
            if self._string_path != path:
                self._string_path = path
            return text
        self._string_path = self._string_steps = None
        return text + '"'

    def _move_to(self, path: str, steps: tuple[Segment, ...]) -> str:
        """Close what ``steps`` leaves, open what it enters, and name its last step; checked whole
        before anything changes."""
        stack = self._stack
        open_path = self._path
        containers = len(steps) - 1
        shared = 0
        limit = min(len(open_path), containers)
        while shared < limit and open_path[shared] == steps[shared]:
            shared += 1
        # The first new step goes into an open container; every later one into a new, empty one.
        _check_member(path, steps, shared, stack[shared])
        for depth in range(shared + 1, len(steps)):
            step = steps[depth]
            if isinstance(step, int) and step != 0:
                raise ArgumentsError(
                    f"{path_text(steps[:depth])} is a new array: its first element is [0], not [{step}]", path
                )
        parts: list[str] = []
        if self._string_path is not None:
            parts.append('"')
            self._string_path = self._string_steps = None
        while len(stack) > shared + 1:
            parts.append("]" if stack.pop().array else "}")
            open_path.pop()
        for depth in range(shared, len(steps)):
            container = stack[depth]
            step = steps[depth]
            if container.count:
                parts.append(",")
            container.count += 1
            container.last = step
            if not container.array:
                container.keys.add(step)  # type: ignore[arg-type]
                parts.append(encode_basestring(step))  # type: ignore[arg-type]
                parts.append(":")
            if depth < containers:
                array = isinstance(steps[depth + 1], int)
                parts.append("[" if array else "{")
                stack.append(_Container(array))
                open_path.append(step)
        return "".join(parts)

    def whole(self, args: Any) -> str:
        """The fragment of ``args`` given whole (a dict of JSON data): their members join the
        arguments' top level (before any piece, that is all of the arguments)."""
        if not isinstance(args, dict):
            raise ArgumentsError(f"args must be an object, not {type(args).__name__}", "$")
        if not args:
            return ""
        root = self._stack[0]
        for key in args:
            if not isinstance(key, str):
                raise ArgumentsError(f"args has a member name that is not a string: {key!r}", "$")
            if key in root.keys:
                raise ArgumentsError(
                    "args gives a member that the streamed pieces already gave", path_text([key])
                )
        try:
            members = dumps(args, ensure_ascii=False, allow_nan=False)[1:-1]
        except (TypeError, ValueError) as error:
            raise ArgumentsError(f"args are not JSON data: {error}", "$") from error
        parts: list[str] = []
        if self._string_path is not None:
            parts.append('"')
            self._string_path = self._string_steps = None
        while len(self._stack) > 1:
            parts.append("]" if self._stack.pop().array else "}")
            self._path.pop()
        if root.count:
            parts.append(",")
        parts.append(members)
        root.count += len(args)
        root.keys.update(args)
        root.last = next(reversed(args))
        return "".join(parts)

    def end(self) -> str:
        """The fragment that closes everything still open: the arguments are whole."""
        parts = ['"'] if self._string_path is not None else []
        self._string_path = self._string_steps = None
        parts.extend("]" if container.array else "}" for container in reversed(self._stack))
        self._stack = [_Container(array=False)]
        self._path = []
        return "".join(parts)


def _check_member(path: str, steps: tuple[Segment, ...], depth: int, container: _Container) -> None:
    """Whether ``steps[depth]`` can be the next member or element of ``container``."""
    step = steps[depth]
    if container.array:
        if not isinstance(step, int):
            raise ArgumentsError(f"{path_text(steps[:depth])} is an array: it has no member {step!r}", path)
        expected = container.count
        if step < expected:
            raise ArgumentsError(_taken(steps, depth), path)
        if step > expected:
            raise ArgumentsError(
                f"skips {path_text(steps[:depth])}[{expected}]: array elements come in order", path
            )
    else:
        if isinstance(step, int):
            raise ArgumentsError(f"{path_text(steps[:depth])} is an object: it has no element [{step}]", path)
        if step in container.keys:
            raise ArgumentsError(_taken(steps, depth), path)


def _taken(steps: tuple[Segment, ...], depth: int) -> str:
    """Why a path that reaches a place already given, at ``steps[depth]``, is refused."""
    place = path_text(steps[: depth + 1])
    if depth < len(steps) - 1:
        return f"{place} already has its value: it cannot also hold {path_text(steps)}"
    return f"goes back to {place}, which already has its value"


def _literal(path: str, kind: str, value: Any) -> str:
    """The text of a piece's value: the literal, or for a string nothing yet (checked here)."""
    if kind == STRING:
        if not isinstance(value, str):
            raise ArgumentsError(f"stringValue must be a string, not {type(value).__name__}", path)
        return ""
    if kind == NUMBER:
        try:
            return number_text(value)
        except ValueError as error:
            raise ArgumentsError(str(error), path) from None
    if kind == BOOLEAN:
        if not isinstance(value, bool):
            raise ArgumentsError(f"boolValue must be a boolean, not {type(value).__name__}", path)
        return "true" if value else "false"
    if kind == NULL:
        return "null"
    raise ArgumentsError(f"unknown value kind {kind!r}", path)
