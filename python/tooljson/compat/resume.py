"""Resuming a parse where the last call on a shorter buffer left it.

Code that re-parses a growing buffer calls the parser with ``text[:n1]``, ``text[:n2]``, ... A
:class:`Resumable` holds a native ``GrowingText`` that has read the first part; the next call has it
read only what was added (``bytes`` read as UTF-8 in place), and :func:`snapshot` turns its state
into the value a partial parser gives for the whole text. :class:`ResumeCache` keeps a few of them, found by the text they
have read being a prefix of the new one.

A snapshot answers only when the text so far is a prefix of valid JSON that both the native parser
and the compatibility mode treat the same way; for anything else it says :data:`REFERENCE`, and the
caller parses the whole text with the mode's own rules. So the kept state can make a call faster,
never different.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, Final

from .._native import GrowingText
from .jiter_reference import RECURSION_LIMIT

__all__ = ["REFERENCE", "ResumeCache", "Resumable", "has_lone_surrogate", "snapshot"]

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


class Resumable:
    """One text read so far by the native ``GrowingText``, with what the compatibility modes need to
    know of it.

    ``strings``: the snapshot may show a string still being read (``partial_mode="trailing-strings"``,
    LangChain); without it the value leaves such a string out (``partial_mode=True``).
    """

    __slots__ = (
        "binary",
        "failed",
        "length",
        "native",
        "source",
        "strings",
    )

    def __init__(self, *, strings: bool, binary: bool) -> None:
        self.strings = strings
        self.binary = binary
        #: The native reader (a plain attribute, not a property: it is read twice per call).
        self.native = GrowingText(partial_strings=strings, max_depth=RECURSION_LIMIT)
        #: The input read so far: the caller's own object (``str``, ``bytes``) or a copy of it.
        self.source: str | bytes = b"" if binary else ""
        #: Its length in the input's units (bytes or characters).
        self.length = 0
        #: The text was refused (malformed, too deep, not UTF-8): nothing more is read.
        self.failed = False

    def advance(self, source: str | bytes) -> None:
        """Reads what ``source`` adds to the text read before (which it starts with)."""
        start = self.length
        self.source = source
        self.length = len(source)
        if not self.failed and not self.native.read(source, start):
            self.failed = True

    def read(self, around: str | bytes, start: int) -> None:
        """Reads ``around[start:]`` (what comes before ``start`` was read by earlier calls)."""
        if not self.failed and not self.native.read(around, start):
            self.failed = True

    @property
    def has_inf_nan(self) -> bool:
        """An ``N`` or an ``I`` was read, even inside a string: with ``allow_inf_nan=False`` jiter
        refuses a value starting with either at once, before the word is whole."""
        return self.native.has_inf_nan


def has_lone_surrogate(text: str | bytes | bytearray) -> bool:
    """``text`` holds a surrogate escape that is not half of a pair (one at the end still waiting for
    its pair counts too: the answer is then left to the reference parse)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    return any(
        match.group("lone") is not None or match.group("low") is None
        for match in _SURROGATES.finditer(text)
    )


NumberRule = Callable[[str], Any]


def snapshot(entry: Resumable, *, keep_open_string: bool, number: NumberRule, string_end: str = "") -> Any:
    """The partial value for the text ``entry`` has read, or :data:`REFERENCE`.

    ``keep_open_string``: a string still being read is shown (the entry must have been made with
    ``strings=True``), with ``string_end`` added to its text. ``number(text)``: the value a number
    cut off at the end contributes, given its text so far, or ``None`` when it adds nothing.
    """
    if entry.failed:
        return REFERENCE
    # The open string's whole text is asked for: the preview holds back the newest part of a long
    # one. Nothing comes back for a text refused or ending inside a UTF-8 character.
    native = entry.native
    snapshot = native.snapshot(string_text=keep_open_string)
    if snapshot is None:
        return REFERENCE
    kind, member, text, value, innermost = snapshot
    if innermost is None:
        # No container open: a whole value, or a top-level scalar still being read.
        if native.status.state == "complete":
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


class ResumeCache:
    """A few recently read texts, each with the parser that read it; safe across threads.

    An entry is taken out while a call uses it (so two threads never share a parser) and given back
    after. At most ``max_entries`` are kept, holding at most ``max_chars`` of text together; the
    least recently used go first.
    """

    def __init__(self, *, max_entries: int = 8, max_chars: int = 32 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._entries: list[Resumable] = []
        self._total = 0  # the entries' lengths added up
        self._lock = threading.Lock()

    def read(self, data: str | bytes | bytearray, *, strings: bool) -> Resumable:
        """An entry that has read all of ``data``, taken out: the one whose text is the longest
        prefix of ``data`` (usually the last call's), resumed; else a new one."""
        binary = data.__class__ is not str
        source: str | bytes = bytes(data) if isinstance(data, bytearray) else data
        entry = None
        with self._lock:
            entries = self._entries
            if entries:
                # The usual case: the buffer of the last call, grown.
                last = entries[-1]
                if (
                    last.strings is strings
                    and last.binary is binary
                    and last.length <= len(source)
                    and source.startswith(last.source)  # type: ignore[arg-type]
                ):
                    entry = entries.pop()
                else:
                    entry = self._longest_prefix(source, strings, binary)
                if entry is not None:
                    self._total -= entry.length
        if entry is None:
            entry = Resumable(strings=strings, binary=binary)
        entry.advance(source)
        return entry

    def _longest_prefix(
        self, data: str | bytes | bytearray, strings: bool, binary: bool
    ) -> Resumable | None:
        best = None
        for position in range(len(self._entries) - 1, -1, -1):
            entry = self._entries[position]
            if entry.strings is not strings or entry.binary is not binary:
                continue
            if entry.length > len(data) or (best is not None and entry.length <= best[1].length):
                continue
            if data.startswith(entry.source):  # type: ignore[arg-type]
                best = (position, entry)
        if best is None:
            return None
        del self._entries[best[0]]
        return best[1]

    def give(self, entry: Resumable) -> None:
        """Keeps ``entry`` as the most recently used, dropping the oldest beyond the bounds."""
        if entry.failed or entry.length > self.max_chars:
            return
        with self._lock:
            self._entries.append(entry)
            self._total += entry.length
            while len(self._entries) > self.max_entries or self._total > self.max_chars:
                self._total -= self._entries.pop(0).length

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._total = 0

    def __len__(self) -> int:
        return len(self._entries)
