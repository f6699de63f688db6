"""A from-scratch parse with ``jiter.from_json``'s rules, errors and messages.

The resumable path (:mod:`tooljson.compat.resume`) answers the common case, a growing prefix of
valid JSON, from the native parser's state. Everything else comes here: malformed text (where jiter's
partial modes keep what came before some errors and ignore anything after a whole top-level value),
the options the native parser has no counterpart for (duplicate-key errors, decimal and lossless
floats, ``allow_inf_nan=False``), surrogate escapes jiter rejects and ``json.loads`` keeps, nesting
beyond jiter's limit, and every error message.

The rules, as jiter applies them:

- Nesting: at most 200 values inside containers, one in another (a top-level array holding 200
  nested ones is the deepest it accepts).
- Partial modes keep a container's members read before the text ends or before a missing ``,``
  (``[1 2`` gives ``[1]``), drop a member whose value is cut off (a number such as ``1.``, a literal,
  a string unless ``"trailing-strings"``), and stop after the top-level value.
- Error positions are byte offsets shown as ``line L column C``.
"""

from __future__ import annotations

import codecs
import decimal
import re
from typing import Any

from .jiter_errors import Fault as _Fault
from .jiter_errors import error as _error
from .lossless import LosslessFloat

__all__ = ["parse"]

# How deep values may sit inside containers.
RECURSION_LIMIT = 200

# The errors a partial mode forgives inside a container: the text ended, or a member was not followed
# by a separator.
_FORGIVEN = frozenset({"eof_list", "eof_object", "eof_string", "eof_value", "list_comma", "object_comma"})

_WHITESPACE = re.compile(rb"[ \t\n\r]*")
_PLAIN = re.compile(rb'[^"\\\x00-\x1f]*')
_DIGITS = re.compile(rb"[0-9]*")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_ESCAPES = {
    ord('"'): '"',
    ord("\\"): "\\",
    ord("/"): "/",
    ord("b"): "\b",
    ord("f"): "\f",
    ord("n"): "\n",
    ord("r"): "\r",
    ord("t"): "\t",
}
_LITERALS = {ord("t"): (b"true", True), ord("f"): (b"false", False), ord("n"): (b"null", None)}


def parse(
    data: bytes,
    *,
    allow_inf_nan: bool,
    partial: str,
    catch_duplicate_keys: bool,
    float_mode: str,
) -> Any:
    """The value jiter gives for ``data``, or the ``ValueError`` it raises."""
    reader = _Reader(data, allow_inf_nan, partial, catch_duplicate_keys, float_mode)
    try:
        value = reader.top()
    except _Fault as fault:
        raise _error(data, fault) from None
    return value


class _Reader:
    def __init__(
        self,
        data: bytes,
        allow_inf_nan: bool,
        partial: str,
        catch_duplicate_keys: bool,
        float_mode: str,
    ) -> None:
        self.data = data
        self.end = len(data)
        self.allow_inf_nan = allow_inf_nan
        self.partial = partial != "off"
        self.trailing_strings = partial == "trailing-strings"
        self.catch_duplicate_keys = catch_duplicate_keys
        self.float_mode = float_mode

    # -- positions ---------------------------------------------------------------------------

    def skip(self, index: int) -> int:
        match = _WHITESPACE.match(self.data, index)
        return match.end() if match else index

    def peek(self, index: int, eof: str) -> tuple[int, int]:
        """The next non-whitespace byte and its offset; ``eof`` names the error at the end."""
        index = self.skip(index)
        if index >= self.end:
            raise _Fault(eof, index)
        return self.data[index], index

    # -- values ------------------------------------------------------------------------------

    def top(self) -> Any:
        first, index = self.peek(0, "eof_value")
        value, index = self.value(first, index, RECURSION_LIMIT)
        if not self.partial:
            index = self.skip(index)
            if index < self.end:
                raise _Fault("trailing", index)
        return value

    def value(self, first: int, index: int, budget: int) -> tuple[Any, int]:
        if first == 0x5B:  # [
            return self.array(index, budget)
        if first == 0x7B:  # {
            return self.object(index, budget)
        if first == 0x22:  # "
            return self.string(index, self.trailing_strings)
        literal = _LITERALS.get(first)
        if literal is not None:
            return literal[1], self.ident(index, literal[0])
        return self.number(first, index)

    def member(self, index: int, budget: int) -> tuple[Any, int]:
        """A value inside a container, counted against the nesting limit."""
        if budget == 0:
            raise _Fault("recursion", index)
        return self.value(self.data[index], index, budget - 1)

    def array(self, index: int, budget: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        try:
            first, index = self.peek(index + 1, "eof_list")
            if first == 0x5D:  # ]
                return items, index + 1
            while True:
                item, index = self.member(index, budget)
                items.append(item)
                after, index = self.peek(index, "eof_list")
                if after == 0x5D:
                    return items, index + 1
                if after != 0x2C:  # ,
                    raise _Fault("list_comma", index)
                after, index = self.peek(index + 1, "eof_value")
                if after == 0x5D:
                    raise _Fault("trailing_comma", index)
        except _Fault as fault:
            if self.partial and fault.kind in _FORGIVEN:
                # The members so far; the container around goes on from where this one stopped.
                return items, fault.index
            raise

    def object(self, index: int, budget: int) -> tuple[dict[str, Any], int]:
        members: dict[str, Any] = {}
        seen: set[str] = set()
        try:
            first, index = self.peek(index + 1, "eof_object")
            if first == 0x7D:  # }
                return members, index + 1
            if first != 0x22:
                raise _Fault("key", index)
            while True:
                key, index = self.string(index, False)
                after, index = self.peek(index, "eof_object")
                if after != 0x3A:  # :
                    raise _Fault("colon", index)
                index += 1
                if self.catch_duplicate_keys:
                    if key in seen:
                        raise _Fault("duplicate", index, key)
                    seen.add(key)
                _, index = self.peek(index, "eof_value")
                members[key], index = self.member(index, budget)
                after, index = self.peek(index, "eof_object")
                if after == 0x7D:
                    return members, index + 1
                if after != 0x2C:
                    raise _Fault("object_comma", index)
                index = self.skip(index + 1)
                if index >= self.end:
                    raise _Fault("eof_value", index)
                after = self.data[index]
                if after == 0x7D:
                    raise _Fault("trailing_comma", index)
                if after != 0x22:
                    raise _Fault("key", index)
        except _Fault as fault:
            if self.partial and fault.kind in _FORGIVEN:
                return members, fault.index
            raise

    def ident(self, index: int, word: bytes) -> int:
        for offset in range(1, len(word)):
            at = index + offset
            if at >= self.end:
                raise _Fault("eof_value", at)
            if self.data[at] != word[offset]:
                raise _Fault("ident", at)
        return index + len(word)

    # -- strings -----------------------------------------------------------------------------

    def string(self, index: int, keep_cut: bool) -> tuple[str, int]:
        """The string starting at the quote at ``index``; ``keep_cut``: a cut-off string is kept.

        As jiter does, the string is scanned to its end (escapes and control characters fail where
        they are) before its bytes are checked as UTF-8. Where cut-off strings are kept, so is a
        string whose last character is cut off, without that character (even before its closing
        quote: ``"\xe9"`` gives ``""``).
        """
        data = self.data
        parts: list[str] = []
        bad_byte: int | None = None
        index += 1
        while True:
            run = _PLAIN.match(data, index)
            stop = run.end() if run else index
            if stop > index:
                ends_content = stop >= self.end or data[stop] == 0x22
                text, bad = self._decode(index, stop, keep_cut and ends_content)
                parts.append(text)
                bad_byte = bad if bad_byte is None else bad_byte
            index = stop
            if index >= self.end:
                return self._ended("".join(parts), bad_byte, keep_cut)
            byte = data[index]
            if byte == 0x22:
                if bad_byte is not None:
                    raise _Fault("code_point", bad_byte)
                return "".join(parts), index + 1
            if byte < 0x20:
                raise _Fault("control", index)
            # A backslash.
            decoded, index = self.escape(index, keep_cut)
            if decoded is None:  # cut off inside the escape, kept as far as it is whole
                return self._ended("".join(parts), bad_byte, keep_cut)
            parts.append(decoded)

    def _ended(self, text: str, bad_byte: int | None, keep_cut: bool) -> tuple[str, int]:
        """A string cut off by the end of the text."""
        if not keep_cut:
            raise _Fault("eof_string", self.end)
        if bad_byte is not None:
            raise _Fault("code_point", bad_byte)
        return text, self.end

    def _decode(self, start: int, stop: int, drop_cut: bool) -> tuple[str, int | None]:
        """The run's text, and the offset of its first byte that is not UTF-8 (``None`` if all is);
        ``drop_cut``: a character cut off at the end of the run is left out."""
        chunk = self.data[start:stop]
        try:
            return chunk.decode("utf-8"), None
        except UnicodeDecodeError as failure:
            at_end = failure.end == len(chunk)
            if drop_cut and at_end and failure.reason == "unexpected end of data":
                return codecs.getincrementaldecoder("utf-8")().decode(chunk, final=False), None
            return "", start + failure.start

    def escape(self, index: int, keep_cut: bool) -> tuple[str | None, int]:
        data = self.data
        if index + 1 >= self.end:
            return self._cut(index + 1, keep_cut)
        kind = data[index + 1]
        simple = _ESCAPES.get(kind)
        if simple is not None:
            return simple, index + 2
        if kind != 0x75:  # u
            raise _Fault("escape", index + 1)
        code, index = self.hex4(index + 2, keep_cut)
        if code is None:
            return None, index
        if 0xDC00 <= code <= 0xDFFF:
            raise _Fault("lone_surrogate", index - 1)
        if code < 0xD800 or code > 0xDBFF:
            return chr(code), index
        # A high surrogate: a low one must follow at once.
        if index >= self.end:
            return self._cut(index, keep_cut)
        if data[index] != 0x5C:
            raise _Fault("hex_end", index)
        if index + 1 >= self.end:
            return self._cut(index + 1, keep_cut)
        if data[index + 1] != 0x75:
            raise _Fault("hex_end", index + 1)
        low, index = self.hex4(index + 2, keep_cut)
        if low is None:
            return None, index
        if not 0xDC00 <= low <= 0xDFFF:
            raise _Fault("lone_surrogate", index - 1)
        return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), index

    def hex4(self, index: int, keep_cut: bool) -> tuple[int | None, int]:
        """The four hex digits at ``index``; fewer than four bytes left is a cut, whatever they are."""
        if index + 4 > self.end:
            return self._cut(self.end, keep_cut)
        for offset in range(4):
            if self.data[index + offset] not in _HEX:
                raise _Fault("escape", index + offset)
        return int(self.data[index : index + 4], 16), index + 4

    def _cut(self, index: int, keep_cut: bool) -> tuple[None, int]:
        if keep_cut:
            return None, index
        raise _Fault("eof_string", self.end)

    # -- numbers -----------------------------------------------------------------------------

    def number(self, first: int, index: int) -> tuple[Any, int]:
        data = self.data
        start = index
        if first == 0x4E:  # N
            if not self.allow_inf_nan:
                raise _Fault("value", index)
            return float("nan"), self.ident(index, b"NaN")
        if first == 0x49:  # I
            if not self.allow_inf_nan:
                raise _Fault("value", index)
            return float("inf"), self.ident(index, b"Infinity")
        if first == 0x2D:  # -
            index += 1
            if index >= self.end:
                raise _Fault("eof_value", index)
            if data[index] == 0x49:
                if not self.allow_inf_nan:
                    raise _Fault("number", index)
                return float("-inf"), self.ident(index, b"Infinity")
            if not 0x30 <= data[index] <= 0x39:
                raise _Fault("number", index)
        elif not 0x30 <= first <= 0x39:
            raise _Fault("value", index)
        if data[index] == 0x30:
            index += 1
            if index < self.end and 0x30 <= data[index] <= 0x39:
                raise _Fault("number", index)
        else:
            index = _DIGITS.match(data, index).end()  # type: ignore[union-attr]
        is_float = False
        if index < self.end and data[index] == 0x2E:  # .
            is_float = True
            index = self._digits(index + 1)
        if index < self.end and data[index] in (0x65, 0x45):  # e E
            is_float = True
            index += 1
            if index < self.end and data[index] in (0x2B, 0x2D):
                index += 1
            index = self._digits(index)
        text = data[start:index]
        if not is_float:
            return int(text), index
        if self.float_mode == "decimal":
            return decimal.Decimal(text.decode()), index
        if self.float_mode == "lossless-float":
            return LosslessFloat(text), index
        return float(text), index

    def _digits(self, index: int) -> int:
        """At least one digit from ``index``."""
        if index >= self.end:
            raise _Fault("eof_value", index)
        if not 0x30 <= self.data[index] <= 0x39:
            raise _Fault("number", index)
        return _DIGITS.match(self.data, index).end()  # type: ignore[union-attr]
