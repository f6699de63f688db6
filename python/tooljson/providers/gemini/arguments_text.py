"""Gemini's streamed arguments as JSON text: the text that a call's pieces make.

With ``stream_function_call_arguments`` (Vertex AI, Gemini 3 models) a call's arguments arrive as
``partialArgs``: each one a JSON path (``$.location``, ``$.items[0].x``, ``$['odd key']``) with a
value, ``stringValue`` pieces of one string concatenating while ``willContinue`` holds (the paths
are read by :mod:`tooljson.providers.gemini.json_path`).
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
from json import dumps
from json.encoder import encode_basestring
from typing import Any

from tooljson.providers.gemini.json_path import EXACT, ArgumentsError, Segment, parse_path, path_text

__all__ = ["ArgumentsText", "number_text"]


def number_text(value: Any) -> str:
    """The JSON literal of a ``numberValue`` (see the module's docs); :class:`ValueError` for NaN,
    an infinity, or something that is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"numberValue must be a number, not {type(value).__name__}")
    if isinstance(value, int):
        if -EXACT < value < EXACT:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            raise ValueError("numberValue is beyond a double's range") from None
    if not math.isfinite(value):
        raise ValueError(f"numberValue {value!r} is not a JSON number")
    if value.is_integer() and -EXACT < value < EXACT:
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
